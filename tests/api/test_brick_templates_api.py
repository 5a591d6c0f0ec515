"""Users' brick templates (/api/v1/brick-templates/): composed of catalogue parts, owned, shareable
read-only, copied from the catalogue's presets; usable in evaluate, saved designs, compare, solve
and exports; refused, naming the field, when the parts cannot hold them."""

import csv
import io

import pytest

from planner.services import design_create, token_create

pytestmark = pytest.mark.django_db
URL = "/api/v1/brick-templates/"
CATALOGUE = {"iscsi-ps6500", "jbod-zfs", "md3460-capacity", "md3460-performance", "r510-internal", "r730xd-internal"}
R730XD = {
    "slug": "ann-r730xd-6tb-10g",
    "name": "R730xd, 16 x 6 TB, 10GbE",
    "server": "r730xd",
    "head": "r730xd-bays",
    "disk": "nl-sas-6tb",
    "network_adapter": "eth-10g",
    "raid_level": "raid6",
    "raid_data_disks": 14,
    "groups_per_enclosure": 1,
}
MD3460 = {
    "slug": "ann-md3460",
    "name": "MD3460, my way",
    "server": "r620",
    "hba": "sas-hba-12g",
    "hba_count": 2,
    "network_adapter": "ib-fdr",
    "head": "md3460",
    "expansion": "md3060e",
    "expansions": 0,
    "disk": "nl-sas-4tb",
    "raid_level": "raid6",
    "raid_data_disks": 8,
    "groups_per_enclosure": 6,
}
GRID = {"bricks": [{"template": "ann-r730xd-6tb-10g", "count": 20}], "metadata": {"placement": "none"}}


@pytest.fixture
def ann(django_user_model):
    return django_user_model.objects.create_user("ann", password="pw-ann-123456")


@pytest.fixture
def bob(django_user_model):
    return django_user_model.objects.create_user("bob", password="pw-bob-123456")


@pytest.fixture
def carl(django_user_model):
    return django_user_model.objects.create_user("carl", password="pw-carl-123456")


def _as(user):
    from rest_framework.test import APIClient

    client = APIClient()
    if user is not None:
        client.force_authenticate(user)
    return client


@pytest.fixture
def mine(ann):
    response = _as(ann).post(URL, R730XD, format="json")
    assert response.status_code == 201, response.content
    return response.json()


def _slugs(response) -> set[str]:
    assert response.status_code == 200, response.content
    return {t["slug"] for t in response.json()["results"]}


def test_brick_template_create_fills_what_the_parts_say_and_notes_its_sources(ann, mine):
    assert mine["owner"] == "ann" and mine["is_owner"] is True and mine["catalogue"] is False
    assert mine["raid_parity_disks"] == 2  # from the level
    assert mine["host_ports"] == 2  # the internal controller's ports
    assert mine["role"] == "internal" and mine["head_kind"] == "internal" and mine["drive_slots"] == 16
    assert mine["sources"] and all(
        note.startswith("user template by ann: composed of catalogue parts") for note in mine["sources"].values()
    )
    fetched = _as(ann).get(f"{URL}ann-r730xd-6tb-10g/")
    assert fetched.status_code == 200 and fetched.json()["disk"] == "nl-sas-6tb"


def test_brick_template_list_shows_the_catalogue_and_your_own_and_shared(ann, bob, carl, mine):
    assert _as(ann).post(f"{URL}ann-r730xd-6tb-10g/share/", {"users": ["carl"]}, format="json").status_code == 200
    assert _slugs(_as(ann).get(URL)) == CATALOGUE | {"ann-r730xd-6tb-10g"}
    assert _slugs(_as(carl).get(URL)) == CATALOGUE | {"ann-r730xd-6tb-10g"}
    assert _slugs(_as(bob).get(URL)) == CATALOGUE
    assert _slugs(_as(None).get(URL)) == CATALOGUE
    assert _slugs(_as(ann).get(URL, {"owned": "true"})) == {"ann-r730xd-6tb-10g"}
    assert _slugs(_as(ann).get(URL, {"owned": "false"})) == CATALOGUE
    assert _slugs(_as(carl).get(URL, {"owned": "false"})) == CATALOGUE | {"ann-r730xd-6tb-10g"}
    assert _slugs(_as(None).get(URL, {"owned": "true"})) == set()
    assert _slugs(_as(ann).get(URL, {"search": "10GbE"})) == {"ann-r730xd-6tb-10g"}
    assert _as(ann).get(URL, {"owned": "perhaps"}).status_code == 400
    rows = _as(carl).get(URL).json()["results"]
    assert [r["catalogue"] for r in rows] == sorted((r["catalogue"] for r in rows), reverse=True)  # presets first
    shared = next(r for r in rows if r["slug"] == "ann-r730xd-6tb-10g")
    assert shared["owner"] == "ann" and shared["is_owner"] is False and shared["shared_with"] is None
    # the catalogue endpoint still lists the catalogue's only
    assert {t["slug"] for t in _as(ann).get("/api/v1/catalogue/brick-templates/").json()["results"]} == CATALOGUE


def test_brick_template_of_another_user_is_404_and_changes_by_readers_are_403(ann, bob, carl, mine):
    url = f"{URL}ann-r730xd-6tb-10g/"
    assert _as(bob).get(url).status_code == 404
    assert _as(bob).patch(url, {"disk": "nl-sas-8tb"}, format="json").status_code == 404
    assert _as(bob).delete(url).status_code == 404
    assert _as(None).get(url).status_code == 404
    _as(ann).post(f"{url}share/", {"users": ["carl"]}, format="json")
    assert _as(carl).get(url).status_code == 200
    assert _as(carl).patch(url, {"disk": "nl-sas-8tb"}, format="json").status_code == 403
    assert _as(carl).delete(url).status_code == 403
    assert _as(carl).post(f"{url}share/", {"users": ["bob"]}, format="json").status_code == 403
    catalogue = _as(ann).patch(f"{URL}md3460-performance/", {"disk": "nl-sas-8tb"}, format="json")
    assert catalogue.status_code == 403 and "catalogue" in catalogue.json()["detail"]
    assert _as(ann).delete(f"{URL}md3460-performance/").status_code == 403
    assert _as(None).post(URL, {**R730XD, "slug": "anon"}, format="json").status_code in (401, 403)


def test_brick_template_update_by_its_owner(ann, mine):
    url = f"{URL}ann-r730xd-6tb-10g/"
    changed = _as(ann).patch(url, {"disk": "nl-sas-8tb", "raid_level": "raid5", "raid_data_disks": 15}, format="json")
    assert changed.status_code == 200, changed.content
    assert changed.json()["disk"] == "nl-sas-8tb" and changed.json()["raid_parity_disks"] == 1
    slug = _as(ann).patch(url, {"slug": "ann-renamed"}, format="json")
    assert slug.status_code == 400 and "copy" in slug.json()["slug"][0]
    bad = _as(ann).patch(url, {"groups_per_enclosure": 2}, format="json")
    assert bad.status_code == 400 and "groups_per_enclosure" in bad.json()
    assert _as(ann).get(url).json()["groups_per_enclosure"] == 1  # nothing changed
    put = _as(ann).put(url, {**R730XD, "network_adapter": "eth-25g"}, format="json")
    assert put.status_code == 200 and put.json()["network_adapter"] == "eth-25g" and put.json()["disk"] == "nl-sas-6tb"


def test_evaluate_with_your_template_and_unknown_to_others(ann, bob, mine):
    response = _as(ann).post("/api/v1/evaluate/", GRID, format="json")
    assert response.status_code == 200, response.content
    ev = response.json()
    assert ev["usable_pib"] == pytest.approx(1.49, abs=0.01)  # 20 x 14 x 6 TB
    assert ev["counts"]["servers"] == 20 and ev["counts"]["disks"] == 320
    for client in (_as(bob), _as(None)):
        refused = client.post("/api/v1/evaluate/", GRID, format="json")
        assert refused.status_code == 400
        assert refused.json()["bricks"][0]["template"][0].startswith("unknown brick template 'ann-r730xd-6tb-10g'")


def test_your_template_in_saved_designs_compare_solve_and_exports(ann, mine, django_capture_on_commit_callbacks):
    api = _as(ann)
    saved = api.post("/api/v1/designs/", {"name": "Grid", "spec": GRID}, format="json")
    assert saved.status_code == 201, saved.content
    design_id = saved.json()["id"]
    evaluation = api.get(f"/api/v1/designs/{design_id}/evaluation/").json()
    assert evaluation["usable_pib"] == pytest.approx(1.49, abs=0.01)

    compared = api.post(
        "/api/v1/compare/",
        {
            "designs": [
                {"design": design_id},
                {"label": "inline", "spec": {**GRID, "bricks": [{"template": "ann-r730xd-6tb-10g", "count": 10}]}},
            ]
        },
        format="json",
    )
    assert compared.status_code == 200, compared.content
    assert compared.json()["rows"][1]["usable_pib"] == pytest.approx(0.746, abs=0.01)

    solved = api.post(
        "/api/v1/solve/",
        {
            "targets": {"usable_pib": 1.0},
            "templates": ["ann-r730xd-6tb-10g"],
            "failover": "none",
            "metadata": {"placement": "none"},
            "max_bricks": 40,
        },
        format="json",
    )
    assert solved.status_code == 200, solved.content
    best = solved.json()["results"][0]
    assert best["template"] == "ann-r730xd-6tb-10g" and best["usable_pib"] >= 1.0
    assert (
        _as(None).post("/api/v1/solve/", {"targets": {"usable_pib": 1.0}, "templates": ["ann-r730xd-6tb-10g"]}, format="json").status_code
        == 400
    )

    with django_capture_on_commit_callbacks(execute=True):
        job = api.post(f"/api/v1/designs/{design_id}/exports/", {"format": "csv"}, format="json")
    assert job.status_code in (200, 202), job.content
    status = api.get(job.json()["status_url"]).json()
    assert status["status"] == "done", status
    body = b"".join(api.get(status["download_url"]).streaming_content).decode()
    disks = next(r for r in csv.reader(io.StringIO(body)) if len(r) > 3 and r[3] == "nl-sas-6tb")
    assert disks[5] == "320"


REFUSALS = [
    ("more disks than the head's bays", R730XD, {"groups_per_enclosure": 2}, "groups_per_enclosure", "16 drives"),
    ("spares over the bays", R730XD, {"spares_per_enclosure": 1}, "groups_per_enclosure", "16 drives"),
    ("3.5-inch disk in 2.5-inch bays", MD3460, {"head": "md3420", "expansion": None, "groups_per_enclosure": 2}, "disk", "2.5-inch"),
    ("adapters over the PCIe slots", MD3460, {"network_adapter_count": 2}, "network_adapter_count", "3 PCIe slots"),
    # too many HBAs: the message is on hba_count too (it was only on network_adapter_count, "1 network adapters")
    ("HBAs over the PCIe slots", MD3460, {"hba_count": 3}, "hba_count", "3 storage adapters + 1 network adapter need 4"),
    ("raidz on RAID controllers", MD3460, {"raid_level": "raidz2"}, "raid_level", "ZFS"),
    (
        "RAID 10 with parity other than data",
        MD3460,
        {"raid_level": "raid10", "raid_data_disks": 5, "raid_parity_disks": 4},
        "raid_parity_disks",
        "equal data",
    ),
    ("RAID 6 with one parity disk", MD3460, {"raid_parity_disks": 1}, "raid_parity_disks", "raid6 has 2"),
    ("RAID 5 with two parity disks", MD3460, {"raid_level": "raid5", "raid_parity_disks": 2}, "raid_parity_disks", "raid5 has 1"),
    ("a RAID head as the expansion", MD3460, {"expansion": "md3400", "expansions": 1}, "expansion", "not an expansion enclosure"),
    ("expansions over the head's limit", MD3460, {"expansions": 3}, "expansions", "at most 2"),
    ("a SAS HBA towards the clients", MD3460, {"network_adapter": "sas-hba-6g"}, "network_adapter", "SAS HBA"),
    ("an expansion enclosure as the head", MD3460, {"head": "md3060e", "expansion": None}, "head", "expansion enclosure"),
    ("more storage ports than the HBAs have", MD3460, {"host_ports": 6}, "host_ports", "at most 4"),
    ("an unknown part", MD3460, {"disk": "nl-sas-99tb"}, "disk", "unknown disk 'nl-sas-99tb'"),
]


@pytest.mark.parametrize("what, base, change, field, words", REFUSALS, ids=[r[0] for r in REFUSALS])
def test_brick_template_the_parts_cannot_hold_is_refused_naming_the_field(ann, what, base, change, field, words):
    response = _as(ann).post(URL, {**base, **change}, format="json")
    assert response.status_code == 400, (what, response.content)
    body = response.json()
    assert field in body, body
    assert words in " ".join(body[field]), body
    assert not _as(ann).get(URL, {"owned": "true"}).json()["results"]


def test_brick_template_slug_is_unique_among_everyones(ann, bob, mine):
    taken = _as(bob).post(URL, R730XD, format="json")
    assert taken.status_code == 400
    assert "'ann-r730xd-6tb-10g' is taken" in taken.json()["slug"][0] and "bob-ann-r730xd-6tb-10g" in taken.json()["slug"][0]
    preset = _as(bob).post(URL, {**R730XD, "slug": "md3460-performance"}, format="json")
    assert "try 'bob-md3460-performance'" in preset.json()["slug"][0]
    # a slug differing only in case is the same slug: two templates nobody could tell apart in a list
    cased = _as(bob).post(URL, {**R730XD, "slug": "MD3460-performance"}, format="json")
    assert cased.status_code == 400
    assert "as 'md3460-performance'" in cased.json()["slug"][0] and "try 'bob-md3460-performance'" in cased.json()["slug"][0]
    copy = _as(bob).post(f"{URL}md3460-performance/copy/", {"slug": "ANN-r730xd-6tb-10g"}, format="json")
    assert copy.status_code == 400 and "as 'ann-r730xd-6tb-10g'" in copy.json()["slug"][0]


def test_brick_template_share_lets_others_use_it_and_unsharing_stops_them(ann, bob, mine):
    url = f"{URL}ann-r730xd-6tb-10g/share/"
    unknown = _as(ann).post(url, {"users": ["bob", "nobody"]}, format="json")
    assert unknown.status_code == 400 and unknown.json() == {"users": ["unknown user 'nobody'"]}
    shared = _as(ann).post(url, {"users": ["bob", "ann"]}, format="json")
    assert shared.status_code == 200 and shared.json()["shared_with"] == ["bob"]
    assert _as(bob).post("/api/v1/evaluate/", GRID, format="json").status_code == 200
    assert _as(ann).post(url, {"users": []}, format="json").json()["shared_with"] == []
    assert _as(bob).post("/api/v1/evaluate/", GRID, format="json").status_code == 400


def test_brick_template_copy_of_a_preset_and_of_a_shared_one(ann, bob, mine):
    copy = _as(bob).post(f"{URL}md3460-capacity/copy/", {}, format="json")
    assert copy.status_code == 201, copy.content
    body = copy.json()
    assert body["slug"] == "bob-md3460-capacity" and body["owner"] == "bob" and body["catalogue"] is False
    assert body["expansions"] == 2 and body["head"] == "md3460" and body["hba_count"] == 2
    assert body["sources"]["host_ports"].startswith("user template by bob: composed of catalogue parts; copied from 'md3460-capacity'")
    again = _as(bob).post(f"{URL}md3460-capacity/copy/", {}, format="json")
    assert again.json()["slug"] == "bob-md3460-capacity-2"
    line = _as(bob).post(
        f"{URL}r730xd-internal/copy/",
        {
            "slug": "bob-r730xd",
            "name": "R730xd 6 TB 10GbE",
            "disk": "nl-sas-6tb",
            "adapter": "eth-10g",
            "raid": {"level": "raid5", "data": 15},
        },
        format="json",
    )
    assert line.status_code == 201, line.content
    assert (line.json()["disk"], line.json()["network_adapter"], line.json()["raid_level"], line.json()["raid_parity_disks"]) == (
        "nl-sas-6tb",
        "eth-10g",
        "raid5",
        1,
    )
    too_many = _as(bob).post(f"{URL}r730xd-internal/copy/", {"slug": "bob-x", "raid": {"groups": 2}}, format="json")
    assert too_many.status_code == 400 and "groups_per_enclosure" in too_many.json()
    assert _as(bob).post(f"{URL}ann-r730xd-6tb-10g/copy/", {}, format="json").status_code == 404  # not shared with bob
    _as(ann).post(f"{URL}ann-r730xd-6tb-10g/share/", {"users": ["bob"]}, format="json")
    assert _as(bob).post(f"{URL}ann-r730xd-6tb-10g/copy/", {}, format="json").json()["slug"] == "bob-ann-r730xd-6tb-10g"
    assert _as(None).post(f"{URL}md3460-capacity/copy/", {}, format="json").status_code in (401, 403)


def test_brick_template_delete_in_use_is_409_naming_the_designs(ann, bob, mine):
    design = design_create(owner=ann, name="Grid site", spec=GRID)
    _as(ann).post(f"{URL}ann-r730xd-6tb-10g/share/", {"users": ["bob"]}, format="json")
    design_create(owner=bob, name="Bob's grid", spec=GRID)
    refused = _as(ann).delete(f"{URL}ann-r730xd-6tb-10g/")
    assert refused.status_code == 409
    body = refused.json()
    assert f"'Grid site' (#{design.id})" in body["detail"] and "1 design of other users" in body["detail"]
    assert body["designs"] == [{"id": design.id, "name": "Grid site", "owner": "ann"}] and body["other_designs"] == 1
    assert "Bob's grid" not in body["detail"]  # other users' design names are theirs
    from planner.models import Design

    Design.objects.filter(spec__isnull=False).delete()
    assert _as(ann).delete(f"{URL}ann-r730xd-6tb-10g/").status_code == 204
    assert _as(ann).get(f"{URL}ann-r730xd-6tb-10g/").status_code == 404


def test_brick_templates_with_an_api_token(ann, mine):
    from rest_framework.test import APIClient

    _, key = token_create(user=ann, name="procurement script")
    script = APIClient()
    script.credentials(HTTP_AUTHORIZATION=f"Token {key}")
    assert "ann-r730xd-6tb-10g" in _slugs(script.get(URL))
    created = script.post(URL, {**R730XD, "slug": "ann-second", "disk": "nl-sas-8tb"}, format="json")
    assert created.status_code == 201 and created.json()["owner"] == "ann"
    assert script.post("/api/v1/evaluate/", {**GRID, "bricks": [{"template": "ann-second", "count": 2}]}, format="json").status_code == 200
    bad = APIClient()
    bad.credentials(HTTP_AUTHORIZATION="Token srp_not-a-key")
    assert bad.get(URL).status_code == 401


def test_brick_templates_are_in_the_openapi_schema(api):
    schema = api.get("/api/schema/", HTTP_ACCEPT="application/vnd.oai.openapi+json").json()
    paths = schema["paths"]
    assert {"/api/v1/brick-templates/", "/api/v1/brick-templates/{slug}/", "/api/v1/brick-templates/{slug}/copy/"} <= set(paths)
    create = paths["/api/v1/brick-templates/"]["post"]
    assert create["tags"] == ["brick templates"] and create["summary"]
    assert "examples" in create["requestBody"]["content"]["application/json"]


def test_brick_template_list_query_count_does_not_grow_with_templates(ann, carl, mine, django_assert_max_num_queries):
    for i in range(5):
        _as(ann).post(f"{URL}md3460-performance/copy/", {"slug": f"ann-copy-{i}"}, format="json")
    _as(ann).post(f"{URL}ann-copy-0/share/", {"users": ["carl"]}, format="json")
    client = _as(ann)
    with django_assert_max_num_queries(6):
        assert len(_slugs(client.get(URL))) == len(CATALOGUE) + 6


def test_designer_and_solve_pages_offer_the_presets_and_your_own_templates(client, ann, bob, mine):
    import json

    def designer_templates():
        page = client.get("/designer/").content.decode()
        data = page.split('<script id="designer-options" type="application/json">')[1].split("</script>")[0]
        return {t["slug"]: t for t in json.loads(data)["templates"]}

    client.force_login(ann)
    offered = designer_templates()
    assert set(offered) == CATALOGUE | {"ann-r730xd-6tb-10g"}
    assert offered["ann-r730xd-6tb-10g"]["group"] == "mine" and offered["md3460-performance"]["group"] == "catalogue"
    assert offered["ann-r730xd-6tb-10g"]["raid"] == {"level": "raid6", "data": 14, "parity": 2, "groups": 1, "spares": 0}
    assert (offered["md3460-performance"]["network_adapter_count"], offered["md3460-performance"]["host_ports"]) == (1, 4)
    assert offered["md3460-performance"]["head_kind"] == "raid_head" and offered["iscsi-ps6500"]["max_expansions"] == 15
    assert 'value="ann-r730xd-6tb-10g"' in client.get("/solve/").content.decode()
    client.force_login(bob)
    assert set(designer_templates()) == CATALOGUE
    assert 'value="ann-r730xd-6tb-10g"' not in client.get("/solve/").content.decode()


def test_a_reader_of_a_shared_design_sees_and_evaluates_the_owners_template(client, ann, bob, mine):
    import json

    from planner.services import design_share

    design = design_create(owner=ann, name="Grid site", spec=GRID)
    design_share(design=design, usernames=["bob"])
    assert _as(bob).get(f"/api/v1/designs/{design.id}/evaluation/").status_code == 200  # evaluated as its owner's
    client.force_login(bob)
    page = client.get(f"/designer/?design={design.id}").content.decode()
    options = json.loads(page.split('<script id="designer-options" type="application/json">')[1].split("</script>")[0])
    offered = {t["slug"]: t["group"] for t in options["templates"]}
    assert offered["ann-r730xd-6tb-10g"] == "design"
    body = {"spec": {**GRID, "failover": "none"}, "design": design.id}
    response = client.post("/designer/evaluate/", body, content_type="application/json")
    assert response.status_code == 200, response.content
    assert response.json()["evaluation"]["usable_pib"] == pytest.approx(1.49, abs=0.01)
    alone = client.post("/designer/evaluate/", {"spec": GRID}, content_type="application/json")
    assert alone.status_code == 400  # the template itself is not shared with bob
    assert "ann-r730xd-6tb-10g" not in {t["slug"] for t in _as(bob).get(URL).json()["results"]}
