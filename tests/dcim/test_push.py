"""Pushing an inventory into Nautobot and NetBox, at the HTTP level, against an in-process fake DCIM
(tests/dcim/test_push_fake.py): plan, apply, idempotency, moves, errors, the two APIs' differences."""

from __future__ import annotations

import json
from types import SimpleNamespace

import pytest

from dcim import clients
from dcim.clients import NautobotClient, NetBoxClient
from dcim.inventory import Cable, Device
from dcim.push import apply_push, plan_push

from .test_push_fake import SWITCH, FakeDcim, inventory

V1 = "0123456789abcdef0123456789abcdef01234567"
V2 = "nbt_AbC123xyz.s3cr3tT0kenValue_-9"


def conn(kind="nautobot", **kw):
    return SimpleNamespace(**{"kind": kind, "site": "Hall A", "tenant": "", **kw})


def client(fake, token=V1, version="v1", kind=None):
    if (kind or fake.kind) == "netbox":
        return NetBoxClient("https://dcim.example.org/", token, transport=fake, token_version=version)
    return NautobotClient("https://dcim.example.org", token, transport=fake)


def actions(result, kind=None):
    return {(a["kind"], a["name"]): a["action"] for a in result.actions if kind in (None, a["kind"])}


@pytest.fixture(params=["nautobot", "netbox"])
def fake(request):
    return FakeDcim(request.param)


def test_dry_run_lists_every_object_and_writes_nothing(fake):
    result = plan_push(conn(fake.kind), inventory(), client=client(fake))
    assert result.error == ""
    assert fake.writes() == []
    got = actions(result)
    # 2 manufacturers, 3 device types, 5 interface + 3 power-port templates, 3 roles, 1 tag, 1 rack, 4 devices, 2 cables
    assert len(got) == 2 + 3 + 5 + 3 + 3 + 1 + 1 + 4 + 2
    assert set(got.values()) == {"create"}
    assert got[("device", "t-oss-1")] == "create"
    assert got[("cable", "IB-1 (t-oss-1:ib0 to t-sw-1:p1)")] == "create"


def test_push_creates_devices_at_their_u_with_status_planned_and_ha_tags(fake):
    result = apply_push(conn(fake.kind), inventory(), client=client(fake))
    assert result.error == ""
    assert set(actions(result).values()) == {"created"}
    rack = fake.one("dcim/racks/", name="t-rack-1")
    oss = fake.one("dcim/devices/", name="t-oss-1")
    assert oss["position"] == 5 and oss["rack"]["id"] == rack["id"]
    face = oss["face"]["value"] if fake.kind == "netbox" else oss["face"]
    assert face == "front"
    tag = fake.one("extras/tags/", name="ha-1")
    assert oss["tags"] == [{"id": tag["id"]}]
    if fake.kind == "nautobot":
        planned = fake.one("extras/statuses/", name="Planned")
        assert oss["status"]["id"] == planned["id"]
        assert oss["location"]["id"] == fake.one("dcim/locations/", name="Hall A")["id"]
        role = fake.one("extras/roles/", name="Storage server")
        assert role["content_types"] == ["dcim.device"]
    else:
        assert oss["status"]["value"] == "planned"
        assert oss["site"]["id"] == fake.one("dcim/sites/", name="Hall A")["id"]
        assert fake.one("dcim/device-roles/", name="Storage server")["slug"] == "storage-server"
    # cable between the right ports
    sw = fake.one("dcim/devices/", name="t-sw-1")
    ib0 = fake.one("dcim/interfaces/", device={"id": oss["id"]}, name="ib0")
    p1 = fake.one("dcim/interfaces/", device={"id": sw["id"]}, name="p1")
    cable = fake.one("dcim/cables/", label="IB-1")
    assert ib0["cable"]["id"] == p1["cable"]["id"] == cable["id"]
    # device type with its templates and (NetBox) weight
    dt = fake.one("dcim/device-types/", model="PowerEdge R730xd")
    assert dt["u_height"] == 2 and dt["part_number"] == "R730XD"
    if fake.kind == "netbox":
        assert dt["weight"] == 32.5 and dt["slug"] == "dell-poweredge-r730xd"
    else:
        assert "Weight: 32.5 kg" in dt["comments"]
    ppt = [t for t in fake.all("dcim/power-port-templates/") if t["device_type"]["id"] == dt["id"]]
    assert sorted((t["name"], t["maximum_draw"], t["allocated_draw"]) for t in ppt) == [("PSU1", 750, 400), ("PSU2", 750, 400)]


def test_second_push_changes_nothing(fake):
    apply_push(conn(fake.kind), inventory(), client=client(fake))
    before = len(fake.writes())
    mark = len(fake.requests)
    again = apply_push(conn(fake.kind), inventory(), client=client(fake))
    assert again.error == ""
    assert set(actions(again).values()) == {"unchanged"}
    assert len(fake.writes()) == before  # not one POST or PATCH
    # lookups are batched: one request for the 4 devices by name, one for their interfaces, one for the 2 cables
    second = fake.requests[mark:]
    assert [sorted(r[2]["name"]) for r in second if r[1] == "dcim/devices/" and "name" in r[2]] == [
        ["t-md3460-1", "t-oss-1", "t-oss-2", "t-sw-1"]
    ]
    assert [r[1] for r in second if r[1] in ("dcim/interfaces/", "dcim/cables/")] == ["dcim/interfaces/", "dcim/cables/"]
    dry = plan_push(conn(fake.kind), inventory(), client=client(fake))
    assert set(actions(dry).values()) == {"unchanged"}


def test_changed_design_moves_devices_even_into_each_others_place(fake):
    apply_push(conn(fake.kind), inventory(), client=client(fake))
    swapped = inventory({"t-oss-1": 7, "t-oss-2": 5, "t-sw-1": 42})
    dry = plan_push(conn(fake.kind), swapped, client=client(fake))
    got = actions(dry, "device")
    assert got == {
        ("device", "t-oss-1"): "update",
        ("device", "t-oss-2"): "update",
        ("device", "t-sw-1"): "update",
        ("device", "t-md3460-1"): "unchanged",
    }
    change = next(a for a in dry.actions if a["name"] == "t-oss-1")["changes"]
    assert [float(change["position"][0]), change["position"][1]] == [5.0, 7]
    result = apply_push(conn(fake.kind), swapped, client=client(fake))
    assert result.error == "", result.actions
    assert actions(result, "device")[("device", "t-oss-1")] == "updated"
    assert fake.one("dcim/devices/", name="t-oss-1")["position"] == 7
    assert fake.one("dcim/devices/", name="t-oss-2")["position"] == 5
    assert fake.one("dcim/devices/", name="t-sw-1")["position"] == 42
    face = fake.one("dcim/devices/", name="t-oss-1")["face"]
    assert (face["value"] if isinstance(face, dict) else face) == "front"  # the face comes back after the move
    assert set(actions(apply_push(conn(fake.kind), swapped, client=client(fake))).values()) == {"unchanged"}


def test_a_new_device_may_take_the_u_a_moved_device_leaves(fake):
    """A grown design: a new device planned where an existing one was, that one moved up. Creating first
    would be refused (the U is occupied); the push moves first, then creates."""
    apply_push(conn(fake.kind), inventory(), client=client(fake))
    inv = inventory({"t-sw-1": 41})
    extra = Device("t-sw-2", SWITCH.slug, "Switch", "t-rack-1", 40, "rear")
    grown = type(inv)(**{**inv.__dict__, "devices": (*inv.devices, extra)})
    result = apply_push(conn(fake.kind), grown, client=client(fake))
    assert result.error == "", result.actions
    got = actions(result, "device")
    assert (got[("device", "t-sw-1")], got[("device", "t-sw-2")]) == ("updated", "created")
    assert (fake.one("dcim/devices/", name="t-sw-1")["position"], fake.one("dcim/devices/", name="t-sw-2")["position"]) == (41, 40)


def test_a_changed_cabling_between_design_devices_is_recabled(fake):
    """The design now cables the two servers to each other's switch port: the earlier push's cables hold
    those ports, join two of the design's devices and are no longer in the design, so they are replaced."""
    apply_push(conn(fake.kind), inventory(), client=client(fake))
    inv = inventory()
    swapped = type(inv)(
        **{
            **inv.__dict__,
            "cables": (
                Cable("t-oss-1", "ib0", "t-sw-1", "p2", "dac-passive", "IB-1"),
                Cable("t-oss-2", "ib0", "t-sw-1", "p1", "dac-passive", "IB-2"),
            ),
        }
    )
    dry = plan_push(conn(fake.kind), swapped, client=client(fake))
    assert [a["action"] for a in dry.actions if a["kind"] == "cable"] == ["recable", "recable"]
    result = apply_push(conn(fake.kind), swapped, client=client(fake))
    assert result.error == "", result.actions
    cables = [a for a in result.actions if a["kind"] == "cable"]
    # the first replaces both old cables (each held one of its ports); the second finds its ports free
    assert [a["action"] for a in cables] == ["recabled", "created"] and "replaced cable" in cables[0]["detail"]
    held = {i["name"]: i["cable"] for i in fake.all("dcim/interfaces/") if i["name"] in ("p1", "p2")}
    ib1 = fake.one("dcim/cables/", label="IB-1")
    assert held["p2"]["id"] == ib1["id"] and len(fake.all("dcim/cables/")) == 2
    assert set(actions(apply_push(conn(fake.kind), swapped, client=client(fake))).values()) == {"unchanged"}


def test_device_no_longer_in_design_is_kept_and_listed(fake):
    apply_push(conn(fake.kind), inventory(), client=client(fake))
    inv = inventory()
    smaller = type(inv)(**{**inv.__dict__, "devices": inv.devices[:3], "cables": inv.cables[:0]})
    result = apply_push(conn(fake.kind), smaller, client=client(fake))
    kept = [a for a in result.actions if a["action"] == "kept"]
    assert [a["name"] for a in kept] == ["t-sw-1"]
    assert "not in this design" in kept[0]["detail"]
    assert fake.one("dcim/devices/", name="t-sw-1")  # never deleted


def test_refused_object_is_reported_with_the_dcims_message_and_its_dependants_skipped(fake):
    fake.fail[("POST", "dcim/racks/")] = (400, {"u_height": ["Ensure this value is less than or equal to 100."]})
    result = apply_push(conn(fake.kind), inventory(), client=client(fake))
    rack = next(a for a in result.actions if a["kind"] == "rack")
    assert rack["action"] == "failed" and rack["status"] == 400
    assert rack["detail"] == "u_height: Ensure this value is less than or equal to 100."
    got = actions(result)
    assert got[("device", "t-oss-1")] == "skipped"
    assert got[("cable", "IB-1 (t-oss-1:ib0 to t-sw-1:p1)")] == "skipped"
    assert got[("device-type", "Dell PowerEdge R730xd")] == "created"  # what did not need the rack was written
    assert fake.all("dcim/devices/") == []


def test_auth_failure_stops_with_the_dcims_message_and_says_nothing_was_written(fake):
    result = apply_push(conn(fake.kind), inventory(), client=client(fake, token="f" * 40))
    assert result.error == "The push stopped: GET https://dcim.example.org/api/status/: HTTP 403 Invalid token"
    assert set(actions(result).values()) == {"skipped"}
    assert all("the push stopped before this" in a["detail"] for a in result.actions)
    assert fake.writes() == []


def test_network_error_half_way_reports_exactly_what_was_written(fake):
    real = fake.__call__

    def flaky(method, url, headers, body):
        if method == "POST" and "/dcim/devices/" in url and len(fake.all("dcim/devices/")) == 2:
            fake.down = True
        return real(method, url, headers, body)

    result = apply_push(conn(fake.kind), inventory(), client=client(flaky, kind=fake.kind))
    assert result.error.startswith("The push stopped: POST https://dcim.example.org/api/dcim/devices/: could not reach the DCIM")
    got = actions(result, "device")
    assert list(got.values()) == ["created", "created", "skipped", "skipped"]
    assert [a["name"] for a in result.written if a["kind"] == "device"] == ["t-md3460-1", "t-oss-1"]
    assert sorted(d["name"] for d in fake.all("dcim/devices/")) == ["t-md3460-1", "t-oss-1"]
    fake.down = False
    resumed = apply_push(conn(fake.kind), inventory(), client=client(fake))  # pushing again finishes the job
    assert resumed.error == ""
    assert actions(resumed, "device")[("device", "t-oss-2")] == "created"
    assert actions(resumed, "device")[("device", "t-oss-1")] == "unchanged"


def test_missing_site_or_location_stops_before_writing(fake):
    result = apply_push(conn(fake.kind, site="Hall B"), inventory(), client=client(fake))
    place = "location" if fake.kind == "nautobot" else "site"
    assert result.error == f"The push could not start: the {place} 'Hall B' does not exist in the DCIM: create it there first"
    assert fake.writes() == []


def test_tenant_is_looked_up_and_set_on_racks_and_devices(fake):
    result = apply_push(conn(fake.kind, tenant="Physics"), inventory(), client=client(fake))
    assert result.error == ""
    tenant = fake.one("tenancy/tenants/", name="Physics")
    assert fake.one("dcim/devices/", name="t-oss-1")["tenant"]["id"] == tenant["id"]
    assert fake.one("dcim/racks/", name="t-rack-1")["tenant"]["id"] == tenant["id"]


def test_interface_cabled_elsewhere_is_a_failure_not_a_new_cable(fake):
    apply_push(conn(fake.kind), inventory(), client=client(fake))
    inv = inventory()
    c = inv.cables[0]
    # t-oss-2 is no longer in the design: its cable on t-sw-1:p2 is not this design's to replace
    rewired = type(inv)(
        **{
            **inv.__dict__,
            "devices": tuple(x for x in inv.devices if x.name != "t-oss-2"),
            "cables": (type(c)(c.a_device, c.a_interface, "t-sw-1", "p2", c.type, "IB-X"),),
        }
    )
    result = apply_push(conn(fake.kind), rewired, client=client(fake))
    cable = next(a for a in result.actions if a["kind"] == "cable")
    assert cable["action"] == "failed" and "t-sw-1:p2 is already cabled elsewhere" in cable["detail"]
    assert len(fake.all("dcim/cables/")) == 2


def test_progress_reaches_the_total():
    fake = FakeDcim("nautobot")
    seen = []
    apply_push(conn(), inventory(), client=client(fake), progress=lambda done, total, step: seen.append((done, total, step)))
    assert seen[-1][0] == seen[-1][1] == 24  # 2 + 3 + 8 templates + 3 roles + 1 tag + 1 rack + 4 devices + 2 cables
    assert seen[0][2] == "manufacturer Dell"


def test_pagination_follows_next_on_the_configured_address(monkeypatch):
    monkeypatch.setattr(clients, "PAGE_SIZE", 2)
    fake = FakeDcim("nautobot")
    apply_push(conn(), inventory(), client=client(fake))
    again = apply_push(conn(), inventory(), client=client(fake))
    assert set(actions(again).values()) == {"unchanged"}
    paged = [r for r in fake.requests if r[2].get("offset")]
    assert paged  # interface templates of R730xd and interfaces come in pages of 2
    assert all(r[1].startswith("dcim/") or r[1].startswith("extras/") for r in paged)


# ------------------------------------------------------------------- the two APIs' differences, on the wire
def test_nautobot_request_shapes():
    fake = FakeDcim("nautobot")
    apply_push(conn(), inventory(), client=client(fake))
    headers = fake.requests[0][4]
    assert headers["Authorization"] == f"Token {V1}"
    paths = {r[1] for r in fake.requests}
    assert {"dcim/locations/", "extras/roles/", "extras/statuses/"} <= paths
    assert not {"dcim/sites/", "dcim/device-roles/"} & paths
    cable = next(r[3] for r in fake.requests if r[0] == "POST" and r[1] == "dcim/cables/")
    assert cable["termination_a_type"] == cable["termination_b_type"] == "dcim.interface"
    assert cable["status"] == fake.one("extras/statuses/", name="Planned")["id"]
    device = next(r[3] for r in fake.requests if r[0] == "POST" and r[1] == "dcim/devices/")
    assert set(device) >= {"name", "device_type", "role", "location", "rack", "position", "face", "status", "tags"}
    assert "site" not in device
    dt = next(r[3] for r in fake.requests if r[0] == "POST" and r[1] == "dcim/device-types/")
    assert "slug" not in dt and "weight" not in dt  # Nautobot's device types have neither


def test_nautobot_half_u_device_type_is_refused_by_name():
    fake = FakeDcim("nautobot")
    inv = inventory()
    half = type(inv.device_types[2])(**{**inv.device_types[2].__dict__, "u_height": 0.5})
    result = apply_push(conn(), type(inv)(**{**inv.__dict__, "device_types": (*inv.device_types[:2], half)}), client=client(fake))
    got = next(a for a in result.actions if a["name"] == "Mellanox SX6036")
    assert got["action"] == "failed" and "whole rack units only; SX6036 is 0.5 U" in got["detail"]
    assert actions(result)[("device", "t-sw-1")] == "skipped"


@pytest.mark.parametrize(("token", "version", "header"), [(V1, "v1", f"Token {V1}"), (V2, "v2", f"Bearer {V2}")])
def test_netbox_token_versions_on_the_wire(token, version, header):
    fake = FakeDcim("netbox", token=token)
    result = apply_push(conn("netbox"), inventory(), client=client(fake, token=token, version=version))
    assert result.error == ""
    assert {r[4]["Authorization"] for r in fake.requests} == {header}


def test_netbox_request_shapes():
    fake = FakeDcim("netbox")
    apply_push(conn("netbox"), inventory(), client=client(fake))
    paths = {r[1] for r in fake.requests}
    assert {"dcim/sites/", "dcim/device-roles/"} <= paths
    assert not {"dcim/locations/", "extras/roles/", "extras/statuses/"} & paths
    cable = next(r[3] for r in fake.requests if r[0] == "POST" and r[1] == "dcim/cables/")
    assert cable["a_terminations"][0]["object_type"] == "dcim.interface" and cable["status"] == "planned"
    device = next(r[3] for r in fake.requests if r[0] == "POST" and r[1] == "dcim/devices/")
    assert device["site"] and device["status"] == "planned" and "role" in device and "location" not in device
    mfr = next(r[3] for r in fake.requests if r[0] == "POST" and r[1] == "dcim/manufacturers/")
    assert mfr == {"name": "Dell", "slug": "dell"}


def test_netbox_before_3_6_names_the_role_device_role():
    fake = FakeDcim("netbox", version="3.5.9")
    apply_push(conn("netbox"), inventory(), client=client(fake))
    device = next(r[3] for r in fake.requests if r[0] == "POST" and r[1] == "dcim/devices/")
    assert "device_role" in device and "role" not in device


def test_token_version_detected_from_its_form():
    from dcim.models import detect_token_version

    assert detect_token_version(V1) == "v1"
    assert detect_token_version(V2) == "v2"
    assert detect_token_version("not a token") == ""


def test_client_error_carries_the_dcims_message_and_status():
    fake = FakeDcim("nautobot")
    fake.fail[("POST", "dcim/manufacturers/")] = (400, {"name": ["manufacturer with this name already exists."]})
    c = client(fake)
    with pytest.raises(clients.DcimError) as err:
        c.create("dcim/manufacturers/", {"name": "Dell"})
    assert err.value.status == 400 and err.value.kind == "refused" and not err.value.fatal
    assert err.value.detail == "name: manufacturer with this name already exists."


def test_client_answer_not_json_is_a_clear_error():
    def html(method, url, headers, body):
        return clients.Response(200, b"<html>login</html>", "text/html")

    with pytest.raises(clients.DcimError) as err:
        NautobotClient("https://x.example.org", V1, transport=html).status()
    assert err.value.kind == "bad_answer" and "is this the Nautobot API address?" in err.value.detail


def test_urllib_transport_times_out_and_reports_unreachable_hosts(settings):
    settings.DCIM_ALLOWED_HOSTS = ["127.0.0.1"]
    t = clients.UrllibTransport(timeout=2)
    with pytest.raises(clients.DcimError) as err:
        t("GET", "http://127.0.0.1:9/api/status/", {}, None)  # discard port: nothing listens
    assert err.value.kind == "network" and "could not reach the DCIM" in err.value.detail


@pytest.mark.parametrize(
    "url",
    [
        "http://127.0.0.1:8000/metrics",
        "http://localhost:6379/",
        "http://169.254.169.254/latest/meta-data/",  # a cloud's instance metadata service
        "http://[::1]:5432/",
        "http://0.0.0.0:80/",
        "http://224.0.0.1/",
    ],
)
def test_the_server_never_calls_itself_or_link_local_addresses_for_a_user(url, settings):
    settings.DCIM_ALLOWED_HOSTS = []
    with pytest.raises(clients.DcimError) as err:
        clients.UrllibTransport(timeout=2)("GET", url, {}, None)
    assert err.value.kind == "network" and "DCIM_ALLOWED_HOSTS" in err.value.detail


def test_a_redirect_is_reported_not_followed(settings):
    """A DCIM address that redirects (for example to the metadata service) is not followed."""
    import http.server
    import threading

    class Redirect(http.server.BaseHTTPRequestHandler):
        def do_GET(self):
            self.send_response(302)
            self.send_header("Location", "http://169.254.169.254/latest/meta-data/")
            self.end_headers()

        def log_message(self, *args):
            pass

    server = http.server.HTTPServer(("127.0.0.1", 0), Redirect)
    threading.Thread(target=server.handle_request, daemon=True).start()
    settings.DCIM_ALLOWED_HOSTS = ["127.0.0.1"]
    try:
        with pytest.raises(clients.DcimError) as err:
            clients.UrllibTransport(timeout=5)("GET", f"http://127.0.0.1:{server.server_port}/api/status/", {}, None)
    finally:
        server.server_close()
    assert err.value.status == 302 and "redirected to http://169.254.169.254/" in err.value.detail


def test_cable_length_is_sent_and_compared(fake):
    inv = inventory()
    c = inv.cables[0]
    measured = type(inv)(
        **{**inv.__dict__, "cables": (type(c)(c.a_device, c.a_interface, c.b_device, c.b_interface, c.type, c.label, 3.0),)}
    )
    apply_push(conn(fake.kind), measured, client=client(fake))
    cable = fake.one("dcim/cables/", label="IB-1")
    unit = cable["length_unit"]["value"] if fake.kind == "netbox" else cable["length_unit"]
    assert cable["length"] == 3.0 and unit == "m"
    assert set(actions(apply_push(conn(fake.kind), measured, client=client(fake))).values()) == {"unchanged"}
    longer = type(inv)(**{**inv.__dict__, "cables": (type(c)(c.a_device, c.a_interface, c.b_device, c.b_interface, c.type, c.label, 5.0),)})
    result = apply_push(conn(fake.kind), longer, client=client(fake))
    assert next(a for a in result.actions if a["kind"] == "cable")["changes"] == {"length": [3.0, 5.0]}
    assert fake.one("dcim/cables/", label="IB-1")["length"] == 5.0


def test_time_limit_mid_push_keeps_the_report_of_what_was_written():
    from celery.exceptions import SoftTimeLimitExceeded

    fake = FakeDcim("nautobot")

    def slow(method, url, headers, body):
        if method == "POST" and "/dcim/racks/" in url:
            raise SoftTimeLimitExceeded()
        return fake(method, url, headers, body)

    result = apply_push(conn(), inventory(), client=client(slow, kind="nautobot"))
    assert result.error.startswith("The push took longer than its time limit and was stopped")
    got = actions(result)
    assert got[("device-type", "Dell PowerEdge R730xd")] == "created"
    assert got[("rack", "t-rack-1")] == "skipped" and got[("device", "t-oss-1")] == "skipped"
    assert len(got) == 24


def test_a_role_created_by_another_push_meanwhile_is_taken_not_failed(fake):
    """Two pushes at once: both look up the 'oss' role, find none, and create it; the second create is
    refused (the name is taken). The second push takes the role that is there now."""
    role_path = "extras/roles/" if fake.kind == "nautobot" else "dcim/device-roles/"
    raced = []

    def transport(method, url, headers, body):
        if method == "POST" and f"/api/{role_path}" in url and not raced:
            data = json.loads(body)
            raced.append(fake.seed(role_path, **data))  # the other push's role, created just before ours
            return clients.Response(
                400, json.dumps({"name": [f"Role with this name {data['name']!r} already exists."]}).encode(), "application/json"
            )
        return fake(method, url, headers, body)

    c = NautobotClient("https://dcim.example.org", V1, transport=transport) if fake.kind == "nautobot" else None
    c = c or NetBoxClient("https://dcim.example.org/", V1, transport=transport, token_version="v1")
    result = apply_push(conn(fake.kind), inventory(), client=c)
    assert result.error == ""
    taken = raced[0]
    role_actions = {a["name"]: a for a in result.actions if a["kind"] == "role"}
    assert role_actions[taken["name"]]["action"] in ("unchanged", "updated")
    assert not [a for a in result.actions if a["action"] in ("failed", "skipped")]
    users = [d for d in fake.all("dcim/devices/") if (d.get("role") or {}).get("id") == taken["id"]]
    assert users  # the devices of that role point at the role that was there
    assert len([r for r in fake.all(role_path) if r["name"] == taken["name"]]) == 1
