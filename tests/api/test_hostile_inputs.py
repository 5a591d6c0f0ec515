"""Hostile input gets a 4xx JSON answer naming the problem, never a 500 (a start on issue 14's table)."""

import pytest

pytestmark = pytest.mark.django_db

SPEC = {"bricks": [{"template": "md3460-performance", "count": 1}]}
CASES = [
    ("/api/v1/solve/", '{"targets": {"usable_pib": 1e309}}', "finite"),
    ("/api/v1/solve/", '{"targets": {"read_gbps": -1e309}}', ""),
    ("/api/v1/solve/", '{"targets": {"budget": NaN}}', ""),
    ("/api/v1/solve/", '{"targets": {"usable_pib": Infinity}}', ""),
    ("/api/v1/solve/", '{"demand": {"job_slots": 10, "mb_per_s_per_job": 1e309}}', "finite"),
    ("/api/v1/solve/", '{"targets": {"usable_pib": 1}, "metadata_sizing": {"files": 1000, "histogram": [[1e309, 1]]}}', "finite"),
    ("/api/v1/solve/", '{"targets": {"usable_pib": 1}, "metadata_sizing": {"files": 1000, "histogram": [[4096, 1e309]]}}', "finite"),
    ("/api/v1/solve/", '{"\\ud800": 1}', "unknown field"),
    ("/api/v1/evaluate/", '{"bricks": [{"template": "md3460-performance", "count": 1}], "\\ud800": 1}', "unknown field"),
    ("/api/v1/evaluate/", '{"bricks": [{"template": "md3460-performance", "count": 1, "\\udfff": 2}]}', "unknown field"),
    ("/api/v1/evaluate/", '{"bricks": [{"template": "\\ud800", "count": 1}]}', ""),
    (
        "/api/v1/evaluate/",
        '{"bricks": [{"template": "md3460-performance", "count": 1}], "clients": {"count": 2, "adapter": "ib-fdr", "rpc_round_trip_ms": 1e309}}',
        "finite",
    ),
    ("/api/v1/evaluate/", '{"bricks": [{"template": "md3460-performance", "count": 1}], "fabric": {"oversubscription": 1e309}}', ""),
    ("/api/v1/evaluate/", '{"bricks": [{"template": "md3460-performance", "count": 1}], "fabric": {"core_gbps": 1e309}}', ""),
    ("/api/v1/evaluate/", '{"bricks": [{"template": "md3460-performance", "count": 1e309}]}', ""),
    ("/api/v1/evaluate/", '{"bricks": [{"template": "md3460-performance", "count": 1, "raid": {"data": 1e309}}]}', ""),
    ("/api/v1/evaluate/", '{"bricks": [{"template": "md3460-performance", "count": 1, "raid": {"level": "raid6", "data": 0}}]}', ""),
    ("/api/v1/evaluate/", '{"bricks": [{"template": "md3460-performance", "count": 1, "raid": {"level": "raidz2"}}]}', "ZFS"),
    (
        "/api/v1/evaluate/",
        '{"bricks": [{"template": "md3460-performance", "count": 1}], "metadata": {"mdt": {"disk": "ssd-sas-3-84tb", "disks": 1e309}}}',
        "",
    ),
    (
        "/api/v1/compare/",
        '{"designs": [{"label": "\\ud800", "spec": {"bricks": [{"template": "nope", "count": 1}]}}, {"spec": {"bricks": [{"template": "md3460-performance", "count": 1}]}}]}',
        "",
    ),
]


@pytest.mark.parametrize("url, body, words", CASES)
def test_hostile_input_is_a_4xx_json_answer(api, url, body, words):
    response = api.post(url, body, content_type="application/json")
    assert 400 <= response.status_code < 500, (response.status_code, response.content[:200])
    assert response["Content-Type"].startswith("application/json")
    assert words in response.content.decode()


def test_spreadsheet_cells_that_start_like_formulas_stay_text(tmp_path):
    import csv
    import io

    from openpyxl import load_workbook

    from planner.rendering.sheet import bom_csv, bom_xlsx

    rows = [["disk", "Vendor", '=HYPERLINK("http://x")', "@slug", "+desc", 1, 300.0, "USD", 300.0]]
    totals = {"capex": 300.0, "opex": 0.0, "total": 300.0}
    text = bom_csv(rows, currency="USD", totals=totals).decode()
    cells = next(r for r in csv.reader(io.StringIO(text)) if r and r[0] == "disk")
    assert cells[2] == '\'=HYPERLINK("http://x")' and cells[3] == "'@slug" and cells[4] == "'+desc"
    data = bom_xlsx(rows, currency="USD", totals=totals, title="=1+1 design", notes=["-note"])
    wb = load_workbook(io.BytesIO(data))
    ws = wb["Bill of materials"]
    assert ws["A1"].value == "'=1+1 design" and ws["A1"].data_type == "s"
    assert all(not str(c.value).startswith(("=", "+", "@")) for row in ws.iter_rows() for c in row if c.value is not None)
    assert wb["Notes"]["A1"].value == "'-note"


@pytest.mark.parametrize(
    "kind, slug, spec",
    [
        ("brick-templates", "md3460-capacity", {"bricks": [{"template": "md3460-capacity", "count": 1}]}),
        ("disks", "nl-sas-6tb", {"bricks": [{"template": "md3460-performance", "count": 1, "disk": "nl-sas-6tb"}]}),
        ("tuning-profiles", "4mib-rpc", {"bricks": [{"template": "md3460-performance", "count": 1}], "tuning": "4mib-rpc"}),
    ],
)
def test_deleting_a_catalogue_record_that_designs_use_is_a_409_naming_them(api, django_user_model, kind, slug, spec):
    from planner.services import design_create

    owner = django_user_model.objects.create_user("user1", password="pw-user1-123456")
    design = design_create(owner=owner, name="Keeps it", spec=spec)
    staff = django_user_model.objects.create_user("staff1", password="pw-staff1-123456", is_staff=True)
    api.force_authenticate(staff)
    response = api.delete(f"/api/v1/catalogue/{kind}/{slug}/")
    assert response.status_code == 409, response.content
    assert "'Keeps it'" in response.json()["detail"] and response.json()["designs"] == [design.id]
    assert api.get(f"/api/v1/catalogue/{kind}/{slug}/").status_code == 200
