"""The rack elevation SVG: drawn from the engine's layout, no database."""

import xml.etree.ElementTree as ET

from planner.engine import evaluate
from planner.rendering.elevation import RackElevationSVG, render_racks

from . import factories as f

NS = {"s": "http://www.w3.org/2000/svg"}


def test_elevation_draws_every_device_labelled_with_free_space_and_unit_numbers():
    ev = evaluate(f.design(f.brick(count=2), f.brick(count=1, expansions=2), placement="in_rack")).as_dict()
    [svg] = render_racks(ev["racks"])
    root = ET.fromstring(svg)
    devices = root.findall(".//s:g[@class='device']", NS)
    assert len(devices) == len(ev["racks"][0]["items"])
    labels = [g.find("s:text", NS).text for g in devices]
    assert "Head #1" in labels and any("Switch" in label for label in labels)
    free = root.findall(".//s:rect[@class='free']", NS)
    assert len(free) == 42 - ev["racks"][0]["units_used"]
    units = [t.text for t in root.findall(".//s:text[@class='unit']", NS)]
    assert units.count("1") == 2 and units.count("42") == 2


def test_elevation_colours_devices_by_brick_group_consistently_across_racks():
    ev = evaluate(f.design(f.brick(count=12))).as_dict()
    svgs = render_racks(ev["racks"])
    assert len(svgs) == 2
    fills = set()
    for svg in svgs:
        root = ET.fromstring(svg)
        for g in root.findall(".//s:g[@data-group='perf']", NS):
            fills.add(g.find("s:rect", NS).get("fill"))
    assert len(fills) == 1


def test_elevation_puts_u1_at_the_bottom():
    rack = {
        "units_total": 4,
        "index": 1,
        "items": [
            {"u": 1, "height": 1, "item": "a", "kind": "server", "label": "bottom", "group": "g"},
            {"u": 4, "height": 1, "item": "b", "kind": "switch", "label": "top", "group": "switches"},
        ],
    }
    root = ET.fromstring(RackElevationSVG(rack).render())
    ys = {g.find("s:text", NS).text: float(g.find("s:rect", NS).get("y")) for g in root.findall(".//s:g[@class='device']", NS)}
    assert ys["top"] < ys["bottom"]


def test_elevation_escapes_labels():
    rack = {"units_total": 2, "items": [{"u": 1, "height": 1, "item": "x", "kind": "server", "label": "<script>&", "group": "g"}]}
    svg = RackElevationSVG(rack).render()
    assert "<script>" not in svg and "&lt;script&gt;&amp;" in svg
    ET.fromstring(svg)
