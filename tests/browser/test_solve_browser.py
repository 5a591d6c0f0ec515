"""Design to target in Chromium: ask for 1 PiB and 9 GB/s, get study rack A, open it in the designer."""

import pytest

from .conftest import screenshot
from .test_designer_browser import _wait_for_value

pytestmark = pytest.mark.browser


def test_solve_for_rack_a_and_open_it(page):
    page.goto(page.base_url + "/solve/")
    page.fill("#usable_pib", "1")
    page.fill("#read_gbps", "9")
    page.select_option("#placement", "in_rack")
    page.fill("#max_bricks", "60")
    page.click("#solve-form button[type=submit]")
    page.wait_for_selector("#solve-results")
    first = page.locator("#solve-results tbody tr").first
    assert first.get_attribute("data-template") == "md3460-capacity" and first.get_attribute("data-count") == "2"
    assert "MD3460 capacity brick" in first.inner_text() and "md3460-capacity" not in first.inner_text()
    page.wait_for_selector("#frontier-chart .main-svg")
    assert page.locator("#frontier-chart .scatterlayer .trace .js-line").count() >= 1  # the frontier drawn as a line
    screenshot(page, "solve-rack-a")
    first.get_by_role("link", name="Open in designer").click()
    page.wait_for_url("**/designer/?spec=*")
    try:
        _wait_for_value(page, "#read-gbps", "9.0")
    except Exception:
        screenshot(page, "solve-open-failed")
        raise
    assert page.input_value("#b0-count") == "2"


def test_solve_with_an_impossible_target_names_the_constraint_and_the_best_reachable(page):
    page.goto(page.base_url + "/solve/")
    assert page.locator("#allowed-templates legend").inner_text() == "Brick templates"
    assert page.locator("#allowed-disks legend").inner_text() == "Disks"
    page.fill("#usable_pib", "50")
    page.fill("#max_racks", "2")
    page.click("#solve-form button[type=submit]")
    page.wait_for_selector("#solve-unmet")
    capacity = page.locator('#solve-unmet .unmet[data-constraint="usable_pib"]')
    text = capacity.inner_text()
    assert "The usable capacity target (at least 50.00 PiB) cannot be met within 2 racks" in text
    assert "Best reachable on this axis" in text and "MD3460" in text
    assert "each target can be met on its own" not in page.inner_text("main").lower()
    assert "write" not in page.inner_text("#solve-summary")
    screenshot(page, "solve-impossible")
    capacity.get_by_role("link", name="Open in designer").click()
    page.wait_for_url("**/designer/?spec=*")
    page.wait_for_function("document.getElementById('status').textContent.includes('bricks,')")
    assert float(page.inner_text("#rack-count")) <= 2
