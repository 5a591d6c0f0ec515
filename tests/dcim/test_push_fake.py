"""An in-process fake of the Nautobot and NetBox REST endpoints the push uses (a transport for
dcim.clients), and a small hand-built inventory. Shared by tests/dcim/test_push*.py.

The fake keeps objects in memory, filters lists by the query parameters the push sends, paginates,
checks the Authorization header, instantiates interfaces from templates when a device is created,
refuses a device placed on an occupied U (400 with a field error, as both DCIMs do) and records every
request so that tests can look at the wire."""

from __future__ import annotations

import itertools
import json
import urllib.parse
import uuid

from dcim.clients import DcimError, Response
from dcim.inventory import Cable, Device, DeviceType, InterfaceT, Inventory, PowerPortT, Rack

R730 = DeviceType(
    manufacturer="Dell",
    model="PowerEdge R730xd",
    slug="dell-poweredge-r730xd",
    part_number="R730XD",
    u_height=2,
    is_full_depth=True,
    weight=32.5,
    weight_unit="kg",
    power_ports=(PowerPortT("PSU1", "iec-60320-c14", 750, 400), PowerPortT("PSU2", "iec-60320-c14", 750, 400)),
    interfaces=(InterfaceT("ib0", "infiniband-fdr"), InterfaceT("idrac", "1000base-t", True)),
    comments="Dell R730xd data sheet",
    catalogue_kind="server",
    catalogue_slug="r730xd",
)
MD3460 = DeviceType(
    manufacturer="Dell",
    model="PowerVault MD3460",
    slug="dell-powervault-md3460",
    part_number="MD3460",
    u_height=4,
    is_full_depth=True,
    weight=105.0,
    weight_unit="kg",
    power_ports=(PowerPortT("PSU1", "iec-60320-c14", 1755, 900),),
    interfaces=(InterfaceT("mgmt0", "1000base-t", True),),
    comments="Dell MD3460 data sheet",
    catalogue_kind="enclosure",
    catalogue_slug="md3460",
)
SWITCH = DeviceType(
    manufacturer="Mellanox",
    model="SX6036",
    slug="mellanox-sx6036",
    part_number="MSX6036F-1SFS",
    u_height=1,
    is_full_depth=False,
    weight=None,
    weight_unit="kg",
    power_ports=(),
    interfaces=(InterfaceT("p1", "infiniband-fdr"), InterfaceT("p2", "infiniband-fdr")),
    comments="Mellanox SX6036 data sheet",
    catalogue_kind="switch",
    catalogue_slug="sx6036",
)


def inventory(positions=None) -> Inventory:
    """One rack: an HA pair of servers over an MD3460, a switch, two cables. `positions` overrides U per device."""
    pos = {"t-oss-1": 5, "t-oss-2": 7, "t-md3460-1": 1, "t-sw-1": 40, **(positions or {})}
    return Inventory(
        design_name="Test design",
        prefix="t",
        manufacturers=("Dell", "Mellanox"),
        device_types=(R730, MD3460, SWITCH),
        racks=(Rack("t-rack-1", 42),),
        devices=(
            Device("t-md3460-1", MD3460.slug, "RAID enclosure", "t-rack-1", pos["t-md3460-1"], "front", tags=("ha-1",)),
            Device("t-oss-1", R730.slug, "Storage server", "t-rack-1", pos["t-oss-1"], "front", tags=("ha-1",)),
            Device("t-oss-2", R730.slug, "Storage server", "t-rack-1", pos["t-oss-2"], "front", tags=("ha-1",)),
            Device("t-sw-1", SWITCH.slug, "Switch", "t-rack-1", pos["t-sw-1"], "rear"),
        ),
        cables=(
            Cable("t-oss-1", "ib0", "t-sw-1", "p1", "dac-passive", "IB-1"),
            Cable("t-oss-2", "ib0", "t-sw-1", "p2", "dac-passive", "IB-2"),
        ),
    )


TEMPLATE_PATHS = {"dcim/interface-templates/": "dcim/interfaces/"}


class FakeDcim:
    """A transport: `FakeDcim("nautobot")(method, url, headers, body) -> Response`."""

    def __init__(self, kind: str = "nautobot", *, token: str = "0123456789abcdef0123456789abcdef01234567", version: str = ""):
        self.kind = kind
        self.version = version or ("3.2.0" if kind == "nautobot" else "4.5.1")
        self.auth = f"Bearer {token}" if token.startswith("nbt_") else f"Token {token}"
        self.db: dict[str, dict] = {}
        self.requests: list[tuple[str, str, dict, dict | None, dict]] = []
        self.fail: dict[tuple[str, str], tuple[int, dict]] = {}  # (method, path) -> (status, body), once
        self.down = False
        self._ids = itertools.count(1)
        site_path = "dcim/locations/" if kind == "nautobot" else "dcim/sites/"
        self.seed(site_path, name="Hall A")
        self.seed("tenancy/tenants/", name="Physics")
        if kind == "nautobot":
            self.seed("extras/statuses/", name="Planned", content_types=["dcim.device", "dcim.rack", "dcim.cable", "dcim.interface"])
            self.seed("extras/statuses/", name="Active", content_types=["dcim.device"])

    # -- helpers for tests
    def new_id(self):
        n = next(self._ids)
        return str(uuid.UUID(int=n)) if self.kind == "nautobot" else n

    def seed(self, path: str, **obj) -> dict:
        obj = {"id": self.new_id(), **obj}
        self.db.setdefault(path, {})[obj["id"]] = obj
        return obj

    def all(self, path: str) -> list[dict]:
        return list(self.db.get(path, {}).values())

    def one(self, path: str, **match) -> dict:
        found = [o for o in self.all(path) if all(o.get(k) == v for k, v in match.items())]
        assert len(found) == 1, (path, match, found)
        return found[0]

    def writes(self) -> list:
        return [r for r in self.requests if r[0] in ("POST", "PATCH", "PUT", "DELETE")]

    # -- the wire
    def __call__(self, method, url, headers, body):
        parts = urllib.parse.urlsplit(url)
        path = parts.path.split("/api/", 1)[1]
        params = {k: v if len(v) > 1 else v[0] for k, v in urllib.parse.parse_qs(parts.query).items()}
        data = json.loads(body) if body else None
        self.requests.append((method, path, dict(params), data, dict(headers)))
        if self.down:
            raise DcimError("network", "could not reach the DCIM: [Errno 111] Connection refused", method=method, url=url)
        if headers.get("Authorization") != self.auth:
            return self._answer(403, {"detail": "Invalid token"})
        segments = [s for s in path.split("/") if s]
        base = "/".join(segments[:2]) + "/"
        key = (method, base)
        if key in self.fail:
            status, answer = self.fail.pop(key)
            return self._answer(status, answer)
        if path == "status/":
            return self._answer(200, {f"{self.kind}-version": self.version})
        obj_id = segments[2] if len(segments) > 2 else None
        if obj_id is not None and self.kind == "netbox":
            obj_id = int(obj_id)
        if method == "GET" and obj_id is None:
            return self._list(base, params)
        if method == "GET":
            obj = self.db.get(base, {}).get(obj_id)
            return self._answer(200, obj) if obj else self._answer(404, {"detail": "Not found."})
        if method == "POST":
            return self._create(base, data)
        if method == "PATCH":
            return self._update(base, obj_id, data)
        if method == "DELETE":
            obj = self.db.get(base, {}).pop(obj_id, None)
            if obj is None:
                return self._answer(404, {"detail": "Not found."})
            for iface in self.all("dcim/interfaces/"):
                if (iface.get("cable") or {}).get("id") == obj_id:
                    iface["cable"] = None
            return Response(204, b"", "")
        return self._answer(405, {"detail": f'Method "{method}" not allowed.'})

    def _answer(self, status, data):
        return Response(status, json.dumps(data).encode(), "application/json")

    FILTERS = {
        "manufacturer_id": "manufacturer",
        "device_type_id": "device_type",
        "devicetype_id": "device_type",
        "site_id": "site",
        "device_id": "device",
        "id": "id",
        "rack_id": "rack",
    }

    def _list(self, base, params):
        limit = int(params.pop("limit", 50))
        offset = int(params.pop("offset", 0))
        if self.kind == "nautobot":
            unknown = set(params) - {"id", "name", "model", "manufacturer", "device_type", "location", "device_id", "rack"}
            if unknown:  # Nautobot's strict filtering
                return self._answer(400, {k: [f"Unknown filter field {k}"] for k in unknown})
        rows = []
        for obj in self.all(base):
            ok = True
            for k, v in params.items():
                field = self.FILTERS.get(k, k)
                have = obj.get(field)
                have = have.get("id") if isinstance(have, dict) else have
                if str(have) not in ([str(x) for x in v] if isinstance(v, list) else [str(v)]):  # name=a&name=b: any of them
                    ok = False
            if ok:
                rows.append(obj)
        page = rows[offset : offset + limit]
        nxt = None
        if offset + limit < len(rows):
            query = urllib.parse.urlencode({**params, "limit": limit, "offset": offset + limit}, doseq=True)
            nxt = f"http://dcim.internal:8080/api/{base}?{query}"  # the DCIM names itself differently
        return self._answer(200, {"count": len(rows), "next": nxt, "previous": None, "results": page})

    def _ref(self, value):
        return {"id": value, "url": "…"} if value not in (None, "") else None

    REFS = ("manufacturer", "device_type", "role", "device_role", "rack", "location", "site", "tenant", "device", "status")

    def _store(self, base, obj):
        for k in self.REFS:
            if k in obj and not isinstance(obj[k], dict) and not (k == "status" and self.kind == "netbox"):
                obj[k] = self._ref(obj[k])
        if "tags" in obj:
            obj["tags"] = [{"id": t} for t in obj["tags"]]
        if self.kind == "netbox":
            for k in ("face", "weight_unit", "status", "type", "length_unit"):
                if k in obj and isinstance(obj[k], str) and obj[k] and base != "extras/tags/":
                    obj[k] = {"value": obj[k], "label": obj[k].title()}
        return obj

    def _refused(self, base, obj):
        required = {"dcim/devices/": ("name", "device_type", "rack", "status"), "dcim/racks/": ("name", "status")}
        missing = [k for k in required.get(base, ()) if obj.get(k) in (None, "")]
        if missing:
            return {k: ["This field is required."] for k in missing}
        if base == "dcim/devices/" and obj.get("position") is not None:
            dt = self.db["dcim/device-types/"][obj["device_type"]["id"] if isinstance(obj["device_type"], dict) else obj["device_type"]]
            mine = set(range(int(obj["position"]), int(obj["position"]) + int(dt["u_height"])))
            rack = obj["rack"]["id"] if isinstance(obj["rack"], dict) else obj["rack"]
            for other in self.all(base):
                if other["id"] == obj.get("id") or other.get("position") is None or other["rack"]["id"] != rack:
                    continue
                odt = self.db["dcim/device-types/"][other["device_type"]["id"]]
                theirs = set(range(int(other["position"]), int(other["position"]) + int(odt["u_height"])))
                if mine & theirs:
                    return {"position": [f"U{obj['position']} is already occupied or does not have sufficient space"]}
        if base == "dcim/cables/":
            ends = self._cable_ends(obj)
            for iface in ends:
                held = self.db["dcim/interfaces/"][iface].get("cable")
                if held and held["id"] != obj.get("id"):
                    return {"non_field_errors": [f"Interface {iface} already has a cable attached"]}
        return None

    def _cable_ends(self, obj):
        if self.kind == "nautobot":
            return [obj["termination_a_id"], obj["termination_b_id"]]
        return [t["object_id"] for side in ("a_terminations", "b_terminations") for t in obj[side]]

    def _create(self, base, data):
        obj = {"id": self.new_id(), **data}
        refused = self._refused(base, obj)
        if refused:
            return self._answer(400, refused)
        self._store(base, obj)
        self.db.setdefault(base, {})[obj["id"]] = obj
        if base == "dcim/devices/":
            for t in self.all("dcim/interface-templates/"):
                if t["device_type"]["id"] == obj["device_type"]["id"]:
                    self.seed("dcim/interfaces/", device={"id": obj["id"]}, name=t["name"], type=t["type"], cable=None)
        if base == "dcim/cables/":
            for iface in self._cable_ends(data):
                self.db["dcim/interfaces/"][iface]["cable"] = {"id": obj["id"]}
        if base == "dcim/interfaces/":
            obj.setdefault("cable", None)
        return self._answer(201, obj)

    def _update(self, base, obj_id, data):
        obj = self.db.get(base, {}).get(obj_id)
        if obj is None:
            return self._answer(404, {"detail": "Not found."})
        merged = {**obj, **data}
        refused = self._refused(base, merged)
        if refused:
            return self._answer(400, refused)
        obj.update(self._store(base, dict(data)))
        return self._answer(200, obj)
