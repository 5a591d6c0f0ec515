"""Issue 13 in Chromium: the designer's stage chart per brick line with what a brick delivers (after
Lustre's efficiency) as a line, readable x labels and the limiting stage named; the cost chart sorted
with percentages."""

import pytest

from .conftest import screenshot
from .test_designer_browser import _wait_for_value

pytestmark = pytest.mark.browser

CLIPPED_LABELS = """(div) => {
  const svg = div.querySelector('svg.main-svg').getBoundingClientRect();
  return [...div.querySelectorAll('.xtick text')].filter((t) => {
    const r = t.getBoundingClientRect();
    return r.left < svg.left - 1 || r.right > svg.right + 1 || r.bottom > svg.bottom + 1 || r.top < svg.top - 1;
  }).map((t) => t.textContent);
}"""


def test_stage_chart_draws_the_delivered_figure_and_names_the_limit(page):
    page.goto(page.base_url + "/designer/?example=study-d")
    _wait_for_value(page, "#read-gbps", "36.0")
    page.wait_for_selector("#stage-chart-0 .main-svg")
    assert page.locator("#stage-chart .stage-line").count() == 1
    data = page.evaluate(
        "() => document.getElementById('stage-chart-0').data.map((t) => ({name: t.name, type: t.type, y: t.y, text: t.text}))"
    )
    delivered = [t for t in data if t["type"] == "scatter" and t["name"].startswith("Delivered read")]
    assert delivered and set(delivered[0]["y"]) == {4.5}  # the tuned brick of the study: 4.5 GB/s after efficiency
    read_bars = next(t for t in data if t["name"].startswith("Read limit"))
    assert "limit" in read_bars["text"]
    assert page.locator("#stage-chart-0 .xtick text", has_text="RAID").count() >= 1
    assert page.eval_on_selector("#stage-chart-0", CLIPPED_LABELS) == []
    assert "4.50 GB/s read" in page.text_content("#stage-chart-0 .gtitle")
    # the cost chart draws the server's price.by_kind as given: labels, totals and shares, largest on top
    from planner.services import design_evaluate, example_design

    by_kind = design_evaluate(spec=example_design(slug="study-d")["spec"]).as_dict()["price"]["by_kind"]
    cost = page.evaluate("() => document.getElementById('cost-chart').data[0]")
    assert cost["y"] == [k["label"] for k in by_kind] and "Rack accessories" in cost["y"]
    assert cost["x"] == [k["total"] for k in by_kind] and cost["x"] == sorted(cost["x"], reverse=True)
    assert all(t.endswith(" %") for t in cost["text"])
    assert [float(t.rstrip(" %")) for t in cost["text"]] == pytest.approx([100 * k["share"] for k in by_kind], abs=0.051)
    ticks = page.evaluate(
        "() => [...document.querySelectorAll('#cost-chart .ytick text')]"
        ".map((t) => [t.textContent, t.getBoundingClientRect().top]).sort((a, b) => a[1] - b[1]).map((t) => t[0])"
    )
    assert ticks == cost["y"]  # read top-down: the largest first
    assert page.locator("#cost-chart .ytick text", has_text="Rack accessories").count() == 1
    screenshot(page, "designer-charts-d")


def test_each_brick_line_gets_its_own_stage_chart(page):
    page.goto(page.base_url + "/designer/?example=grid-site")
    page.wait_for_selector("#stage-chart-1 .main-svg")
    assert page.locator("#stage-chart .stage-line").count() == 2
    for i in (0, 1):
        assert page.eval_on_selector(f"#stage-chart-{i}", CLIPPED_LABELS) == []
    page.locator("#stage-chart").screenshot(path=str(screenshot(page, "designer-charts-grid").with_name("designer-stage-charts-grid.png")))
