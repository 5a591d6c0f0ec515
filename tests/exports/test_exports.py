"""Exports (tasks run in-process here): the PDF's text, pages and page size; CSV and XLSX totals;
reuse of a finished export; who may download; failures recorded with a reason and retried."""

import csv
import io

import pytest
from openpyxl import load_workbook
from pypdf import PdfReader

from planner.models import ExportJob
from planner.services import design_create, design_evaluation, design_share, design_update

pytestmark = pytest.mark.django_db
D = {"bricks": [{"template": "md3460-performance", "count": 8}], "metadata": {"placement": "none"}}


@pytest.fixture
def owner(django_user_model):
    return django_user_model.objects.create_user("olga", password="pw-olga-123456", first_name="Olga", last_name="Architect")


@pytest.fixture
def design(owner):
    return design_create(owner=owner, name="Rack D for the vendor", spec=D)


@pytest.fixture
def client_api(api, owner):
    api.force_authenticate(owner)
    return api


@pytest.fixture
def export(django_capture_on_commit_callbacks):
    """Request an export as a client does (202), let the queued task run, poll the job, download the file."""

    def run(api, design, fmt, url=None, expect="done", reference=None):
        body = {"format": fmt, **({"reference": reference} if reference else {})}
        with django_capture_on_commit_callbacks(execute=True):
            response = api.post(url or f"/api/v1/designs/{design.id}/exports/", body, format="json")
        assert response.status_code in (200, 202), response.content
        job = api.get(response.json()["status_url"]).json()
        assert job["status"] == expect, job
        return job, (api.get(job["download_url"]) if job["download_url"] else None)

    return run


def _bytes(response):
    return b"".join(response.streaming_content)


@pytest.mark.parametrize("fmt, width, height", [("pdf-a4", 595.28, 841.89), ("pdf-letter", 612.0, 792.0)])
def test_rack_sheet_pdf_holds_the_totals_and_every_bom_line(client_api, design, fmt, width, height, export):
    job, download = export(client_api, design, fmt)
    assert ExportJob.objects.get(pk=job["id"]).design_snapshot["name"] == "Rack D for the vendor"  # kept with the job
    assert download.status_code == 200 and download["Content-Type"] == "application/pdf"
    assert job["filename"].endswith(".pdf") and "attachment" in download["Content-Disposition"]
    reader = PdfReader(io.BytesIO(_bytes(download)))
    assert len(reader.pages) == 4
    for page in reader.pages:
        assert float(page.mediabox.width) == pytest.approx(width, abs=0.5)
        assert float(page.mediabox.height) == pytest.approx(height, abs=0.5)
    text = " ".join(" ".join(page.extract_text().split()) for page in reader.pages)
    ev = design_evaluation(design=design).as_dict()
    for fragment in (
        "Rack D for the vendor",
        "Olga Architect",
        "1.36 PiB",
        "1,396.5 TiB",  # thousands separated, as on the pages
        "1,920 TB",
        "36.0 GB/s",
        "limited by RAID controllers",
        f"{ev['price']['total']:,.0f} USD",
        "Illustrative list prices (USD, 2015)",
        "max_sectors_kb = 1024",
        "Assumptions",
        "Page 1 of 4",
        "failover paired (automatic)",  # the spec leaves failover to the planner: the sheet says what it chose
    ):
        assert fragment in text, fragment
    assert "None" not in text
    despaced = text.replace(" ", "")  # narrow columns wrap long slugs
    for line in ev["price"]["lines"]:
        assert f"{line['total']:,.0f}" in text, line  # whole amounts, thousands separated
        assert line["item"] in despaced, line
        assert f" {line['quantity']} " in text, line


def test_bom_csv_has_every_line_and_totals_equal_to_the_evaluation(client_api, design, export):
    _, download = export(client_api, design, "csv")
    rows = list(csv.reader(io.StringIO(_bytes(download).decode())))
    assert rows[0] == ["Kind", "Vendor", "Model", "Slug", "Description", "Quantity", "Unit price", "Currency", "Extended price"]
    ev = design_evaluation(design=design).as_dict()
    body = rows[1 : 1 + len(ev["price"]["lines"])]
    assert [r[3] for r in body] == [line["item"] for line in ev["price"]["lines"]]
    assert sum(float(r[8]) for r in body) == pytest.approx(ev["price"]["capex"], abs=0.05)
    total = next(r for r in rows if r and r[0] == "Total")
    assert float(total[8]) == pytest.approx(ev["price"]["total"], abs=0.01)
    disk = next(r for r in body if r[3] == "nl-sas-4tb")
    assert disk[1] == "Seagate" and disk[5] == "480" and disk[7] == "USD"


def test_bom_xlsx_opens_with_openpyxl_and_its_totals_equal_the_evaluation(client_api, design, export):
    _, download = export(client_api, design, "xlsx")
    wb = load_workbook(io.BytesIO(_bytes(download)))
    ws = wb["Bill of materials"]
    rows = list(ws.iter_rows(values_only=True))
    ev = design_evaluation(design=design).as_dict()
    lines = rows[2 : 2 + len(ev["price"]["lines"])]
    assert sum(r[8] for r in lines) == pytest.approx(ev["price"]["capex"], abs=0.05)
    totals = {r[0]: r[8] for r in rows if r and r[0] and str(r[0]).startswith(("Total", "Energy"))}
    assert totals["Total capex (hardware and support)"] == pytest.approx(ev["price"]["capex"], abs=0.01)
    assert totals["Energy over the years of service"] == pytest.approx(ev["price"]["opex"], abs=0.01)
    assert totals["Total"] == pytest.approx(ev["price"]["total"], abs=0.01)
    assert "Notes" in wb.sheetnames


def test_the_same_export_of_the_same_version_is_reused(client_api, design, export):
    first, _ = export(client_api, design, "csv")
    again = client_api.post(f"/api/v1/designs/{design.id}/exports/", {"format": "csv"}, format="json")
    assert again.status_code == 200  # done already: no new job, no new rendering
    assert again.json()["id"] == first["id"] and again.json()["finished_at"] == first["finished_at"]
    design_update(design=design, based_on_version=1, name="Rack D, changed")
    newer, _ = export(client_api, design, "csv")
    assert newer["id"] != first["id"] and newer["design_version"] == 2
    assert ExportJob.objects.filter(design=design).count() == 2


def test_exports_are_private_to_those_who_may_read_the_design(api, client_api, design, django_user_model, export):
    job, _ = export(client_api, design, "csv")
    stranger = django_user_model.objects.create_user("sam", password="pw-sam-123456")
    api.force_authenticate(stranger)
    assert api.get(f"/api/v1/exports/{job['id']}/").status_code == 404
    assert api.get(f"/api/v1/exports/{job['id']}/download/").status_code == 404
    assert api.post(f"/api/v1/designs/{design.id}/exports/", {"format": "csv"}, format="json").status_code == 404
    api.force_authenticate(None)
    assert api.get(f"/api/v1/exports/{job['id']}/download/").status_code == 401


def test_share_link_holders_may_export_and_download(api, design, export):
    design_share(design=design, link=True)
    design.refresh_from_db()
    url = f"/api/v1/shared/{design.share_token}/exports/"
    job, download = export(api, design, "xlsx", url=url)
    assert download.status_code == 200 and f"/shared/{design.share_token}/" in job["download_url"]
    assert api.get(f"/api/v1/shared/not-the-token/exports/{job['id']}/download/").status_code == 404


def test_a_failed_render_says_why_and_can_be_requested_again(client_api, design, monkeypatch, export):
    from planner.rendering import sheet

    def broken(html):
        raise RuntimeError("the PDF engine is out of ink")

    monkeypatch.setattr(sheet, "render_pdf", broken)
    response, _ = export(client_api, design, "pdf-a4", expect="failed")
    assert "out of ink" in response["error"] and response["download_url"] is None
    assert client_api.get(f"/api/v1/exports/{response['id']}/download/").status_code == 409
    monkeypatch.undo()
    retried, download = export(client_api, design, "pdf-a4")
    assert retried["id"] == response["id"] and download.status_code == 200


def test_transient_failures_are_retried(client_api, design, monkeypatch, export):
    from django.db import OperationalError

    from planner.services import exports

    real = exports.export_render
    calls = {"n": 0}

    def flaky(*, job_id):
        calls["n"] += 1
        if calls["n"] == 1:
            raise OperationalError("server closed the connection unexpectedly")
        return real(job_id=job_id)

    monkeypatch.setattr(exports, "export_render", flaky)
    job, download = export(client_api, design, "csv")
    assert calls["n"] == 2 and download.status_code == 200


def test_unknown_format_is_a_400(client_api, design):
    response = client_api.post(f"/api/v1/designs/{design.id}/exports/", {"format": "docx"}, format="json")
    assert response.status_code == 400 and "format" in response.json()


def test_rack_sheet_priced_against_a_reference_shows_the_relative_price(client_api, design, export):
    from planner.services import design_evaluate, example_design

    job, download = export(client_api, design, "pdf-a4", reference="ex:study-b")
    assert job["reference"] == "ex:study-b"
    text = " ".join(" ".join(p.extract_text().split()) for p in PdfReader(io.BytesIO(_bytes(download))).pages)
    ref = example_design(slug="study-b")
    ratio = design_evaluation(design=design).price["total"] / design_evaluate(spec=ref["spec"]).price["total"]
    assert f"{ratio:.2f} of {ref['name']}" in text
    bad = client_api.post(f"/api/v1/designs/{design.id}/exports/", {"format": "pdf-a4", "reference": "ex:nope"}, format="json")
    assert bad.status_code == 400 and "no reference design" in bad.json()["reference"][0]


def test_multi_rack_sheet_draws_racks_side_by_side_and_names_with_symbols_print_plainly(client_api, owner, export):
    spec = {"bricks": [{"template": "md3460-capacity", "count": 4}], "metadata": {"placement": "none"}}
    design = design_create(owner=owner, name='Rack C - "variant" & co', spec=spec)
    job, download = export(client_api, design, "pdf-a4")
    reader = PdfReader(io.BytesIO(_bytes(download)))
    text = " ".join(" ".join(page.extract_text().split()) for page in reader.pages)
    assert 'Rack C - "variant" & co · version 1' in text
    assert "u002D" not in text and "u0022" not in text
    page_two = " ".join(reader.pages[1].extract_text().split())
    # the heading and the racks on one page (no page with the heading alone), side by side, front beside rear
    assert "Rack elevations" in page_two and "HA pair" in page_two
    assert page_two.index("Rack 1 ") < page_two.index("Rack 1 · rear") < page_two.index("Rack 2 ") < page_two.index("Rack 2 · rear")
    assert "BTU/h" in page_two


def test_an_export_renders_the_version_it_was_asked_for_even_after_a_later_save(client_api, design):
    """A save made before a worker reaches a queued export used to put the new spec (and name) into the file
    of the earlier version; the job now keeps the design as it was and renders that."""
    from planner.services.exports import _snapshot, export_render

    job = ExportJob.objects.create(design=design, design_version=design.version, format="csv", design_snapshot=_snapshot(design))
    changed = client_api.patch(
        f"/api/v1/designs/{design.id}/",
        {
            "version": design.version,
            "name": "Rack D, six racks later",
            "spec": {**D, "bricks": [{"template": "md3460-performance", "count": 2}]},
        },
        format="json",
    )
    assert changed.status_code == 200
    job = export_render(job_id=job.id)
    assert job.filename == "Rack-D-for-the-vendor-v1-bom.csv"  # the name at version 1
    rows = list(csv.reader(io.StringIO(job.file.read().decode())))
    servers = next(r for r in rows if r and r[0] == "server")
    assert int(servers[5]) == 8  # version 1: 8 bricks, one server each (version 2 has 2)
