"""Reliability on the pages: the designer's totals, compare's rows and solve's loss target."""

import pytest

pytestmark = pytest.mark.django_db


def test_designer_has_rebuild_and_loss_in_the_totals(client):
    html = client.get("/designer/").content.decode()
    assert 'id="rebuild-hours"' in html and 'id="loss-probability"' in html


def test_compare_rows_show_the_annual_loss_probability(client):
    html = client.get("/compare/", {"d": ["ex:study-a", "ex:study-b"], "ref": "ex:study-b"}).content.decode()
    assert "Data loss a year" in html
    rows = html[html.index("<tbody>") : html.index("</tbody>")]
    first = rows[: rows.index("</tr>")]
    cell = first[first.index('class="num loss">') + len('class="num loss">') :].split("<")[0]
    assert "e-" in cell and 0 < float(cell) < 1


def test_compare_api_rows_carry_loss_and_rebuild(api):
    spec = lambda disk: {"bricks": [{"template": "md3460-performance", "count": 8, "disk": disk}]}  # noqa: E731
    body = api.post(
        "/api/v1/compare/", {"designs": [{"spec": spec("nl-sas-4tb")}, {"spec": spec("nl-sas-2tb")}], "reference": 1}, format="json"
    )
    assert body.status_code == 200, body.content
    big, small = body.json()["rows"]
    assert 0 < small["loss_probability"] < big["loss_probability"] < 1  # bigger disks: longer rebuilds, more read errors
    assert big["rebuild_hours"] == pytest.approx(2 * small["rebuild_hours"], rel=0.01)


def test_solve_page_takes_a_loss_target(client):
    page = client.get("/solve/").content.decode()
    assert 'name="max_loss_probability"' in page
    params = {
        "run": "1",
        "usable_pib": "2",
        "templates": ["md3460-performance", "md3460-capacity"],
        "disks": ["nl-sas-4tb", "nl-sas-2tb"],
        "placement": "none",
        "max_bricks": "40",
    }
    free = client.get("/solve/", params).content.decode()
    bound = client.get("/solve/", {**params, "max_loss_probability": "1.8e-4"}).content.decode()
    assert "data loss ≤ 1.8e-04 a year" in bound
    cells = lambda html: [float(c.split("<")[0]) for c in html[html.index("<tbody>") :].split('class="num loss">')[1:]]  # noqa: E731
    assert max(cells(free)) > 1.8e-4
    assert cells(bound) and max(cells(bound)) <= 1.8e-4


def test_solve_page_refuses_a_word_for_the_loss_target(client):
    response = client.get("/solve/", {"run": "1", "usable_pib": "1", "max_loss_probability": "low"})
    assert response.status_code == 400


def test_catalogue_page_lists_each_disks_ure_rate(client):
    html = client.get("/catalogue/").content.decode()
    assert "URE per bit" in html
    row = html[html.index('data-slug="nl-sas-4tb"') :].split("</tr>")[0]
    assert "1e-15" in row and "Unrecoverable read errors per bit" in row


def test_solve_page_ticks_what_the_search_searched(client):
    """A fresh page suggests the study's bricks; a search run with no template ticked searched every
    template, and the form must not show the suggestion ticked over its answers."""
    ticked = lambda html: {
        part.split('value="')[1].split('"')[0]
        for part in html.split("<input")[1:]
        if " checked" in part.split(">")[0] and 'name="templates"' in part.split(">")[0]
    }  # noqa: E731
    assert ticked(client.get("/solve/").content.decode()) == {"md3460-performance", "md3460-capacity"}
    ran = client.get("/solve/", {"run": "1", "usable_pib": "0.5", "placement": "none", "max_bricks": "10"}).content.decode()
    assert ticked(ran) == set()
    chosen = client.get("/solve/", {"run": "1", "usable_pib": "0.5", "templates": ["jbod-zfs"], "placement": "none", "max_bricks": "10"})
    assert ticked(chosen.content.decode()) == {"jbod-zfs"}
