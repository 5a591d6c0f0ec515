"""Compare designs; API tokens (create, use, revoke); anonymous rate limits; staff-only catalogue edits."""

import pytest

from tests.helpers import short_errors

pytestmark = pytest.mark.django_db


A = {"bricks": [{"template": "md3460-capacity", "count": 2}], "metadata": {"placement": "in_rack"}}
B = {"bricks": [{"template": "md3460-performance", "count": 6}], "metadata": {"placement": "in_rack"}}


def test_compare_inline_specs_anonymously_reads_the_study(api):
    response = api.post(
        "/api/v1/compare/", {"designs": [{"label": "A", "spec": A}, {"label": "B", "spec": B}], "reference": 1}, format="json"
    )
    assert response.status_code == 200, response.content
    rows = response.json()["rows"]
    assert [r["label"] for r in rows] == ["A", "B"]
    assert rows[0]["relative_price"] == pytest.approx(0.65, abs=0.03)
    assert rows[1]["relative_price"] == 1.0
    assert rows[0]["read_gbps"] == pytest.approx(9.0) and rows[1]["read_gbps"] == pytest.approx(27.0)
    for key in ("usable_pib", "price_total", "price_per_usable_pib", "price_per_read_gbps", "units_used", "power_w", "rack_count"):
        assert key in rows[0]
    assert rows[0]["price_per_usable_pib"] == pytest.approx(rows[0]["price_total"] / rows[0]["usable_pib"], rel=1e-3)


@pytest.mark.parametrize(
    "body, expected",
    [
        ({"designs": [{"spec": A}]}, {"designs": ["compare 2 to 8 designs"]}),
        ({"designs": [{"spec": A}] * 9}, {"designs": ["compare 2 to 8 designs"]}),
        ({"designs": [{"spec": A}, {"spec": B}], "reference": 2}, {"reference": ["must be an index into designs (0 to 1)"]}),
        ({"designs": [{"spec": A}, {}]}, {"designs": [{}, ["give either 'design' (an id) or 'spec' (an inline DesignSpec)"]]}),
        (
            {"designs": [{"spec": A}, {"design": 1}]},
            {"designs": [{}, {"design": ["sign in (or send a token) to compare saved designs; anonymous users may compare inline specs"]}]},
        ),
        (
            {"designs": [{"spec": A}, {"spec": {"bricks": [{"template": "x", "count": 1}]}}]},
            {"designs": [{}, {"bricks": [{"template": ["unknown brick template 'x'"]}]}]},  # a list, as for the other errors
        ),
    ],
)
def test_compare_bad_requests_name_the_entry(api, body, expected):
    response = api.post("/api/v1/compare/", body, format="json")
    assert response.status_code == 400
    assert short_errors(response.json()) == expected


def test_compare_saved_designs_by_id(api, django_user_model):
    user = django_user_model.objects.create_user("cat", password="pw-cat-123456")
    api.force_authenticate(user)
    a = api.post("/api/v1/designs/", {"name": "A", "spec": A}, format="json").json()["id"]
    b = api.post("/api/v1/designs/", {"name": "B", "spec": B}, format="json").json()["id"]
    rows = api.post("/api/v1/compare/", {"designs": [{"design": a}, {"design": b}], "reference": 1}, format="json").json()["rows"]
    assert [r["label"] for r in rows] == ["A", "B"]
    other = django_user_model.objects.create_user("dan", password="pw-dan-123456")
    api.force_authenticate(other)
    response = api.post("/api/v1/compare/", {"designs": [{"design": a}, {"spec": B}]}, format="json")
    assert response.json() == {"designs": [{"design": [f"no design {a} visible to you"]}, {}]}


def test_token_create_use_and_revoke(api, django_user_model):
    user = django_user_model.objects.create_user("eve", password="pw-eve-123456")
    api.force_authenticate(user)
    created = api.post("/api/v1/tokens/", {"name": "procurement script"}, format="json")
    assert created.status_code == 201
    key = created.json()["key"]
    assert key.startswith("srp_") and created.json()["prefix"] == key[:10]
    listed = api.get("/api/v1/tokens/").json()["results"]
    assert "key" not in listed[0] and listed[0]["active"] is True
    api.force_authenticate(None)
    api.credentials(HTTP_AUTHORIZATION=f"Token {key}")
    assert api.post("/api/v1/designs/", {"name": "from a script", "spec": A}, format="json").status_code == 201
    assert api.get("/api/v1/designs/").json()["count"] == 1
    assert api.delete(f"/api/v1/tokens/{created.json()['id']}/").status_code == 204
    refused = api.get("/api/v1/designs/")
    assert refused.status_code == 401
    assert refused.json()["detail"] == "Invalid or revoked token."


def test_token_header_errors_are_401(api):
    api.credentials(HTTP_AUTHORIZATION="Token")
    assert api.get("/api/v1/designs/").status_code == 401
    api.credentials(HTTP_AUTHORIZATION="Token not-a-real-key")
    assert api.get("/api/v1/catalogue/disks/").status_code == 401


def test_tokens_are_private_to_their_user(api, django_user_model):
    ann = django_user_model.objects.create_user("ann2", password="pw-ann-123456")
    bob = django_user_model.objects.create_user("bob2", password="pw-bob-123456")
    api.force_authenticate(ann)
    token_id = api.post("/api/v1/tokens/", {"name": "t"}, format="json").json()["id"]
    api.force_authenticate(bob)
    assert api.delete(f"/api/v1/tokens/{token_id}/").status_code == 404
    assert api.get("/api/v1/tokens/").json()["count"] == 0


def test_anonymous_use_is_rate_limited(api, settings):
    from django.core.cache import cache

    cache.clear()
    settings.API_ANON_RATE = "3/min"
    codes = [api.get("/api/v1/catalogue/racks/").status_code for _ in range(5)]
    assert codes[:3] == [200, 200, 200] and codes[3:] == [429, 429]
    cache.clear()


def test_only_staff_edit_the_catalogue(api, django_user_model):
    user = django_user_model.objects.create_user("fay", password="pw-fay-123456")
    api.force_authenticate(user)
    disk = api.get("/api/v1/catalogue/disks/nl-sas-4tb/").json()
    assert api.patch("/api/v1/catalogue/disks/nl-sas-4tb/", {"read_mbps": 1}, format="json").status_code == 403
    staff = django_user_model.objects.create_user("gus", password="pw-gus-123456", is_staff=True)
    api.force_authenticate(staff)
    response = api.patch("/api/v1/catalogue/disks/nl-sas-4tb/", {"read_mbps": 180}, format="json")
    assert response.status_code == 200, response.content
    assert response.json()["read_mbps"] == 180 and response.json()["sources"] == disk["sources"]
    bad = api.patch("/api/v1/catalogue/disks/nl-sas-4tb/", {"sources": {}}, format="json")
    assert bad.status_code == 400 and "read_mbps" in str(bad.json()["sources"])
    new_price = api.patch("/api/v1/catalogue/price-lists/illustrative/", {"pue": 1.3}, format="json")
    assert new_price.status_code == 200 and new_price.json()["pue"] == 1.3
    in_use = api.delete("/api/v1/catalogue/disks/nl-sas-4tb/")
    assert in_use.status_code == 409 and "in use" in in_use.json()["detail"]
