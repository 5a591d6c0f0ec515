"""GET /api/v1/catalogue/<kind>/ and /<kind>/<slug>/ for every kind: paginated, searchable, constant queries."""

import pytest

from hardware_catalog.selectors import CATALOGUE_KINDS

pytestmark = pytest.mark.django_db

EXAMPLES = {
    "disks": ("nl-sas-4tb", "capacity_tb", 4.0),
    "servers": ("r620", "height_u", 1),
    "enclosures": ("md3460", "drive_slots", 60),
    "adapters": ("ib-fdr", "effective_gbps", 6.0),
    "switches": ("ib-sx6036", "ports", 36),
    "accessories": ("pdu-3ph-32a", "pdu_capacity_w", 17664.0),
    "racks": ("rack-42u", "units", 42),
    "tuning-profiles": ("large-io", "request_kib", 1024),
    "brick-templates": ("md3460-capacity", "expansions", 2),
    "metadata-cells": ("mds-cell", "slug", "mds-cell"),
    "price-lists": ("illustrative", "currency", "USD"),
}


def test_every_catalogue_kind_has_an_example():
    assert set(EXAMPLES) == set(CATALOGUE_KINDS)


@pytest.mark.parametrize("kind", CATALOGUE_KINDS)
def test_catalogue_list_is_paginated(api, kind):
    response = api.get(f"/api/v1/catalogue/{kind}/")
    assert response.status_code == 200
    body = response.json()
    assert set(body) == {"count", "next", "previous", "results"}
    assert body["count"] >= 1
    assert all("slug" in row for row in body["results"])


@pytest.mark.parametrize("kind", CATALOGUE_KINDS)
def test_catalogue_detail_by_slug(api, kind):
    slug, field, value = EXAMPLES[kind]
    response = api.get(f"/api/v1/catalogue/{kind}/{slug}/")
    assert response.status_code == 200
    assert response.json()[field] == pytest.approx(value) if isinstance(value, float) else response.json()[field] == value


@pytest.mark.parametrize("kind", CATALOGUE_KINDS)
def test_catalogue_unknown_slug_is_404(api, kind):
    assert api.get(f"/api/v1/catalogue/{kind}/no-such-thing/").status_code == 404


def test_catalogue_search_filters_rows(api):
    body = api.get("/api/v1/catalogue/disks/", {"search": "NL-SAS"}).json()
    assert body["count"] == 8
    body = api.get("/api/v1/catalogue/disks/", {"search": "nl-sas-16tb"}).json()
    assert [row["slug"] for row in body["results"]] == ["nl-sas-16tb"]
    assert api.get("/api/v1/catalogue/adapters/", {"search": "zzz-nothing"}).json()["count"] == 0


def test_catalogue_page_size_and_pages(api):
    first = api.get("/api/v1/catalogue/disks/", {"page_size": 5}).json()
    assert len(first["results"]) == 5 and first["next"]
    second = api.get(first["next"]).json()
    assert {r["slug"] for r in first["results"]}.isdisjoint({r["slug"] for r in second["results"]})
    assert api.get("/api/v1/catalogue/disks/", {"page": 999}).status_code == 404


def test_catalogue_records_carry_source_notes(api):
    disk = api.get("/api/v1/catalogue/disks/nl-sas-4tb/").json()
    assert "175" in disk["sources"]["read_mbps"]
    head = api.get("/api/v1/catalogue/enclosures/md3460/").json()
    assert "Derived from the reference study" in head["sources"]["controller_read_mbps"]


def test_catalogue_price_list_is_labelled_illustrative(api):
    body = api.get("/api/v1/catalogue/price-lists/illustrative/").json()
    assert body["illustrative"] is True
    assert "ILLUSTRATIVE" in body["notes"]


def test_catalogue_is_read_only_for_all_but_staff(api, django_user_model):
    assert api.post("/api/v1/catalogue/disks/", {"slug": "x"}, format="json").status_code == 401
    user = django_user_model.objects.create_user("ann", password="pw-long-enough-1")
    api.force_authenticate(user)
    assert api.delete("/api/v1/catalogue/disks/nl-sas-4tb/").status_code == 403
    assert api.post("/api/v1/catalogue/disks/", {"slug": "x"}, format="json").status_code == 403


def test_staff_add_a_disk_with_its_sources_and_a_price_list(api, django_user_model):
    staff = django_user_model.objects.create_user("sam", password="pw-long-enough-1", is_staff=True)
    api.force_authenticate(staff)
    disk = api.get("/api/v1/catalogue/disks/nl-sas-4tb/").json()
    new = {**disk, "slug": "nl-sas-20tb", "name": "20 TB NL-SAS", "capacity_tb": 20}
    created = api.post("/api/v1/catalogue/disks/", new, format="json")
    assert created.status_code == 201, created.content
    duplicate = api.post("/api/v1/catalogue/disks/", new, format="json")
    assert duplicate.status_code == 400 and "slug" in duplicate.json()
    no_sources = api.post("/api/v1/catalogue/disks/", {**new, "slug": "nl-sas-22tb", "sources": {}}, format="json")
    assert no_sources.status_code == 400 and "sources" in no_sources.json()
    quotes = {
        "slug": "vendor-quote-2026",
        "name": "Vendor quote",
        "currency": "EUR",
        "effective_date": "2026-11-01",
        "illustrative": False,
        "items": [{"kind": "disk", "item_slug": "nl-sas-20tb", "unit_price": 410.5}],
    }
    created = api.post("/api/v1/catalogue/price-lists/", quotes, format="json")
    assert created.status_code == 201, created.content
    assert created.json()["items"][0]["unit_price"] == 410.5


@pytest.mark.parametrize("kind", ["brick-templates", "racks", "metadata-cells", "price-lists", "disks"])
def test_catalogue_list_query_count_is_constant(api, kind, django_assert_max_num_queries):
    with django_assert_max_num_queries(4):
        api.get(f"/api/v1/catalogue/{kind}/", {"page_size": 200})


def test_catalogue_filters_are_validated(api):
    body = api.get("/api/v1/catalogue/enclosures/", {"kind": "raid_head"}).json()
    assert body["count"] == 3 and {r["kind"] for r in body["results"]} == {"raid_head"}
    assert api.get("/api/v1/catalogue/disks/", {"interface": "ssd-sas"}).json()["count"] == 1
    assert api.get("/api/v1/catalogue/brick-templates/", {"role": "capacity"}).json()["results"][0]["slug"] == "md3460-capacity"
    bad = api.get("/api/v1/catalogue/adapters/", {"kind": "carrier-pigeon"})
    assert bad.status_code == 400 and bad.json() == {"kind": ['"carrier-pigeon" is not a valid choice.']}
