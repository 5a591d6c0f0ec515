"""The rack row in a real Chromium at 1440 px: a 5-rack design drawn side by side inside its panel
(the row may scroll, the page may not), the front/rear toggle, zoom on a rack, the legend; a
500-brick design stays a page under 5,000 px tall (summary strip); the shared page draws the same row."""

import pytest

from frontend.designer import spec_to_query

from .conftest import screenshot

pytestmark = pytest.mark.browser


def _open(page, spec: dict, width: int = 1440):
    page.set_viewport_size({"width": width, "height": 900})
    page.goto(page.base_url + "/designer/?spec=" + spec_to_query(spec))
    page.wait_for_function("document.getElementById('status').textContent.includes('bricks,')", timeout=60_000)


def _overflow(page) -> dict:
    return page.evaluate(
        """() => {
        const row = document.getElementById('elevations'), panel = document.getElementById('rack-panel');
        const pr = panel.getBoundingClientRect(), rr = row.getBoundingClientRect();
        return {page: document.documentElement.scrollWidth - document.documentElement.clientWidth,
                rowInside: rr.left >= pr.left - 0.5 && rr.right <= pr.right + 0.5,
                rowScroll: row.scrollWidth - row.clientWidth, height: document.documentElement.scrollHeight,
                rackWidth: row.querySelector('svg') ? row.querySelector('svg').getBoundingClientRect().width : 0};
    }"""
    )


def test_five_racks_drawn_as_a_row_that_fits_the_panel_with_front_rear_and_zoom(page):
    _open(page, {"bricks": [{"template": "md3460-capacity", "count": 15, "disk": "nl-sas-4tb"}], "metadata": {"placement": "none"}})
    assert page.inner_text("#rack-count") == "5"
    assert page.locator("#elevations svg.rack-elevation").count() == 5
    m = _overflow(page)
    assert m["page"] <= 0, "the page scrolls sideways"
    assert m["rowInside"] and m["rowScroll"] <= 1, m  # five racks fit the panel at 1440 px
    assert m["rackWidth"] >= 90
    tops = page.eval_on_selector_all("#elevations svg.rack-elevation", "els => els.map(e => Math.round(e.getBoundingClientRect().top))")
    assert len(set(tops)) == 1, "racks side by side, not one per line"
    legend = page.inner_text("#rack-panel .rack-legend")
    for role in ("OSS server", "RAID head", "Expansion enclosure", "Switch", "Free"):
        assert role in legend
    screenshot(page, "rack-row-5-front")

    page.click("#rack-view-rear")
    page.wait_for_selector("#elevations svg[data-view='rear']")
    assert page.locator("#elevations svg[data-view='front']").count() == 0
    assert page.get_attribute("#rack-view-rear", "aria-pressed") == "true"
    page.click("#elevations .rack-button >> nth=2")
    page.wait_for_selector("#rack-panel .rack-zoom:not([hidden]) svg[data-view='rear']")
    assert "Rack 3" in page.inner_text("#rack-panel .zoom-head")
    screenshot(page, "rack-row-5-rear-zoom")
    page.click("#rack-view-front")
    page.wait_for_selector("#rack-panel .rack-zoom svg[data-view='front']")
    page.click("#rack-panel .zoom-close")
    assert page.locator("#rack-panel .rack-zoom").is_hidden()


def test_a_long_row_scrolls_inside_its_panel_not_the_page(page):
    _open(page, {"bricks": [{"template": "md3460-capacity", "count": 30, "disk": "nl-sas-4tb"}], "metadata": {"placement": "none"}})
    m = _overflow(page)
    assert m["page"] <= 0 and m["rowInside"], m
    assert m["rowScroll"] > 0  # ten racks: the row scrolls sideways


def test_a_500_brick_design_page_stays_under_5000_px(page):
    _open(page, {"bricks": [{"template": "md3460-performance", "count": 500}]})
    assert int(page.inner_text("#rack-count")) > 12
    page.wait_for_selector("#elevations svg.rack-summary")
    assert page.locator("#elevations g.device").count() == 0
    m = _overflow(page)
    assert m["height"] < 5000, m
    assert m["page"] <= 0, m
    page.click("#elevations g.rack-column >> nth=0")
    page.wait_for_selector("#rack-panel .rack-zoom:not([hidden]) svg.rack-elevation")
    screenshot(page, "rack-row-500-bricks")


@pytest.mark.parametrize("width", [1280, 1920])
def test_five_racks_fit_the_panel_at_other_widths(page, width):
    _open(page, {"bricks": [{"template": "md3460-capacity", "count": 15, "disk": "nl-sas-4tb"}], "metadata": {"placement": "none"}}, width)
    m = _overflow(page)
    assert m["page"] <= 0 and m["rowInside"] and m["rowScroll"] <= 1, m
