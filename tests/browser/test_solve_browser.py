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
    page.wait_for_selector("#frontier-chart .main-svg")
    screenshot(page, "solve-rack-a")
    first.get_by_role("link", name="Open in designer").click()
    page.wait_for_url("**/designer/?spec=*")
    try:
        _wait_for_value(page, "#read-gbps", "9.0")
    except Exception:
        screenshot(page, "solve-open-failed")
        raise
    assert page.input_value("#b0-count") == "2"
