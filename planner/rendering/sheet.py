"""Rack sheets (PDF) and bills of materials (CSV, XLSX) from an evaluation. No database access.

The PDF is an HTML template with print CSS rendered by WeasyPrint (pure HTML/CSS layout with
real paged media: @page sizes, running headers, page breaks; its system libraries, Pango and
HarfBuzz, are on Debian's base image). Rack elevations are the same SVG the designer shows; the
throughput chart is drawn by matplotlib as SVG, so the PDF holds vector graphics.
"""

from __future__ import annotations

import base64
import csv
import io

from planner.engine.inputs import STAGE_LABELS  # one list of stage names for pages and sheets

PAGE_SIZES = {"pdf-a4": "A4", "pdf-letter": "Letter"}
BOM_HEADER = ["Kind", "Vendor", "Model", "Slug", "Description", "Quantity", "Unit price", "Currency", "Extended price"]


def stage_chart_svg(evaluation: dict) -> str:
    """Each stage's read and write limit per brick kind, the limiting stage outlined, as SVG (matplotlib)."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    stages = evaluation["stages"]
    several = len({s["brick"] for s in stages}) > 1
    labels = [(f"{s['brick']}\n" if several else "") + s.get("label") or STAGE_LABELS.get(s["stage"], s["stage"]) for s in stages]
    fig, ax = plt.subplots(figsize=(7.2, 2.8), dpi=100)
    xs = range(len(stages))
    width = 0.38
    for offset, op, colour in ((-width / 2, "read", "#4e79a7"), (width / 2, "write", "#f28e2b")):
        bars = ax.bar([x + offset for x in xs], [s[f"{op}_gbps"] or 0.0 for s in stages], width, label=f"{op.title()} limit", color=colour)
        for bar, stage in zip(bars, stages, strict=True):
            if stage["limiting"][op]:
                bar.set_edgecolor("#d62728")
                bar.set_linewidth(2.5)
    ax.set_xticks(list(xs))
    ax.set_xticklabels(labels, fontsize=7)
    ax.set_ylabel("GB/s per brick", fontsize=8)
    ax.tick_params(axis="y", labelsize=7)
    ax.legend(fontsize=7, frameon=False, loc="upper right")
    ax.set_title("Stage limits before Lustre efficiency (red outline: the limiting stage)", fontsize=8)
    ax.spines[["top", "right"]].set_visible(False)
    fig.tight_layout()
    out = io.StringIO()
    fig.savefig(out, format="svg")
    plt.close(fig)
    return out.getvalue()


def svg_data_uri(svg: str) -> str:
    """An SVG as a data: URI for an <img> (WeasyPrint draws it as vectors)."""
    return "data:image/svg+xml;base64," + base64.b64encode(svg.encode()).decode()


def bom_rows(lines: list[dict], parts: dict) -> list[list]:
    """Bill-of-materials rows from the evaluation's price lines; `parts` maps (kind, slug) to (vendor, model)."""
    rows = []
    for line in lines:
        vendor, model = parts.get((line["kind"], line["item"]), ("", ""))
        rows.append([line["kind"], vendor, model, line["item"], line["name"], line["quantity"], line["unit_price"], None, line["total"]])
    return rows


FORMULA_STARTS = ("=", "+", "-", "@", "\t", "\r")


def text_cell(value):
    """A cell value a spreadsheet will not run: text starting with =, +, -, @ (or a tab or carriage
    return) gets a leading apostrophe, so a name such as '=HYPERLINK(...)' stays text."""
    if isinstance(value, str) and value.startswith(FORMULA_STARTS):
        return "'" + value
    return value


def bom_csv(rows: list[list], *, currency: str, totals: dict) -> bytes:
    """CSV: one line per item, then the totals (hardware and support, energy, total)."""
    out = io.StringIO()
    writer = csv.writer(out)
    writer.writerow(BOM_HEADER)
    for row in rows:
        writer.writerow([*(text_cell(v) for v in row[:7]), text_cell(currency), f"{row[8]:.2f}"])
    writer.writerow([])
    writer.writerow(["Total capex (hardware and support)", "", "", "", "", "", "", currency, f"{totals['capex']:.2f}"])
    writer.writerow(["Energy over the years of service", "", "", "", "", "", "", currency, f"{totals['opex']:.2f}"])
    writer.writerow(["Total", "", "", "", "", "", "", currency, f"{totals['total']:.2f}"])
    return out.getvalue().encode("utf-8")


def bom_xlsx(rows: list[list], *, currency: str, totals: dict, title: str, notes: list[str]) -> bytes:
    """XLSX: a 'Bill of materials' sheet (values, not formulas, so any reader sees the same numbers) and a notes sheet."""
    from openpyxl import Workbook
    from openpyxl.styles import Font
    from openpyxl.utils import get_column_letter

    from planner.formatting import XLSX_MONEY, XLSX_NUMBER

    wb = Workbook()
    ws = wb.active
    ws.title = "Bill of materials"
    ws.append([text_cell(title)])
    ws["A1"].data_type = "s"
    ws["A1"].font = Font(bold=True, size=13)
    ws.append(BOM_HEADER)
    for cell in ws[2]:
        cell.font = Font(bold=True)
    for row in rows:
        ws.append([*(text_cell(v) for v in row[:7]), text_cell(currency), round(row[8], 2)])
        ws.cell(row=ws.max_row, column=7).number_format = XLSX_NUMBER  # unit price, with cents
        ws.cell(row=ws.max_row, column=9).number_format = XLSX_MONEY  # extended: whole amounts
    ws.append([])
    ws.append(["Total capex (hardware and support)", None, None, None, None, None, None, currency, round(totals["capex"], 2)])
    capex_row = ws.max_row
    ws.append(["Energy over the years of service", None, None, None, None, None, None, currency, round(totals["opex"], 2)])
    ws.append(["Total", None, None, None, None, None, None, currency, round(totals["total"], 2)])
    for r in range(capex_row, capex_row + 3):
        ws.cell(row=r, column=1).font = Font(bold=True)
        ws.cell(row=r, column=9).number_format = XLSX_MONEY
    for col, width in enumerate([10, 12, 34, 18, 40, 10, 14, 9, 16], start=1):
        ws.column_dimensions[get_column_letter(col)].width = width
    ws.freeze_panes = "A3"
    notes_ws = wb.create_sheet("Notes")
    for note in notes:
        notes_ws.append([text_cell(note)])
    notes_ws.column_dimensions["A"].width = 140
    out = io.BytesIO()
    wb.save(out)
    return out.getvalue()


def render_pdf(html: str) -> bytes:
    """HTML (with its own print CSS and inline images) to PDF bytes."""
    from weasyprint import HTML

    return HTML(string=html, base_url=".").write_pdf()
