"""One number format for pages, rack sheets (PDF) and bills of materials (XLSX, CSV): thousands separated
by commas, a fixed number of decimals, money as a whole amount with its currency (no cents in totals).

Formatting only: no figure is computed here. Templates use it through the `num` and `money` filters
(frontend/templatetags/humanize_units.py), the XLSX through `XLSX_NUMBER` and `XLSX_MONEY`.
"""

from __future__ import annotations

XLSX_NUMBER = "#,##0.00"  # the same format in a spreadsheet cell: thousands separated, 2 decimals
XLSX_MONEY = "#,##0"  # whole amounts, thousands separated


def number(value, digits: int = 0) -> str:
    """1234567.891 -> '1,234,567.89' (digits=2); '' for what is not a number; '–' for None."""
    if value is None or value == "":
        return "–"
    try:
        return f"{float(value):,.{int(digits)}f}"
    except (TypeError, ValueError):
        return ""


def money(value, currency: str | None = None, cents: bool = False) -> str:
    """A price: '1,234,568 USD' (whole amounts for totals; cents=True for unit prices)."""
    text = number(value, 2 if cents else 0)
    return f"{text} {currency}" if currency and text not in ("", "–") else text


def ratio(value) -> str:
    """A relative price: '1.25×'."""
    text = number(value, 2)
    return f"{text}×" if text not in ("", "–") else text
