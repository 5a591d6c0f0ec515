"""A complete rack in the browser: the shared page's bill of materials lists the PDUs, the cables,
the rail kits and the blanking panels, and each rack says its heat beside its watts."""

import pytest

from .conftest import screenshot

pytestmark = pytest.mark.browser


def test_the_shared_page_lists_pdus_cables_rails_and_blanking_panels(page):
    from django.contrib.auth import get_user_model

    from planner.services import design_create

    owner = get_user_model().objects.create_user("rackman", password="pw-rackman-123456")
    design = design_create(
        owner=owner,
        name="Two capacity bricks",
        spec={"bricks": [{"template": "md3460-capacity", "count": 2}], "metadata": {"placement": "none"}},
    )
    design.share_token = "complete-rack-link"
    design.save(update_fields=["share_token"])
    page.goto(page.base_url + "/shared/complete-rack-link/")
    text = page.inner_text("main")
    for words in ("0U rack PDU", "mini-SAS HD cable", "InfiniBand QSFP copper cable", "Sliding rail kit", "1U blanking panel"):
        assert words in text, words
    assert "BTU/h" in text
    screenshot(page, "shared-complete-rack")
