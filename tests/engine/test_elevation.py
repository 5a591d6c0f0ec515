"""The rack row SVG: drawn from the engine's layout dicts, no database. Roles and their colours,
the legend, HA tags, front and rear views (PDUs at the rear), the summary strip past the limit,
few text nodes, and the printed sheet's lines."""

import xml.etree.ElementTree as ET

import pytest

from planner.engine import evaluate
from planner.rendering.elevation import (
    ROLES,
    SUMMARY_LIMIT,
    RackElevationSVG,
    item_role,
    legend_html,
    rack_row,
    render_racks,
    render_summary,
    role_colour,
    sheet_rack_lines,
)

from . import factories as f

NS = {"s": "http://www.w3.org/2000/svg"}


def _item(u, height, kind, label, group="perf", **extra):
    return {
        "u": u,
        "height": height,
        "item": kind,
        "kind": kind,
        "label": label,
        "group": group,
        "power_w": 100.0,
        "weight_kg": 10.0,
        **extra,
    }


def _rack(items, index=1, units=42, **extra):
    return {"index": index, "rack": "r42", "units_total": units, "units_used": sum(it["height"] for it in items), "power_w": 5000.0,
            "weight_kg": 700.0, "items": items, **extra}  # fmt: skip


def _paired_rack():
    """Two bricks forming HA pair 'p1', a PDU pair at the rear, a switch; fields as the engine gives them."""
    items = [
        _item(1, 4, "enclosure", "PowerVault MD3460 #1", role="raid_head", pair="p1", face="front"),
        _item(5, 1, "server", "R620 OSS #1", role="oss", pair="p1", face="front"),
        _item(6, 4, "enclosure", "PowerVault MD3460 #2", role="raid_head", pair="p1", face="front"),
        _item(10, 1, "server", "R620 OSS #2", role="oss", pair="p1", face="front"),
        _item(42, 1, "switch", "Mellanox SX6036 FDR switch", group="switches", role="switch", face="rear"),
        _item(0, 0, "pdu", "0U rack PDU (feed A)", group="power", role="pdu", face="rear"),
        _item(0, 0, "pdu", "0U rack PDU (feed B)", group="power", role="pdu", face="rear"),
    ]
    return _rack(items, heat_btu_per_h=17060, pdu={"name": "0U rack PDU", "count": 2})


def _root(svg):
    return ET.fromstring(svg)


def _texts(root):
    return root.findall(".//s:text", NS)


def test_every_device_is_drawn_with_its_role_free_space_counted_and_unit_numbers_every_fifth_unit():
    ev = evaluate(f.design(f.brick(count=2), f.brick(count=1, expansions=2), placement="in_rack")).as_dict()
    [svg] = render_racks(ev["racks"])
    root = _root(svg)
    devices = root.findall(".//s:g[@class='device']", NS)
    assert len(devices) == len([it for it in ev["racks"][0]["items"] if it["height"] > 0])
    roles = {g.get("data-role") for g in devices}
    assert {"oss", "raid_head", "expansion", "switch"} <= roles
    labels = [t.text for t in root.findall(".//s:g[@class='device']/s:text[@class='label']", NS)]
    assert "Head 1" in labels and "OSS 1" in labels and "Exp 3.1" in labels
    assert "Head #1" in svg  # the full label is the tooltip
    free = sum(int(g.get("data-units")) for g in root.findall(".//s:g[@class='free-run']", NS))
    assert free == 42 - ev["racks"][0]["units_used"]
    assert _unit_numbers(root) == ["1", "5", "10", "15", "20", "25", "30", "35", "40"]
    [run] = root.findall(".//s:text[@class='unit']", NS)  # one text run for all the numbers
    assert max(float(x) for x in run.get("x").split()) < RackElevationSVG.MARGIN + RackElevationSVG.RAIL_WIDTH  # left rail


def _unit_numbers(root) -> list[str]:
    """The unit numbers as a reader sees them: the digits of the one run, grouped by baseline,
    bottom (U1) first."""
    numbers: dict[float, str] = {}
    for run in root.findall(".//s:text[@class='unit']", NS):
        for char, y in zip(run.text, run.get("y").split(), strict=True):
            numbers[float(y)] = numbers.get(float(y), "") + char
    return [numbers[y] for y in sorted(numbers, reverse=True)]


def test_roles_come_from_the_engine_or_from_kind_and_group_and_colour_devices_alike_across_racks():
    assert item_role({"kind": "server", "group": "perf"}) == "oss"
    assert item_role({"kind": "server", "group": "metadata"}) == "mds"
    assert item_role({"kind": "enclosure", "group": "metadata"}) == "metadata"
    assert item_role({"kind": "enclosure", "group": "x", "label": "QCT JB4602 60-bay JBOD #1"}) == "jbod"
    assert item_role({"kind": "enclosure", "group": "x", "label": "EqualLogic PS6500 #1"}) == "san_array"
    assert item_role({"kind": "enclosure", "group": "x", "label": "MD3460 #1"}) == "raid_head"
    assert item_role({"kind": "expansion", "group": "x"}) == "expansion"
    assert item_role({"kind": "switch", "group": "switches"}) == "switch"
    assert item_role({"kind": "pdu", "group": "power", "height": 0}) == "pdu"
    assert item_role({"kind": "enclosure", "role": "jbod"}) == "jbod"  # the engine's role wins
    assert role_colour("mgs") == role_colour("mds") and role_colour("oss") != role_colour("raid_head")
    assert len({colour for _, colour, _ in ROLES.values()}) == len(ROLES)

    ev = evaluate(f.design(f.brick(count=12))).as_dict()
    svgs = render_racks(ev["racks"])
    assert len(svgs) == 2
    fills: dict[str, set] = {}
    for svg in svgs:
        for g in _root(svg).findall(".//s:g[@class='device']", NS):
            fills.setdefault(g.get("data-role"), set()).add(g.find("s:rect", NS).get("fill"))
    assert all(len(v) == 1 for v in fills.values()) and fills["oss"] != fills["raid_head"]


def test_legend_lists_the_roles_present_free_space_and_ha_pairs():
    legend = legend_html([_paired_rack()])
    for text in ("OSS server", "RAID head", "Switch", "PDU", "Free (blanking panel)", "HA pair"):
        assert text in legend
    assert "Expansion enclosure" not in legend and "JBOD" not in legend
    assert ROLES["oss"][1] in legend
    plain = legend_html([_rack([_item(1, 1, "server", "OSS #1")])])
    assert "HA pair" not in plain and "OSS server" in plain


def test_ha_partners_carry_the_same_tag_and_pairs_are_numbered_along_the_row():
    racks = [
        _paired_rack(),
        _rack(
            [_item(1, 1, "server", "R620 OSS #3", role="oss", pair="p2"), _item(2, 1, "server", "R620 OSS #4", role="oss", pair="p2")],
            index=2,
        ),
    ]
    first, second = (_root(svg) for svg in render_racks(racks))
    tags = [t.text for t in first.findall(".//s:text[@class='tag']", NS)]
    assert tags == ["HA 1", "HA 1"]  # on both OSS servers, not on the heads (ids that are not "HA <n>" are numbered)
    assert [t.text for t in second.findall(".//s:text[@class='tag']", NS)] == ["HA 2", "HA 2"]
    unpaired = _root(RackElevationSVG(_rack([_item(1, 1, "server", "OSS #1", pair=None)])).render())
    assert not unpaired.findall(".//s:text[@class='tag']", NS)


def test_rear_view_shows_the_pdus_and_rear_mounted_devices_front_view_does_not():
    rack = _paired_rack()
    front = _root(RackElevationSVG(rack, view="front").render())
    rear = _root(RackElevationSVG(rack, view="rear").render())
    assert not front.findall(".//s:g[@data-role='pdu']", NS)
    pdus = rear.findall(".//s:g[@data-role='pdu']", NS)
    assert [g.find("s:text", NS).text for g in pdus] == ["PDU A", "PDU B"]
    switch_front = front.find(".//s:g[@data-role='switch']", NS)
    assert switch_front.get("data-face") == "rear" and switch_front.find("s:text", NS) is None  # behind: outline only
    assert rear.find(".//s:g[@data-role='switch']/s:text", NS).text == "IB switch"
    assert rear.get("data-view") == "rear" and "rear" in rear.find("s:text[@class='title']", NS).text
    assert "17,060 BTU/h" in [t.text for t in rear.findall(".//s:text[@class='caption']", NS)]
    assert "2 x 0U rack PDU" in rear.get("aria-label")
    with pytest.raises(ValueError):
        RackElevationSVG(rack, view="side")


def test_missing_optional_fields_are_absent_not_errors():
    rack = {"units_total": 4, "items": [{"u": 1, "height": 1, "item": "a", "kind": "server", "label": "bottom", "group": "g"}]}
    root = _root(RackElevationSVG(rack).render())
    assert root.find(".//s:g[@class='device']", NS).get("data-role") == "oss"
    assert not root.findall(".//s:text[@class='caption']", NS)


def test_summary_strip_replaces_the_row_above_the_limit_with_counts_per_role():
    rack = _paired_rack()
    racks = [dict(rack, index=k + 1) for k in range(SUMMARY_LIMIT + 1)]
    assert rack_row(racks[:SUMMARY_LIMIT])["summary"] == ""
    row = rack_row(racks)
    root = _root(row["summary"])
    columns = root.findall(".//s:g[@class='rack-column']", NS)
    assert len(columns) == SUMMARY_LIMIT + 1
    assert not root.findall(".//s:g[@class='device']", NS)
    counts = {t.text for t in columns[0].findall("s:text[@class='count']", NS)}
    assert "2" in counts  # two heads (8 U), two OSS
    assert {seg.get("data-role") for seg in columns[0].findall("s:rect[@class='segment']", NS)} == {"raid_head", "oss", "switch"}
    assert len(row["front"]) == len(row["rear"]) == SUMMARY_LIMIT + 1  # zoom still has each rack


def test_text_nodes_stay_few_even_for_a_full_rack_and_a_500_brick_row():
    items = [_item(u, 1, "server", f"R620 OSS #{u}", role="oss", pair=f"p{(u + 1) // 2}") for u in range(1, 43)]
    root = _root(RackElevationSVG(_rack(items)).render())
    # 42 labels + 42 tags + title + two caption lines + one run of unit numbers; the first drawing
    # had 84 unit numbers alone, the next 9
    assert len(_texts(root)) <= 42 * 2 + 4
    empty = _root(RackElevationSVG(_rack([])).render())
    assert len(_texts(empty)) <= 4
    big = [dict(_paired_rack(), index=k + 1) for k in range(63)]
    summary = _root(render_summary(big))
    assert len(_texts(summary)) <= 63 * 5
    assert float(summary.get("height")) < 1000  # 63 racks in 560 px: a few lines, not 63 tall racks


def test_labels_are_escaped():
    rack = {"units_total": 2, "items": [{"u": 1, "height": 1, "item": "x", "kind": "server", "label": "<script>&", "group": "g"}]}
    svg = RackElevationSVG(rack).render()
    assert "<script>" not in svg and "&lt;script&gt;&amp;" in svg
    ET.fromstring(svg)


def test_u1_is_at_the_bottom():
    rack = _rack([_item(1, 1, "server", "bottom"), _item(4, 1, "switch", "top", group="switches")], units=4)
    root = _root(RackElevationSVG(rack).render())
    ys = {g.get("data-u"): float(g.find("s:rect", NS).get("y")) for g in root.findall(".//s:g[@class='device']", NS)}
    assert ys["4"] < ys["1"]


def test_the_sheet_pairs_front_and_rear_for_few_racks_and_fills_lines_for_many():
    few = sheet_rack_lines([_paired_rack(), dict(_paired_rack(), index=2)])
    assert len(few["lines"]) == 1 and [alt for _, alt in few["lines"][0]["drawings"]] == [
        "Rack 1, front",
        "Rack 1, rear",
        "Rack 2, front",
        "Rack 2, rear",
    ]
    assert few["width_mm"] <= 40 and few["summary"] == ""
    many = sheet_rack_lines([dict(_paired_rack(), index=k + 1) for k in range(15)])
    sizes = [len(line["drawings"]) for line in many["lines"]]
    assert sizes == [7, 7, 1, 7, 7, 1]
    assert many["lines"][0]["title"].startswith("Front") and many["lines"][3]["title"].startswith("Rear")
    assert 7 * many["width_mm"] + 6 * 3 <= 176 + 0.1
    assert many["summary"].startswith("<svg")


def test_the_engines_own_ha_tags_are_kept():
    rack = _rack([_item(1, 1, "server", "OSS #1", role="oss", pair="HA 12"), _item(2, 1, "server", "OSS #2", role="oss", pair="HA 12")])
    root = _root(render_racks([rack])[0])
    assert [t.text for t in root.findall(".//s:text[@class='tag']", NS)] == ["HA 12", "HA 12"]


def test_printed_drawings_leave_out_tooltips_and_captions_and_keep_characters_few():
    """WeasyPrint lays out each character of SVG text on its own: a printed rack (front and rear)
    labels each device once (on the face it is mounted on) and stays under 200 characters of text;
    the sheet's table gives power, weight, heat."""
    ev = evaluate(f.design(f.brick(count=3, expansions=2), placement="none")).as_dict()
    [rack] = ev["racks"]
    printed = [_root(RackElevationSVG(rack, view=view, compact=True).render()) for view in ("front", "rear")]
    screen = [_root(RackElevationSVG(rack, view=view).render()) for view in ("front", "rear")]
    chars = sum(len(t.text or "") for root in printed for t in _texts(root))
    nodes = sum(len(_texts(root)) for root in printed)
    assert chars < 200 and nodes < 40, (chars, nodes)
    for root in printed:
        assert not root.findall(".//s:title", NS)[1:] and not root.findall(".//s:text[@class='caption']", NS)
        assert _unit_numbers(root) == ["1", "5", "10", "15", "20", "25", "30", "35", "40"]
    for root in screen:  # the pages keep tooltips and captions
        assert root.findall(".//s:g/s:title", NS) and root.findall(".//s:text[@class='caption']", NS)
    # every label of the page's front view is on the printed front view; the printed rear view
    # labels only what is mounted at the rear and the PDUs
    front_labels = [t.text for t in printed[0].findall(".//s:text[@class='label']", NS)]
    assert front_labels == [t.text for t in screen[0].findall(".//s:text[@class='label']", NS)] and "Head 1" in front_labels
    rear_mounted = [it for it in rack["items"] if it.get("face") == "rear" and it["height"] > 0]
    assert len(printed[1].findall(".//s:text[@class='label']", NS)) == len(rear_mounted)
    assert [t.text for t in printed[1].findall(".//s:text[@class='pdu-label']", NS)] == [
        t.text for t in screen[1].findall(".//s:text[@class='pdu-label']", NS)
    ]
    rear_run = printed[1].find(".//s:text[@class='unit']", NS)
    digit = RackElevationSVG.UNIT_FONT * RackElevationSVG.DIGIT_WIDTH
    assert max(float(x) for x in rear_run.get("x").split()) + digit <= RackElevationSVG.MARGIN + RackElevationSVG.RAIL_WIDTH - 5 + 0.01
    lines = sheet_rack_lines(ev["racks"])
    assert all("<title>" not in svg.split("</title>", 1)[1] for line in lines["lines"] for svg, _ in line["drawings"])


def _printed_nodes(rack) -> tuple[int, int]:
    """(elements other than text, text elements) of a rack's printed front and rear drawings."""
    roots = [_root(RackElevationSVG(rack, view=view, compact=True).render()) for view in ("front", "rear")]
    texts = sum(len(_texts(root)) for root in roots)
    return sum(len(list(root.iter())) for root in roots) - texts, texts


def test_printed_drawings_merge_shapes_so_nodes_per_rack_do_not_grow_with_devices():
    """The sheet's cost per rack is WeasyPrint drawing SVG nodes and text characters: in a printed
    drawing, the rectangles of one look are one <path>, and the rear view carries no labels of
    front-mounted devices. A full rack of 42 paired servers and a rack with 2 devices draw the
    same number of shapes; text is one label and one HA tag per device, once."""
    full = _rack(
        [_item(u, 1, "server", f"R620 OSS #{u}", role="oss", pair=f"p{(u + 1) // 2}", face="front") for u in range(1, 43)]
        + [_item(0, 0, "pdu", "0U rack PDU (feed A)", group="power", role="pdu", face="rear")]
    )
    few = _rack(
        [_item(1, 1, "server", "R620 OSS #1", role="oss", face="front"), _item(10, 1, "server", "R620 OSS #2", role="oss", face="front")]
    )
    shapes_full, texts_full = _printed_nodes(full)
    shapes_few, _ = _printed_nodes(few)
    assert shapes_full <= 20 and shapes_few <= 20, (shapes_full, shapes_few)  # was 261 for the full rack
    assert texts_full == 2 * 2 + 42 * 2 + 1, texts_full  # titles and unit runs, label + tag per server (front), the PDU
    paired = _paired_rack()
    assert _printed_nodes(paired)[0] <= 20
    root = _root(RackElevationSVG(paired, view="rear", compact=True).render())
    assert [t.text for t in root.findall(".//s:text[@class='label']", NS)] == ["IB switch"]  # the rear-mounted switch
    shapes = root.findall(".//s:path[@class='shapes']", NS)
    assert sum(p.get("d").count("z") for p in shapes) == 4 + 1 + 2 + 1  # heads/servers, switch, PDUs, one free run
    screen = _root(RackElevationSVG(paired, view="rear").render())
    assert len(screen.findall(".//s:g[@data-role]", NS)) == 7  # the page keeps a group per device (tooltips, clicks)
