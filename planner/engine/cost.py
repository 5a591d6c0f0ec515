"""Price: the bill of materials of one design of a batch, read from the batch's per-part arrays.

Capex = hardware (every part at its unit price) + software/support per server-year over the
list's years of service. Opex = energy: the design's power x hours x years x PUE x price per
kWh. The totals are computed once, in `batch.evaluate_batch`; the lines here read the same
quantities and unit prices, so they add up to the same figures by construction. Relative price
is a ratio of totals to a named reference design.
"""

from __future__ import annotations

from collections import OrderedDict
from dataclasses import dataclass

from .inputs import DesignInput


@dataclass(slots=True)
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


def bill_of_materials(design: DesignInput, batch, result, row: int = 0) -> list[BomLine]:
    """Lines for design `row` of a batch, merged by part, with support per server-year last."""
    line_keys, design_keys, unpriced = batch.keys[row]
    unpriced = set(unpriced)
    merged: "OrderedDict[tuple[str, str], BomLine]" = OrderedDict()

    def add(key, qty: float, unit_price: float) -> None:
        if key is None or qty <= 0:
            return
        kind, slug, name = key
        if (kind, slug) not in merged:
            merged[(kind, slug)] = BomLine(
                kind=kind, item=slug, name=name, quantity=0, unit_price=unit_price, priced=(kind, slug) not in unpriced
            )
        merged[(kind, slug)].quantity += qty

    qty, price = result.part_qty[row].tolist(), batch.parts["price"][row].tolist()  # (lines, parts) as Python floats
    for j, keys in enumerate(line_keys):
        for k, key in enumerate(keys):
            add(key, qty[j][k], price[j][k])
    dqty, dprice = result.dpart_qty[row].tolist(), batch.dparts["price"][row].tolist()
    for k, key in enumerate(design_keys):
        add(key, dqty[k], dprice[k])

    lines = list(merged.values())
    prices = design.prices
    if prices.support_per_server_year:
        lines.append(
            BomLine(
                kind="service",
                item="support-per-server-year",
                name=f"Software and support per server-year ({prices.service_years} years)",
                quantity=float(result.servers[row]) * prices.service_years,
                unit_price=prices.support_per_server_year,
                priced=True,
            )
        )
    return lines


def relative_price(total: float, reference_total: float) -> float | None:
    """Price as a ratio to a reference design's price; None when the reference costs nothing."""
    if reference_total <= 0:
        return None
    return total / reference_total
