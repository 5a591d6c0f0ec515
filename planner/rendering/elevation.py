"""Rack elevation as SVG: a front view of one rack from the engine's layout.

Modelled on the idea of NetBox's rack elevation renderer: small methods named by what they draw,
`render()` calling them in order. It takes a rack layout as the evaluation gives it (a dict with
`units_total` and `items` of u/height/label/group/kind), not a queryset, so it is testable
without a database and the same drawing serves the designer page and the PDF rack sheet.
"""

from __future__ import annotations

from xml.sax.saxutils import escape

PALETTE = ["#4e79a7", "#f28e2b", "#59a14f", "#b07aa1", "#76b7b2", "#edc948", "#9c755f", "#e15759"]
FIXED = {"switches": "#5a6270", "metadata": "#8c6bb1"}


def group_colours(groups: list[str]) -> dict[str, str]:
    """A stable colour per brick group (switches and metadata have their own)."""
    colours, i = {}, 0
    for group in groups:
        if group in colours:
            continue
        if group in FIXED:
            colours[group] = FIXED[group]
        else:
            colours[group] = PALETTE[i % len(PALETTE)]
            i += 1
    return colours


class RackElevationSVG:
    """Draws one rack: frame, U numbers, devices (labelled, coloured by brick group), free space."""

    UNIT_HEIGHT = 14
    RAIL_WIDTH = 28
    DEVICE_WIDTH = 250
    MARGIN = 6
    TITLE_HEIGHT = 22
    LABEL_CHARS = 40  # what fits the device width at the label's font size

    def __init__(self, rack: dict, *, title: str | None = None, colours: dict[str, str] | None = None):
        self.rack = rack
        self.units = int(rack["units_total"])
        self.items = sorted(rack["items"], key=lambda it: it["u"])
        self.title = title or f"Rack {rack.get('index', '')} ({self.units}U)"
        self.colours = colours or group_colours([it["group"] for it in self.items])
        self.width = self.MARGIN * 2 + self.RAIL_WIDTH * 2 + self.DEVICE_WIDTH
        self.height = self.TITLE_HEIGHT + self.MARGIN * 2 + self.units * self.UNIT_HEIGHT
        self.parts: list[str] = []

    # geometry ------------------------------------------------------------------------------
    def _y(self, u: int, height: int = 1) -> float:
        """Top edge of a device whose lowest unit is `u` (U1 at the bottom)."""
        return self.TITLE_HEIGHT + self.MARGIN + (self.units - (u + height - 1)) * self.UNIT_HEIGHT

    # drawing steps ---------------------------------------------------------------------------
    def draw_title(self) -> None:
        self.parts.append(f'<text class="title" x="{self.width / 2}" y="15" text-anchor="middle">{escape(self.title)}</text>')

    def draw_frame(self) -> None:
        top = self.TITLE_HEIGHT + self.MARGIN
        self.parts.append(
            f'<rect class="frame" x="{self.MARGIN}" y="{top}" width="{self.width - 2 * self.MARGIN}" '
            f'height="{self.units * self.UNIT_HEIGHT}" fill="#f4f5f7" stroke="#2b2f36" stroke-width="2"/>'
        )

    def draw_unit_numbers(self) -> None:
        x_left = self.MARGIN + self.RAIL_WIDTH / 2
        x_right = self.width - self.MARGIN - self.RAIL_WIDTH / 2
        for u in range(1, self.units + 1):
            y = self._y(u) + self.UNIT_HEIGHT * 0.75
            for x in (x_left, x_right):
                self.parts.append(f'<text class="unit" x="{x}" y="{y}" text-anchor="middle">{u}</text>')

    def draw_free_space(self) -> None:
        used = set()
        for item in self.items:
            used.update(range(item["u"], item["u"] + item["height"]))
        x = self.MARGIN + self.RAIL_WIDTH
        for u in range(1, self.units + 1):
            if u not in used:
                self.parts.append(
                    f'<rect class="free" data-u="{u}" x="{x}" y="{self._y(u)}" width="{self.DEVICE_WIDTH}" height="{self.UNIT_HEIGHT}" '
                    f'fill="#ffffff" stroke="#d5d9e0" stroke-dasharray="3,2"/>'
                )

    def draw_devices(self) -> None:
        x = self.MARGIN + self.RAIL_WIDTH
        for item in self.items:
            height = max(int(item["height"]), 1)
            y = self._y(item["u"], height)
            h = height * self.UNIT_HEIGHT
            colour = self.colours.get(item["group"], "#999999")
            full = str(item["label"])
            label = escape(full if len(full) <= self.LABEL_CHARS else full[: self.LABEL_CHARS - 1] + "…")
            u_range = f"U{item['u']}" if height == 1 else f"U{item['u']}-{item['u'] + height - 1}"
            self.parts.append(
                f'<g class="device" data-group="{escape(item["group"])}" data-item="{escape(item["item"])}" data-u="{item["u"]}">'
                f"<title>{escape(full)} ({u_range}, {item.get('power_w', 0):.0f} W, {item.get('weight_kg', 0):.0f} kg)</title>"
                f'<rect x="{x + 1}" y="{y + 1}" width="{self.DEVICE_WIDTH - 2}" height="{h - 2}" rx="2" fill="{colour}" stroke="#1d2430" stroke-width="0.8"/>'
                f'<text class="label" x="{x + 6}" y="{y + min(h, 3 * self.UNIT_HEIGHT) / 2 + 4}">{label}</text>'
                "</g>"
            )

    def draw_legend_style(self) -> None:
        self.parts.append(
            "<style>text{font-family:system-ui,sans-serif}.title{font-size:13px;font-weight:600;fill:#1d2430}"
            ".unit{font-size:8px;fill:#5b6578}.label{font-size:10px;fill:#ffffff}</style>"
        )

    def render(self) -> str:
        """The SVG document for this rack."""
        self.parts = []
        self.draw_legend_style()
        self.draw_title()
        self.draw_frame()
        self.draw_unit_numbers()
        self.draw_free_space()
        self.draw_devices()
        body = "".join(self.parts)
        return (
            f'<svg xmlns="http://www.w3.org/2000/svg" class="rack-elevation" role="img" '
            f'aria-label="{escape(self.title)}: front view" width="{self.width}" height="{self.height}" '
            f'viewBox="0 0 {self.width} {self.height}">{body}</svg>'
        )


def render_racks(racks: list[dict]) -> list[str]:
    """SVGs for all racks of an evaluation, with the same colour per brick group in every rack."""
    colours = group_colours([item["group"] for rack in racks for item in sorted(rack["items"], key=lambda it: it["u"])])
    return [RackElevationSVG(rack, colours=colours).render() for rack in racks]
