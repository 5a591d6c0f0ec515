"""Issue 13 in Chromium: controls that cannot act are disabled with a tooltip saying why: Save a copy,
Delete, Share and Export before a design is saved; a reader of a shared design gets a read-only designer."""

import pytest

from .conftest import screenshot
from .test_designer_browser import _sign_in, _wait_for_value

pytestmark = pytest.mark.browser


def _state(page, selector):
    return page.eval_on_selector(
        selector,
        "el => ({disabled: el.disabled, title: el.title, cursor: getComputedStyle(el).cursor, bg: getComputedStyle(el).backgroundColor})",
    )


def test_unsaved_design_disables_copy_delete_share_and_export_saying_why(page):
    _sign_in(page)
    page.goto(page.base_url + "/designer/?example=study-a")
    _wait_for_value(page, "#read-gbps", "9.0")
    save = _state(page, "#save")
    assert not save["disabled"]
    for selector, word in (
        ("#copy", "copy"),
        ("#delete", "delete"),
        ("#share-apply", "share"),
        ("#share-users", "share"),
        ("#export", "export"),
    ):
        state = _state(page, selector)
        assert state["disabled"], selector
        assert state["title"].startswith("Save the design first") and word in state["title"], (selector, state["title"])
        assert state["cursor"] == "not-allowed"
    assert _state(page, "#copy")["bg"] != save["bg"]  # looks different from an enabled button
    screenshot(page, "designer-unsaved-disabled")
    page.click("#save")
    page.wait_for_function("document.getElementById('save-status').textContent.startsWith('Saved')")
    for selector in ("#copy", "#delete", "#share-apply", "#export"):
        state = _state(page, selector)
        assert not state["disabled"] and state["title"] == "", selector


def test_reader_of_a_shared_design_sees_a_read_only_designer(page, django_user_model):
    from planner.services import design_create, design_share, example_design

    owner = django_user_model.objects.create_user("olga", password="pw-olga-123456")
    design = design_create(owner=owner, name="Olga's rack D", spec=example_design(slug="study-d")["spec"])
    _sign_in(page, "rita", "pw-rita-123456")
    design_share(design=design, usernames=["rita"])
    page.goto(page.base_url + f"/designer/?design={design.id}")
    _wait_for_value(page, "#read-gbps", "36.0")  # a reader still sees the figures
    assert "olga shared this design with you" in page.inner_text("#read-only-note")
    for selector in (
        "#design-name",
        "#b0-count",
        "#b0-template",
        "#b0-disk",
        "#b0-raid-level",
        "#tuning",
        "#rack",
        "#add-brick",
        "#clients-on",
    ):
        state = _state(page, selector)
        assert state["disabled"], selector
        assert "Read-only" in state["title"], selector
    assert page.locator("#brick-lines button.remove").first.is_disabled()
    for selector in ("#save", "#delete", "#share-apply"):
        state = _state(page, selector)
        assert state["disabled"] and "Only olga" in state["title"], selector
    assert not _state(page, "#copy")["disabled"]  # a reader keeps a copy of their own to change
    assert not _state(page, "#export")["disabled"]
    assert not _state(page, "#reference")["disabled"]
    screenshot(page, "designer-reader-read-only")
    page.click("#copy")
    page.wait_for_url(lambda url: "design=" in url and not url.endswith(f"design={design.id}"))
    _wait_for_value(page, "#read-gbps", "36.0")
    assert not _state(page, "#b0-count")["disabled"] and page.locator("#read-only-note").is_hidden()
