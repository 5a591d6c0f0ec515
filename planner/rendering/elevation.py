"""Rack elevations as SVG: every rack of a design side by side (a row), front or rear view.

Modelled on the idea of NetBox's rack elevation renderer: small methods named by what they draw,
`render()` calling them in order. It takes rack layouts as the evaluation gives them (dicts with
`units_total` and `items` of u/height/item/kind/label/group, and when the engine provides them
role/pair/face), not querysets, so it is testable without a database and the same drawing serves
the designer, the shared page and the PDF rack sheet.

- `render_racks(racks, view=, compact=)`: one SVG per rack, drawn narrow enough that a row of five
  fits a 550 px panel with readable labels (short labels such as "OSS 3a"; the full text is the
  tooltip). `compact=True` (the printed sheet) leaves out what paper cannot use or the sheet's table
  already gives: tooltips and the power/weight/heat caption; it draws the rectangles of one look
  (free space, devices of one role, HA tag boxes, PDUs) as one `<path>` instead of a group per
  device, and labels each device once, on the view of the face it is mounted on (the rear view
  labels rear-mounted devices and PDUs; front-mounted devices show there as shapes in their colour).

Text is what costs in the PDF: WeasyPrint lays out and paints every character of an SVG `<text>`
on its own (about half a millisecond each on a loaded 2-core machine; glyph outlines as paths cost
more, HTML text over the image as much), so the drawing keeps characters few: unit numbers are one `<text>` run per rack with a position per
digit, labels are drawn only where they fit, fonts are attributes (no `<style>` to match per node).
- `render_summary(racks, width=)`: past `SUMMARY_LIMIT` racks, one SVG with a compact column per
  rack (units per role, stacked, with counts) wrapped to the width, so 500 bricks stay one screen.
- `legend_html(racks)`: the colour of every role present, for under the row.
- `rack_row(racks)`: all of that for a page (front and rear lists, summary, legend).
"""

from __future__ import annotations

import re
from xml.sax.saxutils import escape

# role -> (legend text, colour, short label)
ROLES: dict[str, tuple[str, str, str]] = {
    "oss": ("OSS server", "#2f6db5", "OSS"),
    "internal": ("OSS with internal disks", "#3f97bd", "OSS"),
    "mds": ("MDS/MGS server", "#6a4a9c", "MDS"),
    "raid_head": ("RAID head", "#d9822b", "Head"),
    "expansion": ("Expansion enclosure", "#f3c27d", "Exp"),
    "jbod": ("JBOD", "#8f6138", "JBOD"),
    "san_array": ("SAN array", "#c0504d", "Array"),
    "metadata": ("Metadata storage (MDT)", "#b49ad6", "MDT"),
    "switch": ("Switch", "#4d5560", "Switch"),
    "pdu": ("PDU (rear, 0U)", "#2e8b57", "PDU"),
    "other": ("Other", "#9aa3b0", ""),
}
ALIASES = {"mgs": "mds", "management": "mds"}  # drawn and listed as MDS/MGS
SHORT = {"mgs": "MGS", "management": "Mgmt"}
SERVER_ROLES = {"oss", "internal", "mds", "mgs", "management"}
FREE = ("Free (blanking panel)", "#ffffff")
LABELLED_ONCE = "each device is labelled on the face it is mounted on"  # printed drawings (compact)
SUMMARY_LIMIT = 12  # more racks than this: the row becomes a summary strip
FONT_FAMILY = "system-ui, 'DejaVu Sans', sans-serif"  # DejaVu Sans: the font the PDF sheet is set in


def item_role(item: dict) -> str:
    """The item's role: the engine's when it gives one, else derived from kind, group and label."""
    role = item.get("role")
    if role:
        return str(role)
    kind, group, label = item.get("kind", ""), item.get("group", ""), str(item.get("label", "")).lower()
    if kind == "pdu" or (int(item.get("height", 1) or 0) == 0 and "pdu" in label):
        return "pdu"
    if kind == "switch" or group == "switches":
        return "switch"
    if group == "metadata":
        return "mds" if kind == "server" else "metadata"
    if kind == "server":
        return "oss"
    if kind == "expansion":
        return "expansion"
    if kind == "enclosure":
        if "jbod" in label:
            return "jbod"
        if "array" in label or "equallogic" in label or "iscsi" in label:
            return "san_array"
        return "raid_head"
    return kind if kind in ROLES else "other"


def role_colour(role: str) -> str:
    return ROLES.get(ALIASES.get(role, role), ROLES["other"])[1]


def legend_key(role: str) -> str:
    key = ALIASES.get(role, role)
    return key if key in ROLES else "other"


def _text_colour(fill: str) -> str:
    r, g, b = (int(fill[i : i + 2], 16) for i in (1, 3, 5))
    return "#1d2430" if 0.299 * r + 0.587 * g + 0.114 * b > 150 else "#ffffff"


def short_label(item: dict, role: str) -> str:
    """A label that fits a narrow rack: the role and the brick's number ("OSS 3a", "Exp 3.1")."""
    label = str(item.get("label", ""))
    short = SHORT.get(role) or ROLES.get(legend_key(role), ROLES["other"])[2]
    low = label.lower()
    if "standby" in low:
        return f"Standby {short}".strip()
    if role == "switch":
        if "management" in low:
            return "Mgmt switch"
        if any(word in low for word in ("infiniband", "fdr", "edr", "hdr", "ib ")):
            return "IB switch"
        return "Eth switch" if "ethernet" in low else "Switch"
    feed = re.search(r"\(feed (\w+)\)", label)
    if role == "pdu" and feed:
        return f"PDU {feed.group(1)}"
    number = re.search(r"#(\S+)", label) or re.search(r"\s(\d+)$", label)
    if short and number:
        return f"{short} {number.group(1)}"
    return short or label


def pair_numbers(racks: list[dict]) -> dict[str, str]:
    """HA pair id -> its tag: the engine's own when it reads "HA <n>", else HA 1, HA 2, ... in the
    order the pairs appear along the row."""
    ids: list[str] = []
    for rack in racks:
        for item in sorted(rack.get("items", []), key=lambda it: it.get("u", 0)):
            pair = item.get("pair")
            if pair not in (None, "") and str(pair) not in ids:
                ids.append(str(pair))
    if all(re.fullmatch(r"HA \d{1,5}", pair) for pair in ids):
        return {pair: pair for pair in ids}
    return {pair: f"HA {k + 1}" for k, pair in enumerate(ids)}


def _fmt(value: float, digits: int = 0) -> str:
    return f"{value:,.{digits}f}"


class RackElevationSVG:
    """Draws one rack, front or rear: title, frame, unit scale, free space, devices, HA tags,
    PDUs (rear), and a caption with power, weight and heat."""

    UNIT_HEIGHT = 10
    RAIL_WIDTH = 13
    DEVICE_WIDTH = 64
    MARGIN = 2
    TITLE_HEIGHT = 14
    CAPTION_HEIGHT = 22
    FONT = 7.5  # device labels; what fits one unit
    UNIT_FONT = 6.5
    CHAR_WIDTH = 0.58  # of the font size, for "does the label fit"
    DIGIT_WIDTH = 0.636  # advance of a digit in DejaVu Sans (tabular figures), of the font size

    def __init__(
        self,
        rack: dict,
        *,
        view: str = "front",
        title: str | None = None,
        pairs: dict[str, str] | None = None,
        compact: bool = False,
    ):
        if view not in ("front", "rear"):
            raise ValueError("view is 'front' or 'rear'")
        self.rack = rack
        self.view = view
        self.compact = compact
        self.units = int(rack["units_total"])
        items = sorted(rack.get("items", []), key=lambda it: it.get("u", 0))
        self.pdus = [it for it in items if item_role(it) == "pdu" or int(it.get("height", 0) or 0) == 0]
        self.mounted = [it for it in items if it not in self.pdus]
        self.title = title or f"Rack {rack.get('index', '')}".strip()
        self.pairs = pairs if pairs is not None else pair_numbers([rack])
        # HA tags go on the servers of a pair (the partners); on every device of a pair without servers here
        self.paired_servers = {
            str(it.get("pair")) for it in self.mounted if it.get("pair") not in (None, "") and item_role(it) in SERVER_ROLES
        }
        self.width = self.MARGIN * 2 + self.RAIL_WIDTH * 2 + self.DEVICE_WIDTH
        self.top = self.TITLE_HEIGHT + self.MARGIN
        self.height = self.top + self.units * self.UNIT_HEIGHT + self.MARGIN + (self.MARGIN if compact else self.CAPTION_HEIGHT)
        self.parts: list[str] = []
        self.shapes: dict[str, list[str]] = {}  # compact: path data per look (attributes), drawn as one <path> each
        self.texts: list[str] = []  # compact: labels and tags, drawn over the merged shapes

    # compact drawing: merged shapes, texts on top ----------------------------------------------
    def _rect(self, look: str, x: float, y: float, w: float, h: float, element: str) -> str:
        """`element` for the page; in a compact drawing the rectangle joins the one path of its look."""
        if not self.compact:
            return element
        self.shapes.setdefault(look, []).append(f"M{x:g} {y:g}h{w:g}v{h:g}h{-w:g}z")
        return ""

    def _text(self, element: str) -> str:
        """`element` (a <text>) for the page; in a compact drawing it goes on top of the merged shapes."""
        if not self.compact:
            return element
        self.texts.append(element)
        return ""

    def merged(self) -> str:
        """A compact drawing's shapes, one <path> per look, then its texts on top."""
        return "".join(f'<path class="shapes" {look} d="{"".join(d)}"/>' for look, d in self.shapes.items()) + "".join(self.texts)

    # geometry ------------------------------------------------------------------------------
    def _y(self, u: int, height: int = 1) -> float:
        """Top edge of a device whose lowest unit is `u` (U1 at the bottom)."""
        return self.top + (self.units - (u + height - 1)) * self.UNIT_HEIGHT

    def _fits(self, text: str, width: float, font: float) -> bool:
        return len(text) * font * self.CHAR_WIDTH <= width

    def _shown(self, item: dict) -> str:
        """'full' when this face of the device is seen, 'behind' when it is mounted on the other face."""
        face = item.get("face") or "front"
        if self.view == "front":
            return "full" if face == "front" else "behind"
        return "full"  # from the rear: the rear faces of full-depth devices and what is mounted at the back

    # drawing steps ---------------------------------------------------------------------------
    def draw_title(self) -> None:
        view = " · rear" if self.view == "rear" else ""
        self.parts.append(
            f'<text class="title" x="{self.width / 2}" y="10" text-anchor="middle" font-size="9" font-weight="600" '
            f'fill="#1d2430">{escape(self.title + view)}</text>'
        )

    def draw_frame(self) -> None:
        h = self.units * self.UNIT_HEIGHT
        self.parts.append(
            f'<rect class="frame" x="{self.MARGIN}" y="{self.top}" width="{self.width - 2 * self.MARGIN}" height="{h}" '
            f'fill="#3a4150" stroke="#1d2430" stroke-width="1.5"/>'
        )

    def unit_positions(self) -> list[tuple[int, float, float]]:
        """(unit, x where its number starts, baseline y) for U1 and every fifth unit, on the left rail:
        centred on the rail from the front, right-aligned clear of the PDU channel from the rear."""
        digit = self.UNIT_FONT * self.DIGIT_WIDTH
        positions = []
        for u in [1, *range(5, self.units + 1, 5)]:
            width = len(str(u)) * digit
            if self.view == "rear":
                x = self.MARGIN + self.RAIL_WIDTH - 5 - width
            else:
                x = self.MARGIN + self.RAIL_WIDTH / 2 - 0.5 - width / 2
            positions.append((u, x, self._y(u) + self.UNIT_HEIGHT * 0.75))
        return positions

    def draw_unit_numbers(self) -> None:
        """Tick marks for every unit (one path per rail) and numbers at U1 and every fifth unit (left
        rail), all the numbers one <text> run with a position for each digit."""
        x0, x1 = self.MARGIN, self.MARGIN + self.RAIL_WIDTH + self.DEVICE_WIDTH
        h, u = self.units * self.UNIT_HEIGHT, self.UNIT_HEIGHT
        self.parts.append(  # a 3-wide vertical stroke dashed every unit: one tick per unit boundary
            f'<path class="ticks" d="M{x0 + self.RAIL_WIDTH - 1.5} {self.top}v{h}M{x1 + 1.5} {self.top}v{h}" stroke="#8d96a6" '
            f'stroke-width="3" stroke-dasharray="0.5 {u - 0.5}"/>'
        )
        digit = self.UNIT_FONT * self.DIGIT_WIDTH
        chars, xs, ys = [], [], []
        for u, x, y in self.unit_positions():
            for k, char in enumerate(str(u)):
                chars.append(char)
                xs.append(f"{x + k * digit:.2f}")
                ys.append(f"{y:g}")
        self.parts.append(
            f'<text class="unit" aria-hidden="true" x="{" ".join(xs)}" y="{" ".join(ys)}" font-size="{self.UNIT_FONT}" '
            f'fill="#dfe3ea">{"".join(chars)}</text>'
        )

    def draw_free_space(self) -> None:
        """Each run of free units as one rect (blanking panels), a faint line between units."""
        used: set[int] = set()
        for item in self.mounted:
            used.update(range(item["u"], item["u"] + max(int(item["height"]), 1)))
        x = self.MARGIN + self.RAIL_WIDTH
        u = 1
        while u <= self.units:
            if u in used:
                u += 1
                continue
            start = u
            while u <= self.units and u not in used:
                u += 1
            n = u - start
            y = self._y(start, n)
            lines = "".join(f"M{x + 2} {y + k * self.UNIT_HEIGHT}h{self.DEVICE_WIDTH - 4}" for k in range(1, n))
            if self.compact:
                self._rect(f'fill="{FREE[1]}" stroke="#c3c9d3" stroke-width="0.5"', x, y, self.DEVICE_WIDTH, n * self.UNIT_HEIGHT, "")
                if lines:
                    self.shapes.setdefault('fill="none" stroke="#e3e7ee" stroke-width="0.5"', []).append(lines)
                continue
            self.parts.append(
                f'<g class="free-run" data-u="{start}" data-units="{n}"><rect class="free" x="{x}" y="{y}" '
                f'width="{self.DEVICE_WIDTH}" height="{n * self.UNIT_HEIGHT}" fill="{FREE[1]}" stroke="#c3c9d3" stroke-width="0.5"/>'
                + (f'<path d="{lines}" stroke="#e3e7ee" stroke-width="0.5"/>' if lines else "")
                + "</g>"
            )

    def draw_devices(self) -> None:
        x = self.MARGIN + self.RAIL_WIDTH
        for item in self.mounted:
            role = item_role(item)
            height = max(int(item["height"]), 1)
            y = self._y(item["u"], height)
            h = height * self.UNIT_HEIGHT
            colour = role_colour(role)
            shown = self._shown(item)
            full = str(item.get("label", ""))
            u_range = f"U{item['u']}" if height == 1 else f"U{item['u']}-{item['u'] + height - 1}"
            face = item.get("face") or "front"
            tip = f"{full} ({u_range}, {item.get('power_w', 0):.0f} W, {item.get('weight_kg', 0):.0f} kg"
            tip += ", mounted at the rear)" if face == "rear" else ")"
            pair = item.get("pair")
            tag = ""
            if pair not in (None, "") and str(pair) in self.pairs:
                tip += f"; HA pair {self.pairs[str(pair)].removeprefix('HA ')}"
                if role in SERVER_ROLES or str(pair) not in self.paired_servers:
                    tag = self.pairs[str(pair)]
            attrs = (
                f'class="device" data-role="{escape(role)}" data-group="{escape(str(item.get("group", "")))}" '
                f'data-item="{escape(str(item.get("item", "")))}" data-u="{item["u"]}"'
            )
            if tag:
                attrs += f' data-pair="{escape(str(pair))}"'
            body = [] if self.compact else [f"<title>{escape(tip)}</title>"]
            if shown == "behind":
                look = f'fill="#eef0f4" stroke="{colour}" stroke-dasharray="2,1.5" stroke-width="0.8"'
                body.append(
                    self._rect(
                        look, x + 0.5, y + 0.5, self.DEVICE_WIDTH - 1, h - 1,
                        f'<rect x="{x + 0.5}" y="{y + 0.5}" width="{self.DEVICE_WIDTH - 1}" height="{h - 1}" {look}/>',
                    )
                )  # fmt: skip
                if not self.compact:
                    self.parts.append(f'<g {attrs} data-face="rear">{"".join(body)}</g>')
                continue
            fill_opacity = ' fill-opacity="0.82"' if self.view == "rear" and face == "front" else ""
            look = f'fill="{colour}"{fill_opacity} stroke="#1d2430" stroke-width="0.5"'
            body.append(
                self._rect(
                    look, x + 0.5, y + 0.5, self.DEVICE_WIDTH - 1, h - 1,
                    f'<rect x="{x + 0.5}" y="{y + 0.5}" width="{self.DEVICE_WIDTH - 1}" height="{h - 1}" rx="1" {look}/>',
                )
            )  # fmt: skip
            if self.compact and self.view == "rear" and face == "front":
                continue  # printed: each device is labelled once, on the view of the face it is mounted on
            ink = _text_colour(colour)
            tag_width = len(tag) * 6 * self.CHAR_WIDTH + 4 if tag else 0
            label = short_label(item, role)
            if not self._fits(label, self.DEVICE_WIDTH - 4 - tag_width, self.FONT) and label.startswith("Standby"):
                label = "Standby"
            if h >= self.FONT + 1 and self._fits(label, self.DEVICE_WIDTH - 4 - tag_width, self.FONT):
                ly = y + min(h, 2 * self.UNIT_HEIGHT) / 2 + 2.6
                body.append(
                    self._text(f'<text class="label" x="{x + 2.5}" y="{ly}" font-size="{self.FONT}" fill="{ink}">{escape(label)}</text>')
                )
            if tag:
                tx = x + self.DEVICE_WIDTH - tag_width - 1
                look = 'fill="#ffffff" stroke="#1d2430" stroke-width="0.4"'
                body.append(
                    self._rect(
                        look,
                        tx,
                        y + 1.5,
                        tag_width,
                        7,
                        f'<rect class="ha" x="{tx}" y="{y + 1.5}" width="{tag_width}" height="7" rx="1.5" {look}/>',
                    )
                    + self._text(
                        f'<text class="tag" x="{tx + tag_width / 2}" y="{y + 7}" text-anchor="middle" font-size="6" font-weight="600" '
                        f'fill="#1d2430">{escape(tag)}</text>'
                    )
                )
            if not self.compact:
                self.parts.append(f"<g {attrs}>{''.join(body)}</g>")

    def draw_pdus(self) -> None:
        """0U PDUs in the rear side channels: the first on the right, the second on the left, and so on inwards."""
        if self.view != "rear":
            return
        colour = role_colour("pdu")
        h = self.units * self.UNIT_HEIGHT - 8
        for k, item in enumerate(self.pdus):
            inset = (k // 2) * 5
            if k % 2 == 0:
                x = self.MARGIN + self.RAIL_WIDTH + self.DEVICE_WIDTH + 1 + inset
            else:
                x = self.MARGIN + self.RAIL_WIDTH - 5.5 - inset
            y = self.top + 4
            full = str(item.get("label", "PDU"))
            tip = f"{full} (0U, rear{', ' + _fmt(item['power_w']) + ' W' if item.get('power_w') else ''})"
            label = short_label(item, "pdu") if len(self.pdus) > 1 else "PDU"
            cx, cy = x + 2.25, y + h / 2
            tooltip = "" if self.compact else f"<title>{escape(tip)}</title>"
            text = (
                f'<text class="pdu-label" x="{cx}" y="{cy}" text-anchor="middle" transform="rotate(-90 {cx} {cy})" dy="2" '
                f'font-size="6" fill="#ffffff">{escape(label)}</text>'
            )
            if self.compact:
                self._rect(f'fill="{colour}" stroke="#1d2430" stroke-width="0.4"', x, y, 4.5, h, "")
                self._text(text)
                continue
            self.parts.append(
                f'<g class="device pdu" data-role="pdu" data-item="{escape(str(item.get("item", "")))}">{tooltip}'
                f'<rect x="{x}" y="{y}" width="4.5" height="{h}" rx="1" fill="{colour}" stroke="#1d2430" stroke-width="0.4"/>{text}</g>'
            )

    def draw_caption(self) -> None:
        """Power and weight, heat (when the evaluation gives it) under the rack; not in compact
        drawings (the sheet's rack table gives the same figures)."""
        if self.compact:
            return
        rack = self.rack
        y = self.top + self.units * self.UNIT_HEIGHT + self.MARGIN + 8
        lines = []
        if "power_w" in rack:
            lines.append(f"{rack['power_w'] / 1000:.1f} kW · {_fmt(rack.get('weight_kg', 0))} kg")
        if rack.get("heat_btu_per_h") is not None:
            lines.append(f"{_fmt(rack['heat_btu_per_h'])} BTU/h")
        for k, line in enumerate(lines[:2]):
            self.parts.append(
                f'<text class="caption" x="{self.width / 2}" y="{y + k * 8.5}" text-anchor="middle" font-size="7" '
                f'fill="#39414f">{escape(line)}</text>'
            )

    def describe(self) -> str:
        rack = self.rack
        bits = [f"{self.title}, {self.view} view", f"{rack.get('units_used', '?')} of {self.units} U used"]
        pdu = rack.get("pdu")
        if isinstance(pdu, dict) and pdu.get("name"):
            bits.append(f"{pdu.get('count', 1)} x {pdu['name']}")
        elif pdu:
            bits.append(f"PDU {pdu}")
        if rack.get("heat_btu_per_h") is not None:
            bits.append(f"{_fmt(rack['heat_btu_per_h'])} BTU/h")
        return "; ".join(bits)

    def render(self) -> str:
        """The SVG document for this rack and view."""
        self.parts, self.shapes, self.texts = [], {}, []
        self.draw_title()
        self.draw_frame()
        self.draw_unit_numbers()
        self.draw_free_space()
        self.draw_devices()
        self.draw_pdus()
        self.draw_caption()
        if self.compact:
            self.parts.append(self.merged())
        body = "".join(self.parts)
        return (
            f'<svg xmlns="http://www.w3.org/2000/svg" class="rack-elevation" role="img" data-rack="{escape(str(self.rack.get("index", "")))}" '
            f'data-view="{self.view}" aria-label="{escape(self.describe())}" width="{self.width}" height="{self.height}" '
            f'viewBox="0 0 {self.width} {self.height}" font-family="{FONT_FAMILY}"><title>{escape(self.describe())}</title>{body}</svg>'
        )


class RackSummarySVG:
    """Past the limit: a compact column per rack, units stacked by role with the count of each,
    wrapped into lines that fit `width`."""

    COLUMN_WIDTH = 40
    GAP = 10
    UNIT_HEIGHT = 2.6
    LINE_GAP = 26
    MARGIN = 4

    def __init__(self, racks: list[dict], *, width: float = 560):
        self.racks = racks
        self.per_line = max(1, int((width - 2 * self.MARGIN + self.GAP) // (self.COLUMN_WIDTH + self.GAP)))
        self.units = max((int(r["units_total"]) for r in racks), default=42)
        self.column_height = self.units * self.UNIT_HEIGHT
        self.lines = -(-len(racks) // self.per_line) if racks else 0
        n = min(len(racks), self.per_line)
        self.width = 2 * self.MARGIN + n * self.COLUMN_WIDTH + max(n - 1, 0) * self.GAP
        self.height = 2 * self.MARGIN + self.lines * (self.column_height + self.LINE_GAP)
        self.parts: list[str] = []

    def draw_style(self) -> None:
        self.parts.append(
            "<style>text{font-family:system-ui,'DejaVu Sans',sans-serif}.count{font-size:9px;font-weight:600}"
            ".rack-no{font-size:9px;fill:#1d2430}</style>"
        )

    def draw_column(self, k: int, rack: dict) -> None:
        x = self.MARGIN + (k % self.per_line) * (self.COLUMN_WIDTH + self.GAP)
        top = self.MARGIN + (k // self.per_line) * (self.column_height + self.LINE_GAP)
        bottom = top + self.column_height
        units_by_role: dict[str, int] = {}
        counts: dict[str, int] = {}
        for item in sorted(rack.get("items", []), key=lambda it: it.get("u", 0)):
            role = legend_key(item_role(item))
            counts[role] = counts.get(role, 0) + 1
            units_by_role[role] = units_by_role.get(role, 0) + int(item.get("height", 0) or 0)
        tip = f"Rack {rack.get('index', k + 1)}: " + ", ".join(f"{n} {ROLES[r][0]}" for r, n in counts.items())
        if "power_w" in rack:
            tip += f"; {rack['power_w'] / 1000:.1f} kW"
        if rack.get("heat_btu_per_h") is not None:
            tip += f", {_fmt(rack['heat_btu_per_h'])} BTU/h"
        body = [
            f"<title>{escape(tip)}</title>",
            f'<rect x="{x}" y="{top}" width="{self.COLUMN_WIDTH}" height="{self.column_height}" fill="#ffffff" stroke="#3a4150" stroke-width="1"/>',
        ]
        y = bottom
        for role, units in units_by_role.items():
            if units <= 0:
                continue
            h = units * self.UNIT_HEIGHT
            y -= h
            colour = role_colour(role)
            body.append(
                f'<rect class="segment" data-role="{role}" x="{x + 1}" y="{y}" width="{self.COLUMN_WIDTH - 2}" height="{h}" fill="{colour}"/>'
            )
            if h >= 10:
                body.append(
                    f'<text class="count" x="{x + self.COLUMN_WIDTH / 2}" y="{y + h / 2 + 3.2}" text-anchor="middle" '
                    f'fill="{_text_colour(colour)}">{counts[role]}</text>'
                )
        body.append(
            f'<text class="rack-no" x="{x + self.COLUMN_WIDTH / 2}" y="{bottom + 11}" text-anchor="middle">{escape(str(rack.get("index", k + 1)))}</text>'
        )
        self.parts.append(
            f'<g class="rack-column" data-rack="{escape(str(rack.get("index", k + 1)))}" data-position="{k}">{"".join(body)}</g>'
        )

    def render(self) -> str:
        self.parts = []
        self.draw_style()
        for k, rack in enumerate(self.racks):
            self.draw_column(k, rack)
        label = f"Summary of {len(self.racks)} racks: units per role in each rack"
        return (
            f'<svg xmlns="http://www.w3.org/2000/svg" class="rack-summary" role="img" aria-label="{label}" '
            f'width="{self.width}" height="{self.height}" viewBox="0 0 {self.width} {self.height}">{"".join(self.parts)}</svg>'
        )


def roles_present(racks: list[dict]) -> list[str]:
    """Legend keys of the roles in these racks, in the legend's order."""
    present = {legend_key(item_role(item)) for rack in racks for item in rack.get("items", [])}
    return [role for role in ROLES if role in present]


def legend_html(racks: list[dict]) -> str:
    """The legend for a row: a swatch and a name for each role present, free space and HA tags."""
    entries = [(ROLES[role][1], ROLES[role][0]) for role in roles_present(racks)] + [(FREE[1], FREE[0])]
    items = "".join(
        f'<li data-role="{escape(text)}"><span class="swatch" style="background:{colour}"></span>{escape(text)}</li>'
        for colour, text in entries
    )
    if pair_numbers(racks):
        items += '<li><span class="swatch ha">HA</span>HA pair (same number on both partners)</li>'
    return f'<ul class="rack-legend">{items}</ul>'


def render_racks(racks: list[dict], *, view: str = "front", compact: bool = False) -> list[str]:
    """One SVG per rack of an evaluation, with HA pairs numbered along the whole row."""
    pairs = pair_numbers(racks)
    return [RackElevationSVG(rack, view=view, pairs=pairs, compact=compact).render() for rack in racks]


def render_summary(racks: list[dict], *, width: float = 560) -> str:
    return RackSummarySVG(racks, width=width).render()


def rack_row(racks: list[dict], *, summary_limit: int = SUMMARY_LIMIT) -> dict:
    """What a page needs to draw the row: front and rear SVG per rack, the summary strip when there
    are more than `summary_limit` racks (else ""), and the legend."""
    return {
        "count": len(racks),
        "front": render_racks(racks, view="front"),
        "rear": render_racks(racks, view="rear"),
        "summary": render_summary(racks) if len(racks) > summary_limit else "",
        "legend": legend_html(racks),
    }


def sheet_rack_lines(
    racks: list[dict],
    *,
    width_mm: float = 176.0,
    gap_mm: float = 3.0,
    max_rack_mm: float = 40.0,
    per_line_max: int = 7,
    pair_up_to: int = 3,
) -> dict:
    """The rack drawings of a printed sheet, as lines that fill the page width: up to `pair_up_to`
    racks, each front view beside its rear view on one line; more, the front views `per_line_max`
    to a line, then the rear views. Past `SUMMARY_LIMIT` racks a summary strip comes first.
    Returns {"width_mm": width of one drawing, "lines": [{"title", "drawings": [(svg, alt)]}],
    "summary": svg or "", "legend": html}."""
    front, rear = render_racks(racks, view="front", compact=True), render_racks(racks, view="rear", compact=True)
    names = [f"Rack {rack.get('index', k + 1)}" for k, rack in enumerate(racks)]
    lines: list[dict] = []
    if len(racks) <= pair_up_to:
        drawings = [d for k in range(len(racks)) for d in ((front[k], f"{names[k]}, front"), (rear[k], f"{names[k]}, rear"))]
        if drawings:
            lines.append(
                {"title": f"Front and rear views (rear: 0U PDUs and the devices' rear faces; {LABELLED_ONCE})", "drawings": drawings}
            )
        per_line = max(len(drawings), 1)
    else:
        per_line = min(len(racks), per_line_max)
        for view, svgs, title in (
            ("front", front, "Front views"),
            ("rear", rear, f"Rear views: 0U PDUs and the devices' rear faces; {LABELLED_ONCE}"),
        ):
            for start in range(0, len(svgs), per_line):
                chunk = [(svgs[k], f"{names[k]}, {view}") for k in range(start, min(start + per_line, len(svgs)))]
                lines.append({"title": title if start == 0 else "", "drawings": chunk})
    width = min(max_rack_mm, (width_mm - (per_line - 1) * gap_mm) / per_line)
    return {
        "width_mm": int(width * 10) / 10,  # rounded down: the line must not wrap
        "lines": lines,
        "summary": render_summary(racks, width=720) if len(racks) > SUMMARY_LIMIT else "",
        "legend": legend_html(racks),
    }
