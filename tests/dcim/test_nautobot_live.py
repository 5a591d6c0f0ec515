"""The push into a real Nautobot (issue 17): the study's rack B (six MD3460 performance bricks in HA
pairs, the metadata cell in the rack) pushed with dcim/push.py and read back with plain HTTP.

Needs NAUTOBOT_URL and NAUTOBOT_TOKEN (`.ci/nautobot.sh` starts a Nautobot and writes them); skipped
without them on a developer's machine, failed without them in CI. Each test works in a location of its
own (tests/dcim/conftest.py), so reruns against the same server do not collide; device types, roles and
tags are shared between tests and found again by name, as a second push would.
"""

from __future__ import annotations

import csv
import io
import os
import uuid
import zipfile
from types import SimpleNamespace

import pytest
import yaml

from dcim.clients import NautobotClient
from dcim.export import NAUTOBOT_LOCATION_TYPE, ExportOptions, export_zip
from dcim.inventory import inventory_for_spec
from dcim.push import apply_push, plan_push

pytestmark = [pytest.mark.nautobot_live, pytest.mark.django_db]


@pytest.fixture(autouse=True)
def allow_the_local_nautobot(settings):
    """The CI Nautobot listens on this machine, which the planner refuses to call for users unless an
    operator lists the host (dcim/clients.py refused_address)."""
    import urllib.parse

    from dcim.clients import allowed_hosts

    host = urllib.parse.urlsplit(os.environ.get("NAUTOBOT_URL", "")).hostname
    settings.DCIM_ALLOWED_HOSTS = [*allowed_hosts(), *([host] if host else [])]


STUDY_B = {
    "name": "Study rack B: performance, metadata in the rack",
    "bricks": [{"template": "md3460-performance", "count": 6, "disk": "nl-sas-4tb"}],
    "metadata": {"cell": "mds-cell", "placement": "in_rack"},
}
SMALLER = {**STUDY_B, "bricks": [{**STUDY_B["bricks"][0], "count": 4}]}


def _connection(location):
    return SimpleNamespace(kind="nautobot", site=location["name"], tenant="")


def _client(nautobot, token=None):
    return NautobotClient(nautobot.base, token or nautobot.token, timeout=60)


def _actions(result, kind=None):
    return {(a["kind"], a["name"]): a["action"] for a in result.actions if kind in (None, a["kind"])}


def _placed(nautobot, location) -> dict:
    """name -> (rack name, position, face, status name, role name, tag names) of every device at the location."""
    racks = {r["id"]: r["name"] for r in nautobot.list("dcim/racks/", location=location["id"])}
    statuses = {s["id"]: s["name"] for s in nautobot.list("extras/statuses/")}
    roles = {r["id"]: r["name"] for r in nautobot.list("extras/roles/")}
    tags = {t["id"]: t["name"] for t in nautobot.list("extras/tags/")}
    out = {}
    for d in nautobot.list("dcim/devices/", location=location["id"]):
        face = d["face"]["value"] if isinstance(d["face"], dict) else d["face"]
        out[d["name"]] = (
            racks.get((d["rack"] or {}).get("id")),
            d["position"],
            face or None,
            statuses[d["status"]["id"]],
            roles[d["role"]["id"]],
            tuple(sorted(tags[t["id"]] for t in d["tags"])),
        )
    return out


def _expected_places(inv) -> dict:
    return {
        d.name: (d.rack, d.position, d.face if d.position is not None else None, "Planned", d.role, tuple(sorted(d.tags)))
        for d in inv.devices
    }


def _cabling(nautobot, location) -> set:
    """{frozenset({(device, interface), (device, interface)})} of every cable at the location's devices."""
    ends: dict[str, list] = {}
    for d in nautobot.list("dcim/devices/", location=location["id"]):
        # device_id, not device: Nautobot 3.2's `device` filter also matches other devices of the same name
        for iface in nautobot.list("dcim/interfaces/", device_id=d["id"]):
            assert iface["device"]["id"] == d["id"]
            if iface["cable"]:
                ends.setdefault(iface["cable"]["id"], []).append((d["name"], iface["name"]))
    assert all(len(v) == 2 for v in ends.values()), ends
    return {frozenset(v) for v in ends.values()}


def _expected_cabling(inv) -> set:
    return {frozenset({(c.a_device, c.a_interface), (c.b_device, c.b_interface)}) for c in inv.cables}


def _snapshot(nautobot, location, inv) -> dict:
    """What a push could touch, scoped to this test (other clients may write to the same Nautobot): the
    location's racks, devices, their interfaces and cables, and the inventory's manufacturers' device types,
    each with its last_updated."""
    devices = nautobot.list("dcim/devices/", location=location["id"])
    interfaces, cables = {}, {}
    for d in devices:
        for iface in nautobot.list("dcim/interfaces/", device_id=d["id"]):
            interfaces[(d["name"], iface["name"])] = iface["last_updated"]
            if iface["cable"]:
                cables[iface["cable"]["id"]] = None
    for cable_id in cables:
        cables[cable_id] = nautobot.get(f"dcim/cables/{cable_id}/")["last_updated"]
    # (filtering device types by a manufacturer Nautobot does not have yet is a 400: match here instead)
    makers = {m["id"]: m["name"] for m in nautobot.list("dcim/manufacturers/") if m["name"] in inv.manufacturers}
    device_types = {
        (makers[dt["manufacturer"]["id"]], dt["model"]): dt["last_updated"]
        for dt in nautobot.list("dcim/device-types/")
        if dt["manufacturer"]["id"] in makers
    }
    return {
        "devices": {d["name"]: d["last_updated"] for d in devices},
        "interfaces": interfaces,
        "cables": cables,
        "racks": {r["name"]: r["last_updated"] for r in nautobot.list("dcim/racks/", location=location["id"])},
        "device_types": device_types,
    }


@pytest.fixture
def study_b():
    """The study's rack B as inventory (from the test database's shipped catalogue)."""
    return inventory_for_spec(STUDY_B)


def test_nautobot_answers_with_the_token(nautobot):
    status = nautobot.get("status/")
    assert status["nautobot-version"].startswith(("2.", "3.")), status
    planned = nautobot.one("extras/statuses/", name="Planned")
    assert {"dcim.device", "dcim.rack", "dcim.cable"} <= set(planned["content_types"])


def _without_empty_tenant(text):
    """The CSV without its tenant__name column when no row names a tenant: Nautobot 3.2's CSV import
    refuses an empty tenant__name (test_export_csv_without_a_tenant_imports_as_it_is); the other
    columns are imported as exported."""
    rows = list(csv.DictReader(io.StringIO(text)))
    if any(r.get("tenant__name") for r in rows):
        return text
    out = io.StringIO()
    fields = [f for f in rows[0] if f != "tenant__name"]
    writer = csv.DictWriter(out, fieldnames=fields, lineterminator="\n", extrasaction="ignore")
    writer.writeheader()
    writer.writerows(rows)
    return out.getvalue()


def _rows_not_in(nautobot, path, text) -> str:
    """The CSV without the rows whose `name` Nautobot already has (earlier tests may have made them)."""
    rows = list(csv.DictReader(io.StringIO(text)))
    have = {o["name"] for o in nautobot.list(path)}
    out = io.StringIO()
    writer = csv.DictWriter(out, fieldnames=list(rows[0]) if rows else ["name"], lineterminator="\n")
    writer.writeheader()
    writer.writerows(r for r in rows if r["name"] not in have)
    return out.getvalue()


def test_export_zip_imports_through_nautobots_bulk_import_in_the_documented_order(nautobot, nautobot_ui, study_b):
    """The zip's README order: manufacturers, device types (the YAML, through the web UI's import), roles,
    tags, locations, racks, devices (CSV, through Nautobot's CSV import on its REST API). Objects an
    earlier test made (same names) are left out of their CSV, as the README says for sites."""
    site = f"planner-import-{uuid.uuid4().hex[:10]}"
    members = {}
    with zipfile.ZipFile(io.BytesIO(export_zip(study_b, ExportOptions(site=site)))) as archive:
        for name in archive.namelist():
            members[name] = archive.read(name).decode()
    readme = members["README.txt"][members["README.txt"].index("Nautobot (") :]
    assert readme.index("manufacturers") < readme.index("device types") < readme.index("roles") < readme.index("racks, devices")

    # the location type the README asks for first (one that takes racks and devices)
    types = nautobot.list("dcim/location-types/", name=NAUTOBOT_LOCATION_TYPE)
    if not types:
        nautobot.post("dcim/location-types/", {"name": NAUTOBOT_LOCATION_TYPE, "content_types": ["dcim.rack", "dcim.device"]})
    else:
        assert {"dcim.rack", "dcim.device"} <= set(types[0]["content_types"]), types[0]

    nautobot.post_csv("dcim/manufacturers/", _rows_not_in(nautobot, "dcim/manufacturers/", members["nautobot/01-manufacturers.csv"]))
    yamls = [text for name, text in sorted(members.items()) if name.startswith("device-types/")]
    assert len(yamls) == len(study_b.device_types)
    for text in yamls:
        doc = yaml.safe_load(text)
        if not nautobot.list("dcim/device-types/", manufacturer=doc["manufacturer"], model=doc["model"]):
            nautobot_ui.import_device_type(text)
    nautobot.post_csv("extras/roles/", _rows_not_in(nautobot, "extras/roles/", members["nautobot/03-roles.csv"]))
    nautobot.post_csv("extras/tags/", _rows_not_in(nautobot, "extras/tags/", members["nautobot/04-tags.csv"]))
    [location] = nautobot.post_csv("dcim/locations/", _without_empty_tenant(members["nautobot/05-locations.csv"]))
    racks = nautobot.post_csv("dcim/racks/", _without_empty_tenant(members["nautobot/06-racks.csv"]))
    devices = nautobot.post_csv("dcim/devices/", _without_empty_tenant(members["nautobot/07-devices.csv"]))
    assert len(racks) == len(study_b.racks) and len(devices) == len(study_b.devices) == 21

    # read back: every device at its planned U and face, Planned, its role and HA tags; every
    # device type has the interfaces the cabling plan names
    assert _placed(nautobot, location) == _expected_places(study_b)
    for d in study_b.devices:
        if d.name in ("study-rack-b-oss01", "study-rack-b-raid01", "study-rack-b-rack1-sw-ib1"):
            found = {i["name"] for i in nautobot.list("dcim/interfaces/", device_id=next(x["id"] for x in devices if x["name"] == d.name))}
            assert found >= {i.name for i in study_b.device_type(d.device_type).interfaces}, d.name


def test_export_csv_without_a_tenant_imports_as_it_is(nautobot, study_b):
    site = f"planner-import-{uuid.uuid4().hex[:10]}"
    if not nautobot.list("dcim/location-types/", name=NAUTOBOT_LOCATION_TYPE):
        nautobot.post("dcim/location-types/", {"name": NAUTOBOT_LOCATION_TYPE, "content_types": ["dcim.rack", "dcim.device"]})
    with zipfile.ZipFile(io.BytesIO(export_zip(study_b, ExportOptions(site=site)))) as archive:
        locations = archive.read("nautobot/05-locations.csv").decode()
    [location] = nautobot.post_csv("dcim/locations/", locations)
    assert location["name"] == site


def test_wrong_token_fails_the_push_with_nautobots_own_403_message(nautobot, nautobot_location, study_b):
    before = _snapshot(nautobot, nautobot_location, study_b)
    result = apply_push(_connection(nautobot_location), study_b, client=_client(nautobot, token="0" * 40))
    assert "HTTP 403" in result.error and "Invalid token" in result.error, result.error
    assert set(_actions(result).values()) == {"skipped"}
    assert _snapshot(nautobot, nautobot_location, study_b) == before
    assert before["racks"] == {} and before["devices"] == {}


def test_dry_run_lists_everything_and_writes_nothing(nautobot, nautobot_location, study_b):
    before = _snapshot(nautobot, nautobot_location, study_b)
    result = plan_push(_connection(nautobot_location), study_b, client=_client(nautobot))
    assert result.error == "", result.error
    assert result.version.startswith(("2.", "3."))
    got = _actions(result)
    assert {got[("device", d.name)] for d in study_b.devices} == {"create"}
    assert {got[("rack", r.name)] for r in study_b.racks} == {"create"}
    assert sum(1 for (kind, _), action in got.items() if kind == "cable" and action == "create") == len(study_b.cables)
    assert _snapshot(nautobot, nautobot_location, study_b) == before


def test_push_places_every_device_and_cable_then_a_second_push_changes_nothing(nautobot, nautobot_location, study_b):
    conn = _connection(nautobot_location)
    first = apply_push(conn, study_b, client=_client(nautobot))
    assert first.error == "", first.error
    failed = [a for a in first.actions if a["action"] in ("failed", "skipped")]
    assert failed == []
    got = _actions(first)
    assert {got[("device", d.name)] for d in study_b.devices} == {"created"}
    assert {got[("cable", n)] for (k, n) in got if k == "cable"} == {"created"}

    # read back with plain HTTP: 21 devices at their planned U and face, status Planned, roles, HA tags
    placed = _placed(nautobot, nautobot_location)
    assert placed == _expected_places(study_b)
    assert len(placed) == 21
    # by hand (tests/dcim/test_inventory.py): brick n's MD3460 at U 5n-4, its R620 4 U above; switches on top
    assert placed["study-rack-b-raid03"][:4] == ("study-rack-b-rack1", 11, "front", "Planned")
    assert placed["study-rack-b-oss03"][1] == 15
    assert placed["study-rack-b-oss01"][5] == ("ha-1",)
    assert placed["study-rack-b-rack1-sw-ib1"][1] == 42
    assert placed["study-rack-b-rack1-pdu-a"][1:3] == (None, None)
    rack = nautobot.one("dcim/racks/", location=nautobot_location["id"])
    assert (rack["name"], rack["u_height"]) == ("study-rack-b-rack1", 42)
    # cables between the right interfaces, none more
    assert _cabling(nautobot, nautobot_location) == _expected_cabling(study_b)
    assert len(study_b.cables) >= 40

    # a second push: everything unchanged, nothing written (same objects, same last_updated)
    before = _snapshot(nautobot, nautobot_location, study_b)
    second = apply_push(conn, study_b, client=_client(nautobot))
    assert second.error == "", second.error
    assert set(_actions(second).values()) == {"unchanged"}, [a for a in second.actions if a["action"] != "unchanged"]
    assert second.written == []
    assert _snapshot(nautobot, nautobot_location, study_b) == before


def test_a_grown_design_moves_what_moved_and_creates_only_what_is_new(nautobot, nautobot_location, study_b):
    """Rack B first planned with four bricks, then with six: bricks 5 and 6 take U21-30, where the
    metadata cell was, so the cell moves up 10 U (same Nautobot objects) and four devices are new.
    Cables whose switch port changed are replaced (both ends on the design's devices), nothing else deleted."""
    conn = _connection(nautobot_location)
    smaller = inventory_for_spec(SMALLER)
    first = apply_push(conn, smaller, client=_client(nautobot))
    assert first.error == "" and not [a for a in first.actions if a["action"] in ("failed", "skipped")], first.error
    assert _placed(nautobot, nautobot_location)["study-rack-b-mds1"][1] == 21
    ids_before = {d["name"]: d["id"] for d in nautobot.list("dcim/devices/", location=nautobot_location["id"])}

    moved = {d.name for d in study_b.devices if d.name in ids_before and smaller.device(d.name).position != d.position}
    assert moved == {f"study-rack-b-{n}" for n in ("mds1", "mds2", "mgs1", "mgmt1", "mdt1")}
    new = {d.name for d in study_b.devices} - set(ids_before)
    assert new == {f"study-rack-b-{n}" for n in ("raid05", "oss05", "raid06", "oss06")}

    second = apply_push(conn, study_b, client=_client(nautobot))
    assert second.error == "", second.error
    # devices: all placed. Cables: the switch ports are numbered in brick order, so bricks 5-6 take ports the
    # cell's management links had; those old cables join two of the design's devices and are no longer in it,
    # so the push replaces them ("recabled"), and nothing else is refused
    assert [a for a in second.actions if a["action"] in ("failed", "skipped")] == []
    old_cables, new_cables = _expected_cabling(smaller), _expected_cabling(study_b)
    assert old_cables - new_cables, "the grown design changes some ports (else this test checks nothing)"
    assert [a for a in second.actions if a["action"] == "recabled"]
    got = {name: action for (kind, name), action in _actions(second, "device").items()}
    assert {n for n, a in got.items() if a == "created"} == new
    assert {n for n, a in got.items() if a == "updated"} == moved
    assert {n for n, a in got.items() if a == "unchanged"} == set(ids_before) - moved

    placed = _placed(nautobot, nautobot_location)
    assert placed == _expected_places(study_b)
    assert placed["study-rack-b-mds1"][1] == 31 and placed["study-rack-b-raid05"][1] == 21
    # the moved devices are the same Nautobot objects (moved, not made again); nothing duplicated
    ids_after = {d["name"]: d["id"] for d in nautobot.list("dcim/devices/", location=nautobot_location["id"])}
    assert {n: ids_after[n] for n in ids_before} == ids_before
    assert len(ids_after) == len(ids_before) + 4 == 21
    assert len(nautobot.list("dcim/racks/", location=nautobot_location["id"])) == 1
    # exactly the grown design's cables, between the right ports; a third push changes nothing
    assert _cabling(nautobot, nautobot_location) == new_cables
    third = apply_push(conn, study_b, client=_client(nautobot))
    assert {a["action"] for a in third.actions} == {"unchanged"}, [a for a in third.actions if a["action"] != "unchanged"]


def test_push_through_the_api_with_a_stored_connection(nautobot, nautobot_location, api, django_user_model):
    """The user's path: a connection stored with its token (encrypted) and a tenant, a saved design, POST
    a push (eager Celery in tests), its report; racks and devices carry the tenant; no answer has the token."""
    from planner.services.designs import design_create

    tenant = nautobot.post("tenancy/tenants/", {"name": f"planner-tenant-{nautobot_location['name'][-10:]}"})
    user = django_user_model.objects.create_user("live-push", password="pw-live-push-123")
    api.force_authenticate(user)
    body = {"name": "CI Nautobot", "kind": "nautobot", "base_url": nautobot.base, "token": nautobot.token}
    res = api.post("/api/v1/dcim/connections/", {**body, "site": nautobot_location["name"], "tenant": tenant["name"]}, format="json")
    assert res.status_code == 201, res.json()
    assert nautobot.token not in str(res.json())
    spec = {"bricks": [{"template": "md3460-performance", "count": 2}], "metadata": {"placement": "none"}}
    design = design_create(owner=user, name="Live two bricks", spec=spec)

    res = api.post("/api/v1/dcim/pushes/", {"connection": res.json()["id"], "design": design.id, "dry_run": False}, format="json")
    assert res.status_code in (201, 202), res.json()
    push = api.get(f"/api/v1/dcim/pushes/{res.json()['id']}/").json()
    assert push["status"] == "done", (push["error"], push["report"][:3])
    assert push["error"] == ""
    assert not [e for e in push["report"] if e["action"] in ("failed", "skipped")], push["report"]
    devices = {d["name"]: d for d in nautobot.list("dcim/devices/", location=nautobot_location["id"])}
    assert set(devices) == {e["name"] for e in push["report"] if e["kind"] == "device"}
    assert devices["live-two-bricks-raid02"]["position"] == 6
    assert {(d["tenant"] or {}).get("id") for d in devices.values()} == {tenant["id"]}
    [rack] = nautobot.list("dcim/racks/", location=nautobot_location["id"])
    assert rack["tenant"]["id"] == tenant["id"]
    assert nautobot.token not in str(push)
