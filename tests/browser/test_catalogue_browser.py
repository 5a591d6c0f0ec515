"""The catalogue page in a real Chromium: bricks and their key figures are visible."""

import pytest

from .conftest import screenshot

pytestmark = pytest.mark.browser


def test_catalogue_page_shows_bricks_and_figures(page):
    page.goto(page.base_url + "/catalogue/")
    row = page.locator('tr[data-slug="md3460-performance"]')
    row.wait_for()
    text = row.inner_text()
    assert "MD3460 performance brick" in text
    assert "4.50" in text and "174.6" in text and "RAID controllers" in text
    assert page.locator('tr[data-slug="md3460-capacity"]').inner_text().count("4.50") == 2
    page.locator('tr[data-slug="nl-sas-4tb"] summary').click()
    assert "175 MB/s" in page.locator('tr[data-slug="nl-sas-4tb"] details').inner_text()
    assert screenshot(page, "catalogue").stat().st_size > 10_000


def test_home_page_leads_to_the_catalogue(page):
    page.goto(page.base_url + "/")
    page.get_by_role("link", name="Hardware catalogue").click()
    page.wait_for_url("**/catalogue/")
    assert page.get_by_role("heading", name="Hardware catalogue").is_visible()
    screenshot(page, "home-to-catalogue")
