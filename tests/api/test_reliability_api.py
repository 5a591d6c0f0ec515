"""Reliability in the Evaluation through the API: rebuild hours, loss probability, declustered layouts,
disks' URE rates from the catalogue, and mixed generations."""

import pytest

pytestmark = pytest.mark.django_db

URL = "/api/v1/evaluate/"


def _spec(**raid):
    brick = {"template": "md3460-performance", "count": 8}
    if raid:
        brick["raid"] = raid
    return {"bricks": [brick], "metadata": {"placement": "none"}}


def test_evaluation_has_reliability(api):
    body = api.post(URL, _spec(), format="json").json()
    rel = body["reliability"]
    line = rel["lines"][0]
    assert line["ure_per_bit"] == 1e-15  # nl-sas-4tb's data sheet figure, from the catalogue
    assert line["disk_mttf_hours"] == round(8766 / 0.0063)  # AFR 0.63 %
    assert line["rebuild_hours"] > 0 and rel["rebuild_hours_max"] == line["rebuild_hours"]
    assert 0 < rel["annual_loss_probability"] < 1
    assert rel["mttdl_hours"] > 0
    assert body["ost_balance"] is None


def test_declustered_rebuilds_faster_through_the_api(api):
    classic = api.post(URL, _spec(), format="json").json()["reliability"]["lines"][0]
    declustered = api.post(URL, _spec(declustered=True), format="json").json()["reliability"]["lines"][0]
    assert declustered["declustered"] is True
    assert declustered["rebuild_hours"] < classic["rebuild_hours"]
    assert declustered["rebuild_hours"] == pytest.approx(
        classic["rebuild_hours"] * classic["pool_disks"] / declustered["pool_disks"], rel=0.01
    )


def test_declustered_raid10_is_a_400_naming_the_field(api):
    response = api.post(URL, _spec(level="raid10", data=5, parity=5, declustered=True), format="json")
    assert response.status_code == 400
    assert "declustered" in str(response.json()["bricks"])


def test_declustered_must_be_a_boolean(api):
    response = api.post(URL, _spec(declustered="yes please"), format="json")
    assert response.status_code == 400


def test_mixed_generations_warn_through_the_api(api):
    spec = {
        "bricks": [
            {"template": "md3460-performance", "count": 4, "disk": "nl-sas-4tb"},
            {"template": "md3460-performance", "count": 2, "disk": "nl-sas-10tb"},
        ],
        "metadata": {"placement": "none"},
    }
    body = api.post(URL, spec, format="json").json()
    balance = body["ost_balance"]
    assert balance["uneven"] is True
    assert balance["spread"] == pytest.approx(1.5, abs=0.01)
    assert balance["write_gbps_once_smaller_full"] < body["write_gbps"]
    assert any("OST sizes differ" in w for w in body["warnings"])


def test_catalogue_disks_show_their_ure_rate(api):
    body = api.get("/api/v1/catalogue/disks/nl-sas-4tb/").json()
    assert body["ure_per_bit"] == 1e-15
    assert "10^15" in body["sources"]["ure_per_bit"]


SOLVE = "/api/v1/solve/"
MD3460 = {"templates": ["md3460-performance", "md3460-capacity"], "disks": ["nl-sas-4tb"], "metadata": {"placement": "none"}}


def test_solve_honours_a_loss_probability_target(api):
    spec = {**MD3460, "disks": ["nl-sas-4tb", "nl-sas-2tb"]}
    free = api.post(SOLVE, {**spec, "targets": {"usable_pib": 2.0}}, format="json").json()
    cheapest = free["results"][0]
    assert cheapest["loss_probability"] > 1.8e-4  # four 4 TB capacity bricks: about 1.9e-4 a year
    body = api.post(SOLVE, {**spec, "targets": {"usable_pib": 2.0, "max_loss_probability": 1.8e-4}}, format="json").json()
    assert body["targets"]["max_loss_probability"] == 1.8e-4
    assert body["feasible"]
    assert all(r["loss_probability"] <= 1.8e-4 for r in body["results"] + body["frontier"])
    assert body["results"][0]["price"] > cheapest["price"]  # safety costs: smaller disks in part
    assert body["results"][0]["usable_pib"] >= 2.0
    # nothing meets a tiny target: the constraint is named in words
    none = api.post(SOLVE, {**spec, "targets": {"usable_pib": 2.0, "max_loss_probability": 1e-9}}, format="json").json()
    assert not none["feasible"]
    assert any(u["constraint"] == "max_loss_probability" and "data-loss probability" in u["message"] for u in none["unmet"])


def test_solve_refuses_a_probability_over_one(api):
    response = api.post(SOLVE, {**MD3460, "targets": {"usable_pib": 1.0, "max_loss_probability": 2}}, format="json")
    assert response.status_code == 400
    assert "max_loss_probability" in response.json()["targets"]
