"""The "Send to DCIM" page in a real browser (Chromium; here, not in tests/dcim/, so that it shares this
folder's one browser session: a second Playwright session in the same run fails): add a connection, test it,
dry run, push, and read the report; the DCIM is the in-process fake (tests/dcim/test_push_fake.py)."""

import pytest

from dcim import clients
from tests.dcim.test_push_fake import FakeDcim

from .conftest import screenshot

TOKEN = "0123456789abcdef0123456789abcdef01234567"
SPEC = {"bricks": [{"template": "md3460-performance", "count": 2}], "metadata": {"placement": "none"}}


@pytest.fixture
def fake(monkeypatch):
    fake = FakeDcim("nautobot", token=TOKEN)
    monkeypatch.setattr(clients, "UrllibTransport", lambda **kw: fake)  # the live server runs in this process
    return fake


def test_send_to_dcim_add_connection_dry_run_push_and_report(page, fake):
    from django.contrib.auth import get_user_model

    from planner import services

    user = get_user_model().objects.create_user("pusher", password="pw-pusher-123456")
    design = services.design_create(owner=user, name="Rack P", spec=SPEC)
    errors = []
    page.on("console", lambda m: errors.append(m.text) if m.type == "error" else None)
    page.on("dialog", lambda d: d.accept())
    page.goto(page.base_url + "/accounts/login/")
    page.fill("#id_username", "pusher")
    page.fill("#id_password", "pw-pusher-123456")
    page.click("button[type=submit]")
    page.wait_for_url(page.base_url + "/")

    page.goto(page.base_url + f"/designer/?design={design.pk}")
    page.click("#dcim-push-link")
    page.wait_for_url(page.base_url + f"/dcim/send/?design={design.pk}")
    assert page.input_value("#push-design") == str(design.pk)

    # a broken token first: the field's message shows beside it
    page.fill("#conn-name", "Test Nautobot")
    page.fill("#conn-url", "https://nautobot.example.org")
    page.fill("#conn-token", "Token abc")
    page.fill("#conn-site", "Hall A")
    page.click("#connection-form button[type=submit]")
    page.wait_for_selector('[data-error="token"]:has-text("no spaces")')
    page.fill("#conn-token", TOKEN)
    page.click("#connection-form button[type=submit]")
    page.wait_for_selector("#push-test-result:has-text('Connection saved (token …4567): test it.')")
    assert page.locator("#push-connection option:checked").text_content().startswith("Test Nautobot (nautobot")
    assert page.input_value("#conn-token") == ""  # the token does not stay in the page

    page.click("#push-test")
    page.wait_for_selector("#push-test-result:has-text('Nautobot 3.2.0 answers; the token works.')")

    page.click("#push-dry-run")
    page.wait_for_selector("#push-status:has-text('Dry run done')")
    rows = page.locator("#push-report tbody tr")
    shown = rows.count()
    assert shown > 20
    assert page.locator('#push-report tbody tr[data-action="create"]').count() == shown
    # a device type's interface templates are one row, with how many and the first and last names
    md3460 = page.locator('#push-report tbody tr:has(td:text-is("interface-template"))', has_text="PowerVault MD3460: ")
    assert md3460.count() == 1 and md3460.get_attribute("data-count") == "12"
    assert "PowerVault MD3460: 12 (ctrl0-host0 … ctrl1-mgmt)" in md3460.text_content()
    counts = page.eval_on_selector_all("#push-report tbody tr", "rows => rows.map(r => Number(r.dataset.count || 1))")
    total = sum(counts)  # every object of the report, grouped or not
    assert f"{total} create" in page.text_content("#push-summary")
    assert fake.writes() == []

    page.click("#push-apply")
    page.wait_for_selector("#push-status:has-text('Push done')")
    assert page.locator('#push-report tbody tr[data-action="created"]').count() == shown
    assert "created." in page.text_content("#push-summary")
    screenshot(page, "dcim-push")

    page.click("#push-apply")  # again: nothing to do
    page.wait_for_selector(f"#push-summary:has-text('{total} unchanged')")
    # unchanged objects are not listed unless asked for
    assert rows.count() == 0 and page.text_content("#push-hidden") == f"({total} unchanged not listed)"
    page.check("#push-show-unchanged")
    assert page.locator('#push-report tbody tr[data-action="unchanged"]').count() == shown
    assert page.text_content("#push-hidden") == ""
    assert page.locator("#push-error").is_hidden()
    assert errors == ["Failed to load resource: the server responded with a status of 400 (Bad Request)"]  # the broken token
