"""Push a design's inventory (dcim/inventory.py) into Nautobot or NetBox over its REST API.

Public functions (names stable; tests/dcim/test_nautobot_live.py and dcim/tasks.py use them):

- ``plan_push(connection, inventory, *, client=None, progress=None) -> PushResult``
  the dry run: every lookup is made, nothing is written; each entry says what a push would do.
- ``apply_push(connection, inventory, *, client=None, progress=None) -> PushResult``
  creates what is missing and updates what differs, in dependency order: manufacturers, device types
  (with interface and power-port templates), roles, tags, racks, devices (status planned, at their U and
  face, HA tags), cables. Idempotent: objects are found by name (device types by manufacturer and model,
  racks and devices by name at the site/location, cables by their two interfaces), so a second push
  answers "unchanged" everywhere; a changed design moves devices (each moved device is first taken out
  of its U, then placed, so two devices may swap places).
- ``PushResult``: ``.actions`` (list of dicts: kind, name, action, changes, detail, status, id),
  ``.error`` (why the push stopped, "" if it did not), ``.version`` (the DCIM's version), ``.summary()``.

`connection` is a dcim.models.DcimConnection (or any object with kind, site, tenant); `client` defaults
to dcim.clients.client_for(connection). `progress(done, total, step)` is called after every object.

Actions: dry run "create" / "update" / "unchanged"; push "created" / "updated" / "unchanged"; both
"failed" (the DCIM refused it: its message is in `detail`), "skipped" (not written because something it
needs failed, or because the push stopped: `detail` says which) and "kept" (a device in one of the
design's racks that the design no longer has: left as it is). Network errors, auth failures (401/403)
and server errors stop the push; every object not reached is listed as "skipped", so the report says
exactly what was written and what was not. Devices are created with status planned; a later push does
not change a device's status (the data-centre team moves it on to active), only its place, type, role
and tags. Nothing is deleted, with one exception: a cable between two of the design's own devices (left
by an earlier push) that holds a port the changed design now cables otherwise is replaced ("recable" in a
dry run, "recabled" in a push, naming the old cable); a cable to any device outside the design is never
touched (the new cable is "failed", saying which port is taken).
"""

from __future__ import annotations

from dataclasses import dataclass, field

from celery.exceptions import SoftTimeLimitExceeded
from django.utils.text import slugify

from .clients import DcimError, client_for

NEW = "(new)"  # dry run: the id of an object that would be created
BATCH = 50  # names or ids a lookup request asks for at once (name=a&name=b...: both DCIMs take lists)
ROLE_COLOR = "9e9e9e"


@dataclass
class PushResult:
    actions: list[dict] = field(default_factory=list)
    error: str = ""
    version: str = ""
    dry_run: bool = False

    def summary(self) -> dict:
        counts: dict[str, int] = {}
        for a in self.actions:
            counts[a["action"]] = counts.get(a["action"], 0) + 1
        return counts

    @property
    def written(self) -> list[dict]:
        return [a for a in self.actions if a["action"] in ("created", "updated")]


class _Stop(Exception):
    """A fatal DcimError (network, auth, server): the push stops here."""


def _ref(value):
    """The id of a related object as the DCIM returns it (nested dict or bare id)."""
    if isinstance(value, dict):
        return value.get("id")
    return value


def _val(value):
    """A choice value as the DCIM returns it (NetBox: {"value", "label"}; Nautobot: the value)."""
    if isinstance(value, dict):
        return value.get("value")
    return value


def _shown(value):
    """A field's current value for the report: the id of a related object, the value of a choice."""
    if isinstance(value, dict):
        return value.get("id", value.get("value"))
    return value


def _same(a, b) -> bool:
    if isinstance(a, int | float) and isinstance(b, int | float) and not isinstance(a, bool) and not isinstance(b, bool):
        return abs(float(a) - float(b)) < 1e-6
    if isinstance(a, str) and isinstance(b, int | float) or isinstance(b, str) and isinstance(a, int | float):
        try:
            return abs(float(a) - float(b)) < 1e-6
        except ValueError:
            return False
    if a in (None, "") and b in (None, ""):
        return True
    return a == b


def _cable_length(cable) -> dict:
    """length and length_unit when the inventory gives a length (both DCIMs take them the same way)."""
    length = getattr(cable, "length", None)
    return {} if length is None else {"length": length, "length_unit": getattr(cable, "length_unit", "m") or "m"}


# ----------------------------------------------------------------------------------------------- dialects
class _Dialect:
    """How one DCIM names things. Subclasses: Nautobot (locations, extras/roles, status objects) and NetBox."""

    site_path = ""
    role_path = ""
    role_field = "role"

    def __init__(self, client, version: str):
        self.client = client
        self.version = version
        self._status: dict[str, object] = {}

    def site_fields(self, site_id) -> dict:
        raise NotImplementedError

    def status(self, name: str):
        raise NotImplementedError

    def manufacturer_payload(self, name: str) -> dict:
        return {"name": name}

    def device_type_lookup(self, mfr_id, model: str) -> dict:
        raise NotImplementedError

    def device_type_payload(self, dt, mfr_id) -> dict:
        raise NotImplementedError

    def template_lookup(self, dt_id) -> dict:
        raise NotImplementedError

    def role_payload(self, name: str) -> dict:
        raise NotImplementedError

    def tag_payload(self, name: str) -> dict:
        raise NotImplementedError

    def by_site(self, site_id) -> dict:
        raise NotImplementedError

    def by_device(self, device_id) -> dict:
        raise NotImplementedError

    def by_rack(self, rack_id) -> dict:
        raise NotImplementedError

    def cable_payload(self, a_id, b_id, cable) -> dict:
        raise NotImplementedError

    def cable_ends(self, cable: dict) -> set:
        raise NotImplementedError

    def interface_payload(self, device_id, iface) -> dict:
        return {"device": device_id, "name": iface.name, "type": iface.type, "mgmt_only": iface.mgmt_only}

    def fixup_role(self, existing: dict):
        """Changes an existing role needs to be usable for devices ({} when none)."""
        return {}


class _Nautobot(_Dialect):
    site_path = "dcim/locations/"
    role_path = "extras/roles/"

    def site_fields(self, site_id) -> dict:
        return {"location": site_id}

    def status(self, name: str):
        if name not in self._status:
            found = [s for s in self.client.list("extras/statuses/", {"name": name}) if s.get("name") == name]
            if not found:
                raise DcimError("refused", f"Nautobot has no status named {name!r}: add it (Extensibility > Statuses)")
            self._status[name] = found[0]["id"]
        return self._status[name]

    def device_type_lookup(self, mfr_id, model: str) -> dict:
        return {"manufacturer": mfr_id, "model": model}

    def device_type_payload(self, dt, mfr_id) -> dict:
        if float(dt.u_height) != int(dt.u_height):
            raise DcimError("refused", f"Nautobot device types have whole rack units only; {dt.model} is {dt.u_height} U")
        weight = f"\nWeight: {dt.weight:g} {dt.weight_unit}." if dt.weight is not None else ""
        return {
            "manufacturer": mfr_id,
            "model": dt.model,
            "part_number": dt.part_number,
            "u_height": int(dt.u_height),
            "is_full_depth": dt.is_full_depth,
            "comments": (dt.comments or "") + weight,
        }

    def template_lookup(self, dt_id) -> dict:
        return {"device_type": dt_id}

    def role_payload(self, name: str) -> dict:
        return {"name": name, "color": ROLE_COLOR, "content_types": ["dcim.device"]}

    def fixup_role(self, existing: dict):
        types = list(existing.get("content_types") or [])
        return {} if "dcim.device" in types else {"content_types": [*types, "dcim.device"]}

    def tag_payload(self, name: str) -> dict:
        return {"name": name, "content_types": ["dcim.device"]}

    def by_site(self, site_id) -> dict:
        return {"location": site_id}

    def by_device(self, device_id) -> dict:
        return {"device_id": device_id}  # Nautobot's `device` filter also matches other devices of the same name

    def by_rack(self, rack_id) -> dict:
        return {"rack": rack_id}

    def interface_payload(self, device_id, iface) -> dict:
        return {**super().interface_payload(device_id, iface), "status": self.status("Planned")}

    def cable_payload(self, a_id, b_id, cable) -> dict:
        return {
            "termination_a_type": "dcim.interface",
            "termination_a_id": a_id,
            "termination_b_type": "dcim.interface",
            "termination_b_id": b_id,
            "status": self.status("Planned"),
            "type": cable.type,
            "label": cable.label,
            **_cable_length(cable),
        }

    def cable_ends(self, cable: dict) -> set:
        return {cable.get("termination_a_id"), cable.get("termination_b_id")}


class _NetBox(_Dialect):
    site_path = "dcim/sites/"
    role_path = "dcim/device-roles/"

    def __init__(self, client, version: str):
        super().__init__(client, version)
        # NetBox 3.6 renamed the device's `device_role` to `role` (4.0 dropped the old name)
        try:
            major, minor = (int(x) for x in version.split(".")[:2])
            self.role_field = "role" if (major, minor) >= (3, 6) else "device_role"
        except ValueError:
            self.role_field = "role"

    def site_fields(self, site_id) -> dict:
        return {"site": site_id}

    def status(self, name: str):
        return name.lower()

    def manufacturer_payload(self, name: str) -> dict:
        return {"name": name, "slug": slugify(name)[:100]}

    def device_type_lookup(self, mfr_id, model: str) -> dict:
        return {"manufacturer_id": mfr_id, "model": model}

    def device_type_payload(self, dt, mfr_id) -> dict:
        data = {
            "manufacturer": mfr_id,
            "model": dt.model,
            "slug": dt.slug,
            "part_number": dt.part_number,
            "u_height": dt.u_height,
            "is_full_depth": dt.is_full_depth,
            "comments": dt.comments or "",
        }
        if dt.weight is not None:
            data.update(weight=dt.weight, weight_unit=dt.weight_unit)
        return data

    def template_lookup(self, dt_id) -> dict:
        # NetBox 4 calls the filter device_type_id, NetBox 3 devicetype_id; each ignores the other's name
        # (and the results are checked against the device type here as well)
        return {"device_type_id": dt_id, "devicetype_id": dt_id}

    def role_payload(self, name: str) -> dict:
        return {"name": name, "slug": slugify(name)[:100], "color": ROLE_COLOR}

    def tag_payload(self, name: str) -> dict:
        return {"name": name, "slug": slugify(name)[:100]}

    def by_site(self, site_id) -> dict:
        return {"site_id": site_id}

    def by_device(self, device_id) -> dict:
        return {"device_id": device_id}

    def by_rack(self, rack_id) -> dict:
        return {"rack_id": rack_id}

    def cable_payload(self, a_id, b_id, cable) -> dict:
        return {
            "a_terminations": [{"object_type": "dcim.interface", "object_id": a_id}],
            "b_terminations": [{"object_type": "dcim.interface", "object_id": b_id}],
            "status": "planned",
            "type": cable.type,
            "label": cable.label,
            **_cable_length(cable),
        }

    def cable_ends(self, cable: dict) -> set:
        ends = set()
        for side in ("a_terminations", "b_terminations"):
            for t in cable.get(side) or []:
                ends.add(t.get("object_id") or _ref(t.get("object")))
        return ends


# ----------------------------------------------------------------------------------------------- the run
def _place(dev) -> str:
    """Where a device goes, for the report: "rack-1 U5 front", or "rack-1, 0U (no U)" for PDUs."""
    return f"{dev.rack} U{dev.position} {dev.face}" if dev.position is not None else f"{dev.rack}, 0U (no U)"


def _dt_name(dt) -> str:
    return f"{dt.manufacturer} {dt.model}"


def _cable_name(c) -> str:
    ends = f"{c.a_device}:{c.a_interface} to {c.b_device}:{c.b_interface}"
    return f"{c.label} ({ends})" if c.label else ends


class _Run:
    def __init__(self, connection, inventory, client, write: bool, progress):
        self.conn = connection
        self.inv = inventory
        self.client = client
        self.write = write
        self.progress = progress
        self.result = PushResult(dry_run=not write)
        self.expected = self._expected()
        self.done = 0
        self.ids: dict[tuple[str, str], object] = {}  # (kind, name) -> DCIM id, NEW or None (failed)
        self.failed_because: dict[tuple[str, str], str] = {}

    def _expected(self) -> list[tuple[str, str]]:
        inv = self.inv
        out = [("manufacturer", m) for m in inv.manufacturers]
        for dt in inv.device_types:
            out.append(("device-type", _dt_name(dt)))
            out += [("interface-template", f"{dt.model}: {i.name}") for i in dt.interfaces]
            out += [("power-port-template", f"{dt.model}: {p.name}") for p in dt.power_ports]
        out += [("role", r) for r in dict.fromkeys(d.role for d in inv.devices)]
        out += [("tag", t) for t in dict.fromkeys(t for d in inv.devices for t in d.tags)]
        out += [("rack", r.name) for r in inv.racks]
        out += [("device", d.name) for d in inv.devices]
        out += [("cable", _cable_name(c)) for c in inv.cables]
        return out

    # -- bookkeeping
    def record(self, kind, name, action, *, obj_id=None, changes=None, detail="", status=None):
        entry = {"kind": kind, "name": name, "action": action}
        if changes:
            entry["changes"] = changes
        if detail:
            entry["detail"] = detail
        if status:
            entry["status"] = status
        if obj_id not in (None, NEW):
            entry["id"] = obj_id
        self.result.actions.append(entry)
        if action in ("failed", "skipped"):
            self.ids.setdefault((kind, name), None)
        self.done += 1
        if self.progress:
            self.progress(min(self.done, self.total), self.total, f"{kind} {name}")

    @property
    def total(self) -> int:
        return max(len(self.expected), self.done)

    def call(self, fn, *args, **kwargs):
        """A DCIM call whose fatal errors stop the run."""
        try:
            return fn(*args, **kwargs)
        except DcimError as exc:
            if exc.fatal:
                raise _Stop(exc) from exc
            raise

    def find(self, path, params, **match):
        """The one object at `path` matching `params` (and, checked here too, `match`), or None."""
        found = self.call(self.client.list, path, params)
        for obj in found:
            if all(_same(_ref(obj.get(k)), v) or _same(obj.get(k), v) for k, v in match.items()):
                return obj
        return None

    def ensure(self, kind, name, path, lookup, payload, compare, *, match=None, parent_new=False, fixup=None):
        """Find by `lookup`; create with `payload` when missing; PATCH the fields of `compare` that differ.
        Records the action and returns the object's id (NEW in a dry run, None when it failed)."""
        try:
            existing = None if parent_new else self.find(path, lookup, **(match or {}))
            if existing is None:
                if not self.write:
                    self.record(kind, name, "create")
                    self.ids[(kind, name)] = NEW
                    return NEW
                try:
                    made = self.call(self.client.create, path, payload() if callable(payload) else payload)
                except DcimError as exc:
                    # another push (or a person) may have created it since the lookup: a name taken
                    # is then a 400; take the object that is there now and carry on as if found
                    existing = self.find(path, lookup, **(match or {})) if 400 <= (exc.status or 0) < 500 else None
                    if existing is None:
                        raise
                else:
                    self.record(kind, name, "created", obj_id=made.get("id"))
                    self.ids[(kind, name)] = made.get("id")
                    return made.get("id")
            changes = {}
            for key, want in compare.items():
                have = existing.get(key)
                if isinstance(want, list):
                    if sorted(map(str, (_ref(x) for x in have or []))) != sorted(map(str, want)):
                        changes[key] = [[_ref(x) for x in have or []], want]
                elif not (_same(_ref(have), want) or _same(_val(have), want)):
                    changes[key] = [_shown(have), want]
            if fixup:
                extra = fixup(existing)
                for key, want in extra.items():
                    changes[key] = [existing.get(key), want]
            obj_id = existing["id"]
            self.ids[(kind, name)] = obj_id
            if not changes:
                self.record(kind, name, "unchanged", obj_id=obj_id)
                return obj_id
            if not self.write:
                self.record(kind, name, "update", obj_id=obj_id, changes=changes)
                return obj_id
            self.call(self.client.update, path, obj_id, {k: v[1] for k, v in changes.items()})
            self.record(kind, name, "updated", obj_id=obj_id, changes=changes)
            return obj_id
        except DcimError as exc:
            self.record(kind, name, "failed", detail=exc.detail, status=exc.status or None)
            self.ids[(kind, name)] = None
            return None

    def skip(self, kind, name, because):
        self.record(kind, name, "skipped", detail=f"not written: {because}")

    # -- the steps
    def run(self) -> PushResult:
        try:
            self.result.version = self.call(self.client.version)
            self.dialect = (_NetBox if self.conn.kind == "netbox" else _Nautobot)(self.client, self.result.version)
            self._context()
            self._manufacturers()
            self._device_types()
            self._roles_and_tags()
            self._racks()
            self._devices()
            self._cables()
        except _Stop as stop:
            exc = stop.args[0]
            self.result.error = f"The push stopped: {exc}"
            self._rest_not_written(str(exc))
        except DcimError as exc:  # a missing site/location, tenant or status: nothing can be placed
            self.result.error = f"The push could not start: {exc.detail}"
            self._rest_not_written(exc.detail)
        except SoftTimeLimitExceeded:
            self.result.error = (
                "The push took longer than its time limit and was stopped; what was written is listed and is found "
                "again by the next push: push again to finish."
            )
            self._rest_not_written("the time limit was reached")
        return self.result

    def _rest_not_written(self, why: str):
        seen = {(a["kind"], a["name"]) for a in self.result.actions}
        for kind, name in self.expected:
            if (kind, name) not in seen:
                self.skip(kind, name, f"the push stopped before this ({why})")

    def _context(self):
        d = self.dialect
        place = "location" if self.conn.kind == "nautobot" else "site"
        site = self.find(d.site_path, {"name": self.conn.site}, name=self.conn.site)
        if site is None:
            raise DcimError("refused", f"the {place} {self.conn.site!r} does not exist in the DCIM: create it there first")
        self.site_id = site["id"]
        self.tenant_id = None
        if self.conn.tenant:
            tenant = self.find("tenancy/tenants/", {"name": self.conn.tenant}, name=self.conn.tenant)
            if tenant is None:
                raise DcimError("refused", f"the tenant {self.conn.tenant!r} does not exist in the DCIM")
            self.tenant_id = tenant["id"]
        self.planned = self.call(d.status, "Planned")

    def _manufacturers(self):
        d = self.dialect
        for name in self.inv.manufacturers:
            self.ensure("manufacturer", name, "dcim/manufacturers/", {"name": name}, d.manufacturer_payload(name), {}, match={"name": name})

    def _device_types(self):
        d = self.dialect
        for dt in self.inv.device_types:
            name = _dt_name(dt)
            mfr = self.ids.get(("manufacturer", dt.manufacturer))
            if mfr is None:
                self.skip("device-type", name, f"its manufacturer {dt.manufacturer} failed")
                self._skip_templates(dt, f"its device type {name} failed")
                continue
            try:
                payload = d.device_type_payload(dt, mfr)
            except DcimError as exc:
                self.record("device-type", name, "failed", detail=exc.detail)
                self._skip_templates(dt, f"its device type {name} failed")
                continue
            compare = {k: payload[k] for k in ("part_number", "u_height", "is_full_depth", "weight", "weight_unit") if k in payload}
            dt_id = self.ensure(
                "device-type",
                name,
                "dcim/device-types/",
                d.device_type_lookup(mfr, dt.model),
                payload,
                compare,
                match={"model": dt.model, "manufacturer": mfr},
                parent_new=mfr == NEW,
            )
            if dt_id is None:
                self._skip_templates(dt, f"its device type {name} failed")
                continue
            self.ids[("device-type-slug", dt.slug)] = dt_id
            self._templates(dt, dt_id)

    def _skip_templates(self, dt, because):
        for i in dt.interfaces:
            self.skip("interface-template", f"{dt.model}: {i.name}", because)
        for p in dt.power_ports:
            self.skip("power-port-template", f"{dt.model}: {p.name}", because)

    def _templates(self, dt, dt_id):
        d = self.dialect
        for path, kind, items, fields in (
            ("dcim/interface-templates/", "interface-template", dt.interfaces, ("type", "mgmt_only")),
            ("dcim/power-port-templates/", "power-port-template", dt.power_ports, ("type", "maximum_draw", "allocated_draw")),
        ):
            existing = {}
            if dt_id != NEW:
                for t in self.call(self.client.list, path, d.template_lookup(dt_id)):
                    if _same(_ref(t.get("device_type")), dt_id):
                        existing[t.get("name")] = t
            for item in items:
                name = f"{dt.model}: {item.name}"
                want = {f: getattr(item, f) for f in fields}
                have = existing.get(item.name)
                try:
                    if have is None:
                        if not self.write:
                            self.record(kind, name, "create")
                            continue
                        made = self.call(self.client.create, path, {"device_type": dt_id, "name": item.name, **want})
                        self.record(kind, name, "created", obj_id=made.get("id"))
                        continue
                    changes = {
                        f: [_val(have.get(f)), v]
                        for f, v in want.items()
                        if not (_same(_val(have.get(f)), v) or (v is None and not have.get(f)))
                    }
                    if not changes:
                        self.record(kind, name, "unchanged", obj_id=have["id"])
                    elif not self.write:
                        self.record(kind, name, "update", obj_id=have["id"], changes=changes)
                    else:
                        self.call(self.client.update, path, have["id"], {k: v[1] for k, v in changes.items()})
                        self.record(kind, name, "updated", obj_id=have["id"], changes=changes)
                except DcimError as exc:
                    self.record(kind, name, "failed", detail=exc.detail, status=exc.status or None)

    def _roles_and_tags(self):
        d = self.dialect
        for role in dict.fromkeys(dev.role for dev in self.inv.devices):
            self.ensure("role", role, d.role_path, {"name": role}, d.role_payload(role), {}, match={"name": role}, fixup=d.fixup_role)
        for tag in dict.fromkeys(t for dev in self.inv.devices for t in dev.tags):
            fix = d.fixup_role if isinstance(d, _Nautobot) else None  # Nautobot tags name their content types too
            self.ensure("tag", tag, "extras/tags/", {"name": tag}, d.tag_payload(tag), {}, match={"name": tag}, fixup=fix)

    def _racks(self):
        d = self.dialect
        for rack in self.inv.racks:
            payload = {"name": rack.name, **d.site_fields(self.site_id), "status": self.planned, "u_height": rack.u_height}
            if self.tenant_id:
                payload["tenant"] = self.tenant_id
            compare = {"u_height": rack.u_height}
            lookup = {"name": rack.name, **d.by_site(self.site_id)}
            self.ensure("rack", rack.name, "dcim/racks/", lookup, payload, compare, match={"name": rack.name})

    def _devices(self):
        d = self.dialect
        moves = []  # (device, id, changes) placed after every moved device has left its U
        creates = []  # (device, payload) created once the moved devices have their new places
        design_names = {dev.name for dev in self.inv.devices}
        known = {}  # the design's devices already at the site/location, fetched BATCH names a request
        names = list(dict.fromkeys(dev.name for dev in self.inv.devices))
        for start in range(0, len(names), BATCH):
            chunk = names[start : start + BATCH]
            for obj in self.call(self.client.list, "dcim/devices/", {"name": chunk, **d.by_site(self.site_id)}):
                if obj.get("name") in chunk:
                    known[obj["name"]] = obj
        for dev in self.inv.devices:
            needs = {
                "device type": self.ids.get(("device-type-slug", dev.device_type)),
                "rack": self.ids.get(("rack", dev.rack)),
                "role": self.ids.get(("role", dev.role)),
            }
            needs.update({f"tag {t}": self.ids.get(("tag", t)) for t in dev.tags})
            missing = [k for k, v in needs.items() if v is None]
            if missing:
                self.skip("device", dev.name, f"its {', '.join(missing)} failed or is missing")
                continue
            want = {
                "device_type": needs["device type"],
                d.role_field: needs["role"],
                "rack": needs["rack"],
                "position": dev.position,
                "face": dev.face if dev.position is not None else "",
                "tags": [needs[f"tag {t}"] for t in dev.tags],
            }
            if self.tenant_id:
                want["tenant"] = self.tenant_id
            payload = {"name": dev.name, **d.site_fields(self.site_id), "status": d.status(dev.status.title()), **want}
            try:
                existing = known.get(dev.name)
                if existing is None:
                    if not self.write:
                        self.record("device", dev.name, "create", detail=_place(dev))
                        self.ids[("device", dev.name)] = NEW
                        continue
                    creates.append((dev, payload))  # after the moves: a new device may take a U a moved one leaves
                    continue
                self.ids[("device", dev.name)] = existing["id"]
                changes = {}
                for key, value in want.items():
                    have = existing.get(key)
                    if key == "tags":
                        if sorted(str(_ref(t)) for t in have or []) != sorted(map(str, value)):
                            changes[key] = [[_ref(t) for t in have or []], value]
                    elif not (_same(_ref(have), value) or _same(_val(have), value)):
                        changes[key] = [_shown(have), value]
                if not changes:
                    self.record("device", dev.name, "unchanged", obj_id=existing["id"])
                elif not self.write:
                    self.record("device", dev.name, "update", obj_id=existing["id"], changes=changes)
                else:
                    moves.append((dev, existing, changes, want))
            except DcimError as exc:
                self.record("device", dev.name, "failed", detail=exc.detail, status=exc.status or None)
                self.ids[("device", dev.name)] = None
        self._move(moves)
        for dev, payload in creates:
            try:
                made = self.call(self.client.create, "dcim/devices/", payload)
                self.ids[("device", dev.name)] = made["id"]
                self.record("device", dev.name, "created", obj_id=made["id"], detail=_place(dev))
            except DcimError as exc:
                self.record("device", dev.name, "failed", detail=exc.detail, status=exc.status or None)
                self.ids[("device", dev.name)] = None
        self._kept(design_names)

    def _move(self, moves):
        """Devices that change place leave their U first (position cleared), then all are placed: two devices
        of the design may swap places. A device that cannot be placed afterwards is reported as unplaced."""
        vacated, notes = {}, {}
        for dev, existing, changes, _want in moves:
            if ("position" in changes or "rack" in changes) and existing.get("position") is not None:
                try:
                    self.call(self.client.update, "dcim/devices/", existing["id"], {"position": None, "face": ""})
                    vacated[dev.name] = existing.get("position")
                except DcimError as exc:
                    notes[dev.name] = f"(taking it out of its U first was refused: {exc.detail})"
        for dev, existing, changes, want in moves:
            note = notes.get(dev.name, "")
            data = {k: v[1] for k, v in changes.items()}
            if dev.name in vacated:  # its face was cleared with its position: send the whole place again
                data.update({k: want[k] for k in ("rack", "position", "face")})
            try:
                self.call(self.client.update, "dcim/devices/", existing["id"], data)
                self.record("device", dev.name, "updated", obj_id=existing["id"], changes=changes)
            except DcimError as exc:
                left = f" It was taken out of U{vacated[dev.name]:g} and is now unplaced in its rack." if dev.name in vacated else ""
                self.record(
                    "device", dev.name, "failed", obj_id=existing["id"], detail=f"{exc.detail}{left} {note}".strip(), status=exc.status
                )

    def _kept(self, design_names):
        """Devices in the design's racks that the design no longer has: listed, never deleted."""
        for rack in self.inv.racks:
            rack_id = self.ids.get(("rack", rack.name))
            if rack_id in (None, NEW):
                continue
            try:
                others = self.call(self.client.list, "dcim/devices/", self.dialect.by_rack(rack_id))
            except DcimError:
                continue  # a refusal of the listing only costs this note
            for other in others:
                if other.get("name") and other["name"] not in design_names and _same(_ref(other.get("rack")), rack_id):
                    self.record(
                        "device",
                        other["name"],
                        "kept",
                        obj_id=other.get("id"),
                        detail=f"in rack {rack.name} but not in this design: left as it is",
                    )

    def _prefetch_interfaces(self):
        """Interfaces of every cabled device of the design, BATCH devices a request, and the cables they hold."""
        names = list(dict.fromkeys(n for c in self.inv.cables for n in (c.a_device, c.b_device)))
        ids = {}
        for name in names:
            dev_id = self.ids.get(("device", name))
            if dev_id in (None, NEW):
                self.ids[("interfaces", name)] = dev_id
            else:
                ids[str(dev_id)] = name
                self.ids[("interfaces", name)] = {}
        id_list = list(ids)
        for start in range(0, len(id_list), BATCH):
            chunk = id_list[start : start + BATCH]
            for iface in self.call(self.client.list, "dcim/interfaces/", self.dialect.by_device(chunk)):
                owner = ids.get(str(_ref(iface.get("device"))))
                if owner is not None:
                    self.ids[("interfaces", owner)][iface["name"]] = iface
        cable_ids = list(
            dict.fromkeys(str(_ref(i["cable"])) for n in ids.values() for i in self.ids[("interfaces", n)].values() if _ref(i.get("cable")))
        )
        self.cables = {}
        for start in range(0, len(cable_ids), BATCH):
            for cable in self.call(self.client.list, "dcim/cables/", {"id": cable_ids[start : start + BATCH]}):
                self.cables[str(cable["id"])] = cable

    def _interfaces(self, device_name):
        key = ("interfaces", device_name)
        if key not in self.ids:
            dev_id = self.ids.get(("device", device_name))
            if dev_id in (None, NEW):
                self.ids[key] = dev_id
            else:
                found = self.call(self.client.list, "dcim/interfaces/", self.dialect.by_device(dev_id))
                self.ids[key] = {i["name"]: i for i in found if _same(_ref(i.get("device")), dev_id)}
        return self.ids[key]

    def _interface(self, device_name, iface_name):
        """The interface's id (creating it on a device made before its type had it), NEW, or None."""
        found = self._interfaces(device_name)
        if found in (None, NEW):
            return found, None
        if iface_name in found:
            return found[iface_name]["id"], found[iface_name]
        dev = next(x for x in self.inv.devices if x.name == device_name)
        dt = next((t for t in self.inv.device_types if t.slug == dev.device_type), None)
        spec = next((i for i in (dt.interfaces if dt else ()) if i.name == iface_name), None)
        name = f"{device_name}: {iface_name}"
        if spec is None:
            self.record("interface", name, "failed", detail="the device type has no such interface")
            return None, None
        if not self.write:
            self.record("interface", name, "create", detail="the device has no such interface yet (made before its type had it)")
            return NEW, None
        try:
            made = self.call(
                self.client.create, "dcim/interfaces/", self.dialect.interface_payload(self.ids[("device", device_name)], spec)
            )
        except DcimError as exc:
            self.record("interface", name, "failed", detail=exc.detail, status=exc.status)
            return None, None
        self.record("interface", name, "created", obj_id=made.get("id"))
        found[iface_name] = made
        return made["id"], made

    @property
    def _iface_by_id(self) -> dict:
        """The design's devices' interfaces known so far, by id."""
        return {
            str(i["id"]): i
            for key, found in self.ids.items()
            if isinstance(key, tuple) and key[0] == "interfaces" and isinstance(found, dict)
            for i in found.values()
        }

    def _design_interface_ids(self) -> set:
        return set(self._iface_by_id)

    def _iface_label(self, ids) -> str:
        names = {
            str(i["id"]): f"{dev}:{name}"
            for key, found in self.ids.items()
            if isinstance(key, tuple) and key[0] == "interfaces" and isinstance(found, dict)
            for dev, name, i in ((key[1], n, i) for n, i in found.items())
        }
        return " and ".join(sorted(names.get(x, x) for x in ids))

    def _wanted_pairs(self) -> set:
        """The interface-id pairs the design's cables join (those known already)."""
        if self._wanted is None:
            wanted = set()
            for c in self.inv.cables:
                a = (self._interfaces(c.a_device) or {}) if self._interfaces(c.a_device) not in (None, NEW) else {}
                b = (self._interfaces(c.b_device) or {}) if self._interfaces(c.b_device) not in (None, NEW) else {}
                if c.a_interface in a and c.b_interface in b:
                    wanted.add(_pair_key(a[c.a_interface]["id"], b[c.b_interface]["id"]))
            self._wanted = wanted
        return self._wanted

    def _cables(self):
        d = self.dialect
        self._wanted = None
        self._prefetch_interfaces()
        for cable in self.inv.cables:
            name = _cable_name(cable)
            try:
                a_id, a = self._interface(cable.a_device, cable.a_interface)
                b_id, b = self._interface(cable.b_device, cable.b_interface)
                if a_id is None or b_id is None:
                    self.skip("cable", name, "one of its devices or interfaces failed or is missing")
                    continue
                if NEW in (a_id, b_id):
                    self.record("cable", name, "create")
                    continue
                a_cable, b_cable = _ref((a or {}).get("cable")), _ref((b or {}).get("cable"))
                held = [x for x in dict.fromkeys(str(c) for c in (a_cable, b_cable) if c)]
                if held:
                    olds = [self.cables.get(x) or self.call(self.client.get, "dcim/cables/", x) for x in held]
                    existing = olds[0]
                    if len(olds) == 1 and {str(x) for x in d.cable_ends(existing)} == {str(a_id), str(b_id)}:
                        compare = {"label": cable.label, "type": cable.type, **_cable_length(cable)}
                        changes = {k: [_val(existing.get(k)), v] for k, v in compare.items() if not _same(_val(existing.get(k)), v)}
                        if not changes:
                            self.record("cable", name, "unchanged", obj_id=existing["id"])
                        elif not self.write:
                            self.record("cable", name, "update", obj_id=existing["id"], changes=changes)
                        else:
                            self.call(self.client.update, "dcim/cables/", existing["id"], {k: v[1] for k, v in changes.items()})
                            self.record("cable", name, "updated", obj_id=existing["id"], changes=changes)
                        continue
                    ours = self._design_interface_ids()
                    foreign = [
                        old
                        for old in olds
                        if not (ends := {str(x) for x in d.cable_ends(old)}) or not ends <= ours or frozenset(ends) in self._wanted_pairs()
                    ]
                    if foreign:
                        held_a = a_cable is not None and str(a_cable) == str(foreign[0].get("id"))
                        busy = cable.a_interface if held_a else cable.b_interface
                        owner = cable.a_device if held_a else cable.b_device
                        self.record(
                            "cable",
                            name,
                            "failed",
                            detail=f"{owner}:{busy} is already cabled elsewhere in the DCIM (cable {foreign[0].get('id')}); "
                            "remove that cable there first if the design is right",
                        )
                        continue
                    # cables of an earlier push of this design (both ends on its devices) that the design no longer
                    # has: it changed its ports (e.g. bricks added before the metadata cell took their switch ports)
                    old = "; ".join(f"cable {o.get('id')} between {self._iface_label({str(x) for x in d.cable_ends(o)})}" for o in olds)
                    if not self.write:
                        self.record("cable", name, "recable", obj_id=existing.get("id"), detail=f"replaces {old}")
                        continue
                    for o in olds:
                        self.call(self.client.delete, "dcim/cables/", o["id"])
                        for iface in self._iface_by_id.values():
                            if _ref(iface.get("cable")) is not None and str(_ref(iface.get("cable"))) == str(o["id"]):
                                iface["cable"] = None
                        self.cables.pop(str(o["id"]), None)
                    made = self.call(self.client.create, "dcim/cables/", d.cable_payload(a_id, b_id, cable))
                    self.record("cable", name, "recabled", obj_id=made.get("id"), detail=f"replaced {old}, no longer in the design")
                    self.cables[str(made.get("id"))] = made
                    for dev, iface in ((cable.a_device, cable.a_interface), (cable.b_device, cable.b_interface)):
                        self._interfaces(dev)[iface] = {**self._interfaces(dev)[iface], "cable": {"id": made.get("id")}}
                    continue
                if not self.write:
                    self.record("cable", name, "create")
                    continue
                made = self.call(self.client.create, "dcim/cables/", d.cable_payload(a_id, b_id, cable))
                self.record("cable", name, "created", obj_id=made.get("id"))
                self.cables[str(made.get("id"))] = made
                for dev, iface in ((cable.a_device, cable.a_interface), (cable.b_device, cable.b_interface)):
                    self._interfaces(dev)[iface] = {**self._interfaces(dev)[iface], "cable": {"id": made.get("id")}}
            except DcimError as exc:
                self.record("cable", name, "failed", detail=exc.detail, status=exc.status or None)


def _pair_key(a, b) -> frozenset:
    return frozenset((str(a), str(b)))


def plan_push(connection, inventory, *, client=None, progress=None) -> PushResult:
    """Dry run: what a push of `inventory` through `connection` would create or change; writes nothing."""
    return _Run(connection, inventory, client or client_for(connection), False, progress).run()


def apply_push(connection, inventory, *, client=None, progress=None) -> PushResult:
    """Create what is missing and update what differs; returns the per-object report (see module doc)."""
    return _Run(connection, inventory, client or client_for(connection), True, progress).run()


# ----------------------------------------------------------------------------------------------- services
# The only place that joins the ORM, the inventory and the DCIM client: the API and the task call these.
class PushNotStarted(Exception):
    """The push job could not be handed to the task queue (wraps planner.services.jobs.BrokerUnavailable)."""


def push_request(*, user, connection, design, dry_run: bool):
    """Save a DcimPush row for `design`'s current version, then hand it to the exports queue (or run it
    now in eager mode). Raises planner.services.jobs.BrokerUnavailable (job kept, re-sent when polled)."""
    from .models import DcimPush

    push = DcimPush.objects.create(owner=user, connection=connection, design=design, design_version=design.version, dry_run=dry_run)
    push_send(push)
    return push


def push_send(push) -> None:
    """Send the push's task (planner.services.jobs, as exports and solves); record when the broker took it.
    Raises planner.services.jobs.BrokerUnavailable, the row kept for a re-send."""
    from planner.services import jobs

    jobs.send_now(push)


def push_resend_if_lost(push) -> bool:
    """A queued push the broker never took is sent again when someone polls it (and by celery beat)."""
    from planner.services import jobs

    return jobs.resend_if_lost(push)


def push_fail(*, push_id: int, reason: str) -> None:
    from django.utils import timezone

    from .models import DcimPush

    DcimPush.objects.filter(pk=push_id).exclude(status="done").update(status="failed", error=reason, finished_at=timezone.now())


def push_run(*, push_id: int, transport=None):
    """Run push `push_id` (dry run or push): builds the design's inventory, talks to the DCIM, saves
    progress as it goes and the report at the end. A finished push is not run again."""
    import time

    from django.utils import timezone

    from .crypto import TokenUnreadable
    from .inventory import inventory_for_design
    from .models import DcimPush

    push = DcimPush.objects.select_related("connection", "design").get(pk=push_id)
    if push.status in (DcimPush.Status.DONE, DcimPush.Status.FAILED):
        return push
    DcimPush.objects.filter(pk=push.pk).update(status=DcimPush.Status.RUNNING, started_at=timezone.now(), progress_step="starting")
    design = push.design
    if design.version != push.design_version:
        push_fail(
            push_id=push.pk,
            reason=f"The design was changed (it is now version {design.version}) after this was asked for (version "
            f"{push.design_version}); nothing was sent. Run the dry run again.",
        )
        return DcimPush.objects.get(pk=push.pk)
    try:
        inventory = inventory_for_design(design)
    except Exception as exc:  # noqa: BLE001 - the design cannot be turned into racks and devices: say why
        push_fail(push_id=push.pk, reason=f"The design could not be turned into racks and devices: {exc}")
        return DcimPush.objects.get(pk=push.pk)
    try:
        client = client_for(push.connection, transport=transport)
    except TokenUnreadable as exc:
        push_fail(push_id=push.pk, reason=str(exc))
        return DcimPush.objects.get(pk=push.pk)
    last = [0.0]

    def progress(done, total, step):
        now = time.monotonic()
        if now - last[0] >= 0.5 or done == total:
            last[0] = now
            DcimPush.objects.filter(pk=push.pk).update(progress_done=done, progress_total=total, progress_step=step[:200])

    run = plan_push if push.dry_run else apply_push
    result = run(push.connection, inventory, client=client, progress=progress)
    failed = sum(1 for a in result.actions if a["action"] == "failed")
    error = result.error or (f"{failed} object(s) were refused by the DCIM: see the report." if failed else "")
    done = sum(1 for a in result.actions if a["action"] != "skipped") if result.error else len(result.actions)
    DcimPush.objects.filter(pk=push.pk).update(
        status=DcimPush.Status.FAILED if result.error else DcimPush.Status.DONE,
        report=result.actions,
        error=error,
        progress_done=done,
        progress_total=len(result.actions),
        progress_step=f"{result.version and 'DCIM version ' + result.version}".strip(),
        finished_at=timezone.now(),
    )
    return DcimPush.objects.get(pk=push.pk)
