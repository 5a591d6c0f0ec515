"""Relative price where people work (issue 13): the designer's totals, "My designs" (figures, sorting,
multi-select to Compare, evaluated in one batch), the shared page; one figure through the engine."""

import re

import pytest

from planner import engine
from planner.services import design_create, design_share, example_design

pytestmark = pytest.mark.django_db
A = {"bricks": [{"template": "md3460-capacity", "count": 2}], "metadata": {"placement": "in_rack"}}
D = {"bricks": [{"template": "md3460-performance", "count": 8}], "metadata": {"placement": "none"}}


def _evaluate(client, spec, reference=None):
    return client.post("/designer/evaluate/", {"spec": spec, "reference": reference}, content_type="application/json")


def test_designer_evaluate_gives_the_price_relative_to_the_chosen_reference(client):
    same = _evaluate(client, example_design(slug="study-d")["spec"], "ex:study-d").json()
    assert same["relative"]["relative_price"] == pytest.approx(1.0)
    assert same["relative"]["name"].startswith("Study rack D")
    body = _evaluate(client, example_design(slug="study-a")["spec"], "ex:study-b").json()
    # the compare page's figure for the study's pair (A is 0.65 of B)
    assert round(body["relative"]["relative_price"], 2) == 0.65
    assert body["relative"]["relative_price"] == pytest.approx(
        engine.cost.relative_price(body["evaluation"]["price"]["total"], body["relative"]["price_total"]), abs=1e-4
    )
    assert _evaluate(client, D).json()["relative"] is None


def test_designer_evaluate_names_an_unknown_reference(client, django_user_model):
    response = _evaluate(client, D, "ex:nope")
    assert response.status_code == 400 and "no reference design" in response.json()["reference"][0]
    ann = django_user_model.objects.create_user("ann", password="pw-ann-123456")
    theirs = design_create(owner=ann, name="Ann's", spec=D)
    assert _evaluate(client, D, str(theirs.id)).status_code == 400  # not visible to an anonymous visitor
    client.force_login(ann)
    assert _evaluate(client, D, str(theirs.id)).json()["relative"]["relative_price"] == pytest.approx(1.0)


def test_designer_offers_examples_and_saved_designs_as_references(client, django_user_model):
    ann = django_user_model.objects.create_user("ann", password="pw-ann-123456")
    mine = design_create(owner=ann, name="Ann's rack", spec=D)
    client.force_login(ann)
    html = client.get("/designer/", {"ref": "ex:study-b"}).content.decode()
    select = html[html.index('<select id="reference">') : html.index("</select>", html.index('<select id="reference">'))]
    assert 'value="ex:study-b"' in select and f'value="{mine.id}"' in select
    assert '"reference": "ex:study-b"' in html


def _rows(html):
    body = html[html.index("<tbody>") : html.index("</tbody>")]
    return re.findall(r'<tr data-design="(\d+)">(.*?)</tr>', body, re.S)


def test_my_designs_lists_figures_and_relative_price_sorted_by_any_column(client, django_user_model):
    ann = django_user_model.objects.create_user("ann", password="pw-ann-123456")
    a = design_create(owner=ann, name="Rack A", spec=A)
    d = design_create(owner=ann, name="Rack D", spec=D)
    client.force_login(ann)
    html = client.get("/designs/", {"ref": str(d.id), "sort": "price_total"}).content.decode()
    rows = _rows(html)
    assert [int(r[0]) for r in rows] == [a.id, d.id]  # cheapest first
    a_row, d_row = rows[0][1], rows[1][1]
    assert 'data-col="usable_pib">1.0' in a_row and 'data-col="read_gbps">9.0' in a_row
    assert re.search(r'data-col="price_total">\d{1,3}(,\d{3})+ USD', a_row)  # thousands separators, no cents
    assert "<strong>1.00×</strong>" in d_row and 'data-col="rack_count">1' in d_row
    assert 'id="reference-note"' in html
    descending = client.get("/designs/", {"ref": str(d.id), "sort": "-price_total"}).content.decode()
    assert [int(r[0]) for r in _rows(descending)] == [d.id, a.id]
    by_read = client.get("/designs/", {"sort": "-read_gbps"}).content.decode()
    assert [int(r[0]) for r in _rows(by_read)] == [d.id, a.id]
    assert 'href="?sort=name"' in by_read  # every column is a sort link
    # multi-select goes to Compare with the reference
    assert 'action="/compare/"' in html and f'name="d" value="{a.id}"' in html and f'name="ref" value="{d.id}"' in html


def test_my_designs_evaluates_the_list_in_one_batch(client, django_user_model, monkeypatch):
    ann = django_user_model.objects.create_user("ann", password="pw-ann-123456")
    for i in range(5):
        design_create(owner=ann, name=f"Rack {i}", spec=D)
    calls = []
    real = engine.evaluate_many
    monkeypatch.setattr(engine, "evaluate_many", lambda designs: calls.append(len(designs)) or real(designs))
    client.force_login(ann)
    assert client.get("/designs/").status_code == 200
    assert calls == [5]


def test_compare_takes_a_reference_that_was_not_ticked(client):
    html = client.get("/compare/", {"d": ["ex:study-a", "ex:study-c"], "ref": "ex:study-b"}).content.decode()
    assert "not among the chosen" not in html
    assert "Study rack B" in html[html.index("<tbody>") :] and "<strong>0.65</strong>" in html


def test_shared_page_shows_the_relative_price_to_a_chosen_reference(client, django_user_model):
    ann = django_user_model.objects.create_user("ann", password="pw-ann-123456")
    design = design_create(owner=ann, name="Shared rack D", spec=D)
    design_share(design=design, link=True)
    design.refresh_from_db()
    html = client.get(f"/shared/{design.share_token}/", {"ref": "ex:study-d"}).content.decode()
    assert '<strong id="relative-price">1.00×</strong>' in html and 'data-reference="ex:study-d"' in html
    assert "relative-price" not in client.get(f"/shared/{design.share_token}/").content.decode().split("<dl")[1].split("</dl>")[0]
    assert "no reference design" in client.get(f"/shared/{design.share_token}/", {"ref": "ex:nope"}).content.decode()
