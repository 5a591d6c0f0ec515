"""One number format on pages, PDF and XLSX (issue 13): thousands separators, currency, no cents in totals."""

import io
import re

import pytest

from planner import formatting
from planner.rendering import sheet
from planner.services import design_create, design_share


@pytest.mark.parametrize(
    "value, digits, text",
    [(1234567.891, 2, "1,234,567.89"), (1025940.4, 0, "1,025,940"), (36, 1, "36.0"), (None, 1, "–"), ("x", 0, "")],
)
def test_number_has_thousands_separators_and_fixed_decimals(value, digits, text):
    assert formatting.number(value, digits) == text


def test_money_is_whole_with_currency_and_unit_prices_keep_cents():
    assert formatting.money(1025940.45, "USD") == "1,025,940 USD"
    assert formatting.money(1234.5, cents=True) == "1,234.50"
    assert formatting.ratio(0.6502) == "0.65×"


def test_xlsx_totals_are_whole_amounts_with_separators():
    from openpyxl import load_workbook

    rows = [["disk", "Seagate", "ST4000", "nl-sas-4tb", "Disks", 480, 250.5, "USD", 120240.0]]
    data = sheet.bom_xlsx(rows, currency="USD", totals={"capex": 1e6, "opex": 5e4, "total": 1.05e6}, title="t", notes=[])
    ws = load_workbook(io.BytesIO(data)).active
    row = next(r for r in range(1, ws.max_row + 1) if ws.cell(row=r, column=4).value == "nl-sas-4tb")
    assert ws.cell(row=row, column=7).number_format == formatting.XLSX_NUMBER == "#,##0.00"
    assert ws.cell(row=row, column=9).number_format == formatting.XLSX_MONEY == "#,##0"
    assert ws.cell(row=ws.max_row, column=9).number_format == "#,##0"


@pytest.mark.django_db
def test_pages_use_the_one_format(client, django_user_model):
    ann = django_user_model.objects.create_user("ann", password="pw-ann-123456")
    design = design_create(
        owner=ann, name="D", spec={"bricks": [{"template": "md3460-performance", "count": 8}], "metadata": {"placement": "none"}}
    )
    design_share(design=design, link=True)
    design.refresh_from_db()
    html = client.get(f"/shared/{design.share_token}/").content.decode()
    total = html[html.index("<tfoot>") : html.index("</tfoot>")]
    assert re.search(r">\d{1,3}(,\d{3})+</td>", total) and ".00<" not in total  # thousands separated, no cents in the total
    compare = client.get("/compare/", {"d": ["ex:study-a", "ex:study-b"]}).content.decode()
    assert re.search(r'<td class="num">\d{3},\d{3} USD</td>', compare)
