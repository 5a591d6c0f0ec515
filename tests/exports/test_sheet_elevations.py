"""The printed rack drawings as WeasyPrint draws them (no database): each device's label is in the
PDF once, on the face it is mounted on, and the drawings still name every rack and view."""

import io

from pypdf import PdfReader

from planner.engine import evaluate
from planner.rendering.elevation import sheet_rack_lines
from planner.rendering.sheet import render_pdf, svg_data_uri
from tests.engine import factories as f


def _pdf_text(racks) -> str:
    drawn = sheet_rack_lines(racks)
    images = "".join(
        f'<img src="{svg_data_uri(svg)}" alt="{alt}" style="width: {drawn["width_mm"]}mm">'
        for line in drawn["lines"]
        for svg, alt in line["drawings"]
    )
    pdf = render_pdf(f"<html><body style='font-family: \"DejaVu Sans\"'>{images}</body></html>")
    return " ".join(" ".join(page.extract_text().split()) for page in PdfReader(io.BytesIO(pdf)).pages)


def test_each_device_is_labelled_once_in_the_printed_drawings():
    ev = evaluate(f.design(f.brick(count=4), placement="none")).as_dict()
    [rack] = ev["racks"]
    text = _pdf_text(ev["racks"])
    assert "Rack 1" in text and "Rack 1 · rear" in text
    front = [it for it in rack["items"] if it["height"] > 0 and (it.get("face") or "front") == "front"]
    assert len(front) >= 8
    letters = text.replace(" ", "")  # the PDF's SVG text comes out a letter at a time
    for label in ("Head1", "Head2", "Head3", "Head4", "OSS1", "OSS4"):
        assert letters.count(label) == 1, (label, text)  # on the front view only (it was on both views)
