"""Price: the bill of materials of one design, priced from its price list.

Capex = hardware (every part at its unit price) + software/support per server-year over the
list's years of service. Opex = energy: the design's power x hours x years x PUE x price per
kWh. Relative price is a ratio of totals to a named reference design. The vectorised totals in
`batch.evaluate_batch` and the lines here come from the same quantities; a test holds them equal.
"""

from __future__ import annotations

from collections import OrderedDict
from dataclasses import dataclass

from .inputs import DesignInput
from .units import HOURS_PER_YEAR


@dataclass
class BomLine:
    """One bill-of-materials line: a part (or service) with quantity and unit price."""

    kind: str
    item: str
    name: str
    quantity: float
    unit_price: float
    priced: bool

    @property
    def total(self) -> float:
        return self.quantity * self.unit_price

    def as_dict(self) -> dict:
        return {
            "kind": self.kind,
            "item": self.item,
            "name": self.name,
            "quantity": _num(self.quantity),
            "unit_price": round(self.unit_price, 2),
            "total": round(self.total, 2),
        }


def _num(value: float):
    return int(value) if float(value).is_integer() else round(value, 3)


def bill_of_materials(design: DesignInput, quantities: dict, rack_count: int, row: int = 0) -> tuple[list[BomLine], list[str]]:
    """Lines for design `row` of a batch's quantities, merged by part; and warnings for unpriced parts."""
    prices = design.prices
    merged: "OrderedDict[tuple[str, str], BomLine]" = OrderedDict()
    warnings: list[str] = []

    def add(kind: str, slug: str, name: str, qty: float) -> None:
        if qty <= 0:
            return
        key = (kind, slug)
        if key not in merged:
            price = prices.price(kind, slug)
            if price is None:
                warnings.append(f"No price for {kind} '{slug}' in price list '{prices.slug}'; counted as 0.")
            merged[key] = BomLine(kind=kind, item=slug, name=name, quantity=0, unit_price=price or 0.0, priced=price is not None)
        merged[key].quantity += qty

    for j, group in enumerate(design.bricks):
        servers = float(quantities["servers"][row, j])
        add("server", group.server.slug, group.server.name, servers)
        if group.hba is not None:
            add("adapter", group.hba.slug, group.hba.name, float(quantities["hbas"][row, j]))
        add("adapter", group.network.slug, group.network.name, float(quantities["nets"][row, j]))
        add("enclosure", group.head.slug, group.head.name, float(quantities["heads"][row, j]))
        if group.expansion is not None:
            add("enclosure", group.expansion.slug, group.expansion.name, float(quantities["exps"][row, j]))
        add("disk", group.disk.slug, group.disk.name, float(quantities["disks"][row, j]))

    if design.metadata is not None and design.placement in ("in_rack", "separate_rack"):
        for line in design.metadata.lines:
            add(line.kind, line.part.slug, line.part.name, line.count)

    add("rack", design.rack.slug, design.rack.name, rack_count)
    for part, count in design.rack.switches:
        add("switch", part.slug, part.name, count * rack_count)

    lines = list(merged.values())
    servers_total = sum(line.quantity for line in lines if line.kind == "server")
    if prices.support_per_server_year:
        lines.append(
            BomLine(
                kind="service",
                item="support-per-server-year",
                name=f"Software and support per server-year ({prices.service_years} years)",
                quantity=servers_total * prices.service_years,
                unit_price=prices.support_per_server_year,
                priced=True,
            )
        )
    return lines, warnings


def energy_cost(power_w: float, design: DesignInput) -> float:
    """Energy over the years of service: kW x hours x years x PUE x price per kWh."""
    p = design.prices
    return power_w / 1000.0 * HOURS_PER_YEAR * p.service_years * p.pue * p.energy_price_per_kwh


def relative_price(total: float, reference_total: float) -> float | None:
    """Price as a ratio to a reference design's price; None when the reference costs nothing."""
    if reference_total <= 0:
        return None
    return total / reference_total
