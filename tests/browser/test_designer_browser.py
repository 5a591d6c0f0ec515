"""The designer and compare pages in a real Chromium, as the issue's acceptance describes:
open study example D and read its figures; build rack A from a blank design; change the disk and
see the totals move; save, reload, compare A with B and read the relative price; a conflicting
edit is shown, never lost."""

import re

import pytest

from .conftest import screenshot

pytestmark = pytest.mark.browser


def _number(page, selector) -> float:
    return float(page.inner_text(selector).replace(",", ""))


def _wait_for_figures(page, expected_status_fragment="bricks"):
    page.wait_for_function("document.getElementById('status').textContent.includes('bricks,')")


def _wait_for_value(page, selector, value):
    page.wait_for_function(f"document.querySelector('{selector}').textContent.trim() === '{value}'")


def test_open_study_example_d_and_read_its_figures(page):
    page.goto(page.base_url + "/designer/?example=study-d")
    _wait_for_value(page, "#read-gbps", "36.0")
    assert _number(page, "#write-gbps") == 36.0
    assert _number(page, "#usable-pib") == pytest.approx(1.355, abs=0.015)
    assert page.inner_text("#read-limit") == "RAID controllers"
    assert _number(page, "#rack-count") == 1
    assert page.locator("#elevations svg").count() == 1
    assert page.locator("#elevations g.device").count() == 8 * 2 + 2  # 8 heads + 8 OSS + 2 switches
    page.wait_for_selector("#stage-chart .main-svg")
    page.wait_for_selector("#cost-chart .main-svg")
    screenshot(page, "designer-example-d")


def test_build_rack_a_from_blank_then_change_the_disk(page):
    page.goto(page.base_url + "/designer/")
    page.click("#start-blank")
    page.click("#add-brick")
    page.select_option("#b0-template", "md3460-capacity")
    page.fill("#b0-count", "2")
    page.select_option("#placement", "in_rack")
    page.fill("#design-name", "Rack A by hand")
    _wait_for_value(page, "#read-gbps", "9.0")
    assert 0.98 <= _number(page, "#usable-pib") <= 1.06
    assert page.inner_text("#raw-tb") == "1,440"
    assert _number(page, "#rack-count") == 1
    screenshot(page, "designer-rack-a-built")

    page.select_option("#b0-disk", "nl-sas-6tb")
    page.wait_for_function("document.getElementById('raw-tb').textContent === '2,160'")
    assert _number(page, "#usable-pib") == pytest.approx(1.53, abs=0.03)
    assert page.inner_text("#read-gbps") == "9.0"  # the controllers still limit
    screenshot(page, "designer-rack-a-6tb")


def test_bad_input_shows_a_message_next_to_the_field(page):
    page.goto(page.base_url + "/designer/?example=study-c")
    _wait_for_value(page, "#read-gbps", "13.5")
    page.fill("#b0-count", "0")
    page.wait_for_function("document.querySelector('[data-error=\"bricks.0.count\"]').textContent.length > 0")
    assert "between 1 and 500" in page.inner_text('[data-error="bricks.0.count"]')
    page.fill("#b0-count", "3")
    page.wait_for_function("document.querySelector('[data-error=\"bricks.0.count\"]').textContent === ''")


def _sign_in(page, username="arch", password="pw-arch-123456"):
    from django.contrib.auth import get_user_model

    get_user_model().objects.create_user(username, password=password)
    page.goto(page.base_url + "/accounts/login/")
    page.fill("#id_username", username)
    page.fill("#id_password", password)
    page.click("button[type=submit]")
    page.wait_for_url(page.base_url + "/")


def test_save_reload_and_compare_a_with_b(page):
    _sign_in(page)
    page.goto(page.base_url + "/designer/?example=study-a")
    _wait_for_value(page, "#read-gbps", "9.0")
    page.fill("#design-name", "My rack A")
    page.click("#save")
    page.wait_for_function("document.getElementById('save-status').textContent.startsWith('Saved')")
    assert re.search(r"/designer/\?design=\d+$", page.url)
    page.reload()
    _wait_for_value(page, "#read-gbps", "9.0")
    assert page.input_value("#design-name") == "My rack A"
    assert page.input_value("#b0-count") == "2"
    assert "version 1" in page.inner_text("#design-meta")
    screenshot(page, "designer-saved-a")

    page.select_option("#export-format", "pdf-a4")
    page.click("#export")
    page.wait_for_selector("#export-download:not([hidden])", timeout=60_000)
    assert page.inner_text("#export-status").startswith("Ready: My-rack-A-v1-rack-sheet-a4.pdf")
    with page.expect_download() as download_info:
        page.click("#export-download")
    assert download_info.value.suggested_filename == "My-rack-A-v1-rack-sheet-a4.pdf"
    screenshot(page, "designer-exported")

    page.goto(page.base_url + "/designs/")
    assert "My rack A" in page.inner_text("table")
    screenshot(page, "designs-list")

    page.goto(page.base_url + "/compare/")
    page.get_by_label("My rack A (saved)").check()
    page.get_by_label("Study rack B: performance, metadata in the rack").check()
    page.select_option("#ref", "ex:study-b")
    page.click("#compare-form button[type=submit]")
    page.wait_for_selector("#compare-table")
    row_a = page.locator("#compare-table tbody tr", has_text="My rack A")
    assert "My rack A" in row_a.inner_text()
    relative = float(row_a.locator(".relative-price").inner_text())
    assert relative == pytest.approx(0.65, abs=0.03)
    page.wait_for_selector("#compare-chart .main-svg")
    screenshot(page, "compare-a-b")


def test_a_conflicting_edit_is_shown_and_nothing_is_lost(page):
    from planner.models import Design
    from planner.services import design_update

    _sign_in(page, "edith", "pw-edith-123456")
    page.goto(page.base_url + "/designer/?example=study-b")
    _wait_for_value(page, "#read-gbps", "27.0")
    page.click("#save")
    page.wait_for_function("document.getElementById('save-status').textContent.startsWith('Saved')")
    design = Design.objects.get(owner__username="edith")
    design_update(design=design, based_on_version=1, name="Changed in another tab")  # someone else saves first

    page.fill("#b0-count", "5")
    _wait_for_value(page, "#read-gbps", "22.5")
    page.click("#save")
    page.wait_for_selector("#conflict:not([hidden])")
    assert "version 2" in page.inner_text("#conflict-text")
    assert page.input_value("#b0-count") == "5"  # my edit is still on the page
    screenshot(page, "designer-conflict")
    page.click("#overwrite")
    page.wait_for_function("document.getElementById('save-status').textContent.startsWith('Saved: version 3')")
    design.refresh_from_db()
    assert design.version == 3 and design.spec["bricks"][0]["count"] == 5


@pytest.mark.parametrize("width", [1280, 1920])
def test_every_page_renders_at_laptop_and_projector_widths(page, width):
    _sign_in(page, f"viewer{width}", "pw-viewer-123456")
    page.set_viewport_size({"width": width, "height": 900})
    for name, path in [
        ("home", "/"),
        ("catalogue", "/catalogue/"),
        ("designer", "/designer/?example=study-e"),
        ("compare", "/compare/?d=ex:study-e&d=ex:study-f&ref=ex:study-f"),
        ("designs", "/designs/"),
        ("tokens", "/tokens/"),
    ]:
        page.goto(page.base_url + path)
        if name == "designer":
            _wait_for_value(page, "#read-gbps", "13.5")
        overflow = page.evaluate("document.documentElement.scrollWidth - document.documentElement.clientWidth")
        assert overflow <= 1, f"{name} scrolls sideways at {width}px"
        screenshot(page, f"page-{name}-{width}")


def test_copy_keeps_unsaved_edits_and_a_share_link_opens_a_page(page, browser):
    _sign_in(page, "cora", "pw-cora-123456")
    page.goto(page.base_url + "/designer/?example=study-d")
    _wait_for_value(page, "#read-gbps", "36.0")
    page.click("#save")
    page.wait_for_function("document.getElementById('save-status').textContent.startsWith('Saved')")
    page.fill("#b0-count", "5")
    _wait_for_value(page, "#read-gbps", "22.5")
    original = page.url
    page.click("#copy")
    page.wait_for_url(lambda url: url != original and "design=" in url)
    _wait_for_value(page, "#read-gbps", "22.5")  # the copy has the unsaved edit
    assert page.input_value("#design-name").startswith("Copy of")
    page.check("#share-link")
    page.click("#share-apply")
    page.wait_for_selector("#share-url a")
    link = page.get_attribute("#share-url a", "href")
    other = browser.new_context()
    viewer = other.new_page()
    viewer.goto(link)
    assert viewer.inner_text("#read-gbps") == "22.5"
    assert viewer.locator(".elevations svg").count() == 1
    viewer.click("#export")
    viewer.wait_for_selector("#export-download:not([hidden])", timeout=60_000)
    screenshot(viewer, "shared-link-page")
    other.close()


def test_the_sharing_box_opens_on_the_current_state_and_applying_it_keeps_it(page):
    """Reopening a shared design shows who can read it and its link; adding one name and applying
    keeps the others' access and the same link (before, the box opened empty and unticked, so
    applying it removed everyone and switched the link off)."""
    from django.contrib.auth import get_user_model

    for name in ("carol", "dave"):
        get_user_model().objects.create_user(name, password=f"pw-{name}-123456")
    _sign_in(page, "owen", "pw-owen-123456")
    page.goto(page.base_url + "/designer/?example=study-d")
    _wait_for_value(page, "#read-gbps", "36.0")
    page.click("#save")
    page.wait_for_function("document.getElementById('save-status').textContent.startsWith('Saved')")
    page.fill("#share-users", "carol")
    page.check("#share-link")
    page.click("#share-apply")
    page.wait_for_selector("#share-url a")
    link = page.get_attribute("#share-url a", "href")

    page.reload()
    _wait_for_value(page, "#read-gbps", "36.0")
    assert page.input_value("#share-users") == "carol"
    assert page.is_checked("#share-link")
    assert page.get_attribute("#share-url a", "href") == link
    assert "Read-only for carol" in page.inner_text("#share-url")
    screenshot(page, "designer-sharing-reopened")

    page.fill("#share-users", page.input_value("#share-users") + ", dave")
    page.click("#share-apply")
    page.wait_for_function("document.getElementById('save-status').textContent.startsWith('Sharing saved')")
    assert "carol, dave" in page.inner_text("#save-status")
    assert page.get_attribute("#share-url a", "href") == link

    # switching the link off asks first; declining keeps it
    page.uncheck("#share-link")
    page.once("dialog", lambda dialog: dialog.dismiss())
    page.click("#share-apply")
    page.wait_for_timeout(300)
    assert page.get_attribute("#share-url a", "href") == link


def test_totals_are_cleared_when_the_last_brick_line_goes(page):
    page.goto(page.base_url + "/designer/?example=study-b")
    _wait_for_value(page, "#read-gbps", "27.0")
    page.click("#brick-lines .remove")
    _wait_for_value(page, "#read-gbps", "–")
    assert page.locator("#elevations svg").count() == 0
