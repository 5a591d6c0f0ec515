"""The plans API: create/read/update/delete, 400s naming the field, 409 on a stale version, ownership (404
for others), sharing, the timeline and the plan sheet (PDF)."""

import datetime
import io

import pytest

pytestmark = pytest.mark.django_db

SPEC_2 = {"bricks": [{"template": "md3460-performance", "count": 2}], "metadata": {"placement": "none"}}
YEAR = datetime.date.today().year


@pytest.fixture
def ann(django_user_model):
    return django_user_model.objects.create_user("ann", password="pw-ann-123456")


@pytest.fixture
def bob(django_user_model):
    return django_user_model.objects.create_user("bob", password="pw-bob-123456")


@pytest.fixture
def ann_api(api, ann):
    api.force_authenticate(ann)
    return api


def _body(**extra):
    return {
        "start_year": YEAR,
        "demand": {"usable_pib": 0.3, "growth_per_year": 0.25},
        "phases": [{"year": YEAR, "add": [{"spec": SPEC_2, "label": "A"}]}],
        "settings": {"horizon_years": 5, "propose": False},
        **extra,
    }


def _create(client, body=None, name="Scratch"):
    response = client.post("/api/v1/plans/", {"name": name, "body": body or _body()}, format="json")
    assert response.status_code == 201, response.content
    return response.json()


def test_plan_create_retrieve_update_delete(ann_api):
    plan = _create(ann_api)
    assert plan["version"] == 1 and plan["owner"] == "ann" and plan["is_owner"]
    assert ann_api.get(f"/api/v1/plans/{plan['id']}/").json()["name"] == "Scratch"
    assert [p["id"] for p in ann_api.get("/api/v1/plans/").json()["results"]] == [plan["id"]]
    changed = ann_api.put(f"/api/v1/plans/{plan['id']}/", {"version": 1, "name": "Scratch 2"}, format="json")
    assert changed.status_code == 200 and changed.json()["version"] == 2
    assert ann_api.delete(f"/api/v1/plans/{plan['id']}/").status_code == 204


def test_plan_stale_version_is_409_and_nothing_changes(ann_api):
    plan = _create(ann_api)
    assert ann_api.patch(f"/api/v1/plans/{plan['id']}/", {"version": 1, "name": "first"}, format="json").status_code == 200
    stale = ann_api.patch(f"/api/v1/plans/{plan['id']}/", {"version": 1, "name": "second"}, format="json")
    assert stale.status_code == 409
    assert stale.json()["current_version"] == 2 and stale.json()["plan"]["name"] == "first"
    assert ann_api.get(f"/api/v1/plans/{plan['id']}/").json()["name"] == "first"
    missing = ann_api.patch(f"/api/v1/plans/{plan['id']}/", {"name": "third"}, format="json")
    assert missing.status_code == 400 and "version" in missing.json()


@pytest.mark.parametrize(
    ("change", "path"),
    [
        ({"start_year": YEAR - 5}, ("body", "start_year")),
        ({"demand": {"usable_pib": 1.0, "growth_per_year": -1.0}}, ("body", "demand", "growth_per_year")),
        ({"demand": {"usable_pib": 1.0, "growth_per_year": -1.5}}, ("body", "demand", "growth_per_year")),
        ({"phases": [{"year": YEAR, "add": [{"spec": SPEC_2}]}] * 1000}, ("body", "phases")),
        ({"phases": [{"year": YEAR + 40, "add": [{"spec": SPEC_2}]}]}, ("body", "phases", "0", "year")),
        ({"phases": [{"year": YEAR, "add": [{"design": 999999}]}]}, ("body", "phases", "0", "add", "0", "design")),
        (
            {"phases": [{"year": YEAR, "add": [{"spec": SPEC_2}]}, {"year": YEAR + 1, "retire": ["nope"]}]},
            ("body", "phases", "1", "retire"),
        ),
        (
            {"phases": [{"year": YEAR, "add": [{"spec": {"bricks": [{"template": "no-such", "count": 1}]}}]}]},
            ("body", "phases", "0", "add", "0", "spec"),
        ),
        ({"settings": {"horizon_years": 31}}, ("body", "settings", "horizon_years")),
        ({"demand": {"usable_pib": 1.0, "throughput": {"job_slots": 10}}}, ("body", "demand", "throughput", "read_mbps_per_job")),
    ],
)
def test_plan_bad_input_is_400_naming_the_field(ann_api, change, path):
    response = ann_api.post("/api/v1/plans/", {"name": "bad", "body": _body(**change)}, format="json")
    assert response.status_code == 400, response.content
    node = response.json()
    for key in path:
        if isinstance(node, list):  # DRF lists a many=True serializer's errors by index
            node = node[int(key)]
        else:
            assert key in node, (key, node)
            node = node[key]


def test_plan_of_another_user_is_404_and_shared_users_read_only(ann_api, api, bob):
    plan = _create(ann_api)
    from rest_framework.test import APIClient

    bob_api = APIClient()
    bob_api.force_authenticate(bob)
    assert bob_api.get(f"/api/v1/plans/{plan['id']}/").status_code == 404
    assert bob_api.get(f"/api/v1/plans/{plan['id']}/timeline/").status_code == 404
    assert bob_api.patch(f"/api/v1/plans/{plan['id']}/", {"version": 1, "name": "mine"}, format="json").status_code == 404
    assert bob_api.delete(f"/api/v1/plans/{plan['id']}/").status_code == 404
    assert bob_api.get("/api/v1/plans/").json()["results"] == []
    shared = ann_api.post(f"/api/v1/plans/{plan['id']}/share/", {"users": ["bob"], "link": True}, format="json").json()
    assert shared["shared_with"] == ["bob"] and shared["share_url"]
    assert bob_api.get(f"/api/v1/plans/{plan['id']}/").json()["is_owner"] is False
    assert bob_api.patch(f"/api/v1/plans/{plan['id']}/", {"version": 1, "name": "mine"}, format="json").status_code == 403
    anonymous = APIClient().get(shared["share_url"])
    assert anonymous.status_code == 200 and anonymous.json()["timeline"]["years"][0] == YEAR
    assert APIClient().get("/api/v1/plans/shared/not-a-token/").status_code == 404


def test_plan_with_a_saved_design_timeline_and_sheet(ann_api):
    design = ann_api.post("/api/v1/designs/", {"name": "Rack D", "spec": SPEC_2}, format="json").json()
    body = _body(phases=[{"year": YEAR, "add": [{"design": design["id"]}]}, {"year": YEAR + 2, "add": [{"design": design["id"]}]}])
    plan = _create(ann_api, body)
    timeline = ann_api.get(plan["timeline_url"]).json()
    assert [d["label"] for d in timeline["designs"]] == ["Rack D", "Rack D #2"]
    assert [d["name"] for d in timeline["designs"]] == ["Rack D", "Rack D"] and timeline["designs"][0]["design"] == design["id"]
    assert timeline["rows"][2]["added"] == ["Rack D #2"] and len(timeline["rows"][2]["in_service"]) == 2
    assert timeline["run_out"]["capacity"] == YEAR + 1  # 0.3 x 1.25 = 0.375 > 0.3410 PiB of one design
    response = ann_api.get(plan["sheet_url"])
    assert response.status_code == 200 and response["Content-Type"] == "application/pdf"
    from pypdf import PdfReader

    text = "".join(page.extract_text() for page in PdfReader(io.BytesIO(response.content)).pages)
    assert "Scratch" in text and "CAPACITY RUNS OUT" in text.upper() and str(YEAR + 1) in text and "Rack D #2" in text


def test_inline_designs_are_named_as_inline_not_untitled(ann_api):
    body = _body(phases=[{"year": YEAR, "add": [{"spec": SPEC_2}, {"spec": {**SPEC_2, "name": "Scratch rack"}}]}])
    timeline = ann_api.get(_create(ann_api, body)["timeline_url"]).json()
    assert [(d["label"], d["name"]) for d in timeline["designs"]] == [
        ("Phase 1 design 1", "Inline design (not saved)"),
        ("Scratch rack", "Scratch rack"),
    ]


def test_plan_documented_in_openapi(api):
    schema = api.get("/api/schema/", HTTP_ACCEPT="application/json").json()
    assert "/api/v1/plans/{id}/timeline/" in schema["paths"]
    assert "/api/v1/plans/{id}/sheet/" in schema["paths"]
    assert any(name.startswith("PlanSpec") for name in schema["components"]["schemas"])


def test_plan_list_queries_do_not_grow_with_plans(ann_api, ann, bob, django_assert_max_num_queries):
    from planner.models import Plan

    for i in range(12):
        plan = Plan.objects.create(owner=ann, name=f"plan {i}", body=_body())
        plan.shared_with.set([bob])
    with django_assert_max_num_queries(6):  # session user, count, page, shared_with prefetch (+ savepoints)
        response = ann_api.get("/api/v1/plans/")
    assert response.status_code == 200 and response.json()["count"] == 12
    assert all(p["shared_with"] == ["bob"] for p in response.json()["results"])
