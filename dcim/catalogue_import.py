"""Device types from the community library into the catalogue: each becomes a Server, an Enclosure or
a Switch, by a kind the user gives per file or a guess shown with its reason.

Only what the file says is taken, each figure with a source note citing the file
("devicetype-library PowerEdge-R730xd.yaml: u_height 2"): height, weight (converted to kg, the unit
stated), the supplies' maximum draw (as a server's `max_power_w`), and for a switch its port count and
speed where the interface type names a speed. The figures the planner needs and the library does not
carry (a server's PCIe slots, data bays and typical power under streaming load; an enclosure's drive
slots, controllers and uplinks; a switch's typical power) are listed in the record's `missing_figures`
and stored as placeholders meanwhile; the part is refused by every design until they are entered with
their source notes (see `hardware_catalog.models.IncompleteMixin`).

On power, decided here and said in the notes: `maximum_draw` is what a supply is rated for, so the
largest port's value is taken as `max_power_w` (with 1+1 redundant supplies one carries the whole load;
their sum would double it). `allocated_draw` is a budget the file's author chose for capacity planning,
not a measurement under streaming I/O, so it is never taken as the typical `power_w`: that stays missing.
"""

from __future__ import annotations

import math
from collections import Counter
from dataclasses import dataclass, field

from django.core.exceptions import ValidationError
from django.db import transaction

from hardware_catalog import models as cat

from .library import LibraryDeviceType, LibraryError, LibraryResult

ENCLOSURE_KINDS = {
    "raid-head": cat.Enclosure.Kind.RAID_HEAD,
    "expansion": cat.Enclosure.Kind.EXPANSION,
    "jbod": cat.Enclosure.Kind.JBOD,
    "iscsi-array": cat.Enclosure.Kind.ISCSI_ARRAY,
    "fc-array": cat.Enclosure.Kind.FC_ARRAY,
}
KINDS = ("server", "switch") + tuple(ENCLOSURE_KINDS)
"""What a device type may become: a server, a switch, or an enclosure of one of these kinds."""

CATALOGUE = {"server": (cat.Server, "servers"), "switch": (cat.Switch, "switches")}
CATALOGUE.update({k: (cat.Enclosure, "enclosures") for k in ENCLOSURE_KINDS})

MAX_HEIGHT_U = 60
"""Taller device types are refused: no rack holds them (and the catalogue's column is a small integer)."""
MAX_SWITCH_PORTS = 10000

SWITCH_MIN_PORTS = 12
"""A guess: a device of at most 2U with this many network ports (management ports aside) is a switch."""

MISSING = {
    "server": ("pcie_slots", "internal_bays", "power_w"),
    "switch": ("power_w",),
    "enclosure": ("drive_slots", "power_w", "uplink_ports", "uplink_lanes", "uplink_lane_gbps", "uplink_efficiency"),
    "controllers": ("controllers", "controller_read_mbps", "controller_write_mbps", "max_expansions"),
}
"""Figures the planner needs that no device-type file carries, per catalogue kind."""

PLACEHOLDERS = {
    cat.Server: {"pcie_slots": 0, "internal_bays": 0, "power_w": 0.0, "weight_kg": 0.0},
    cat.Enclosure: {
        "drive_slots": 1,
        "power_w": 0.0,
        "weight_kg": 0.0,
        "controllers": 0,
        "uplink_ports": 0,
        "uplink_lanes": 1,
        "uplink_lane_gbps": 0.0,
        "uplink_efficiency": 1.0,
        "max_expansions": 0,
    },
    cat.Switch: {"ports": 1, "port_gbps": 0.0, "power_w": 0.0, "weight_kg": 0.0},
}
"""Values stored in NOT NULL columns while a figure is missing. Never used: the part is refused first."""


class ImportRefused(Exception):
    """The import cannot go ahead; `errors` name the file, the key and the problem."""

    def __init__(self, errors: list[LibraryError]):
        super().__init__("; ".join(str(e) for e in errors))
        self.errors = errors


@dataclass
class PlannedPart:
    """What one device type becomes: the kind (given or guessed, with the reason), the figures taken
    with their notes, the figures missing, remarks, and what happens to the catalogue record."""

    file: str
    slug: str
    name: str
    kind: str
    kind_given: bool
    kind_reason: str
    values: dict = field(default_factory=dict)
    notes: dict = field(default_factory=dict)
    missing: list[str] = field(default_factory=list)
    remarks: list[str] = field(default_factory=list)
    action: str = ""
    changes: dict = field(default_factory=dict)

    @property
    def model(self):
        return CATALOGUE[self.kind][0]

    def as_dict(self) -> dict:
        """The preview/result row the API and the page show."""
        return {
            "file": self.file,
            "slug": self.slug,
            "name": self.name,
            "kind": self.kind,
            "kind_given": self.kind_given,
            "kind_reason": self.kind_reason,
            "catalogue": CATALOGUE[self.kind][1],
            "action": self.action,
            "figures": [{"figure": k, "value": self.values[k], "note": self.notes[k]} for k in self.notes],
            "missing_figures": list(self.missing),
            "remarks": list(self.remarks),
            "changes": {k: {"before": old, "after": new} for k, (old, new) in self.changes.items()},
        }


def guess_kind(dt: LibraryDeviceType) -> tuple[str, str]:
    """A kind for a device type the user did not classify, and why: many network ports in at most 2U is
    a switch; no network port but management is a disk enclosure (a JBOD unless told otherwise); anything
    else a server."""
    data = dt.data_interfaces
    height = f"{dt.u_height:g}U"
    if len(data) >= SWITCH_MIN_PORTS and dt.u_height <= 2:
        return "switch", f"guessed: {len(data)} network ports (management aside) in {height}, so a switch"
    if not data:
        return "jbod", (
            f"guessed: no network port but management in {height}, so a disk enclosure, taken as a JBOD; "
            "give the kind raid-head or expansion if it is one"
        )
    return "server", f"guessed: {len(data)} network port{'s' if len(data) != 1 else ''} in {height} and not switch-like, so a server"


def _note(dt: LibraryDeviceType, text: str) -> str:
    return f"devicetype-library {dt.file}: {text}"


def _height(dt: LibraryDeviceType, part: PlannedPart, errors: list[LibraryError]) -> None:
    if dt.u_height <= 0:
        errors.append(LibraryError(dt.file, "u_height", f"0U cannot be a rack-mounted {part.kind}; the planner places it in rack units"))
        return
    if dt.u_height > MAX_HEIGHT_U:
        errors.append(LibraryError(dt.file, "u_height", f"{dt.u_height:g}U is taller than any rack ({MAX_HEIGHT_U}U at most here)"))
        return
    units = math.ceil(dt.u_height)
    part.values["height_u"] = units
    if units != dt.u_height:
        part.notes["height_u"] = _note(dt, f"u_height {dt.u_height:g}, counted as {units}U (the planner places whole rack units)")
    else:
        part.notes["height_u"] = _note(dt, f"u_height {units}")


def _weight(dt: LibraryDeviceType, part: PlannedPart) -> None:
    if dt.weight is None:
        part.missing.append("weight_kg")
        part.remarks.append("the file gives no weight")
        return
    kg = round(dt.weight_kg, 3)
    part.values["weight_kg"] = kg
    text = f"weight {dt.weight:g} {dt.weight_unit}" + ("" if dt.weight_unit == "kg" else f" = {kg:g} kg")
    part.notes["weight_kg"] = _note(dt, text + " (the device as the file describes it; whether drives are included is not stated)")


def _power(dt: LibraryDeviceType, part: PlannedPart) -> None:
    rated = [p.maximum_draw for p in dt.power_ports if p.maximum_draw]
    allocated = [p.allocated_draw for p in dt.power_ports if p.allocated_draw]
    ports = len(dt.power_ports)
    if rated and part.model is cat.Server:
        part.values["max_power_w"] = float(max(rated))
        part.notes["max_power_w"] = _note(
            dt,
            f"maximum_draw {', '.join(str(r) for r in rated)} W on {ports} power port{'s' if ports != 1 else ''}; the largest taken "
            "as the supply rating (redundant supplies share the load, so their sum would overstate it)",
        )
    elif rated:
        part.remarks.append(
            f"maximum_draw {max(rated)} W noted but not stored: the catalogue keeps a {part.kind}'s typical power, not its supply rating"
        )
    if allocated:
        part.remarks.append(
            f"allocated_draw {', '.join(str(a) for a in allocated)} W not taken as typical power: it is a budget the file's author "
            "chose, not a measurement under streaming load"
        )
    if not rated and not allocated:
        part.remarks.append("the file gives no power draw")


def _switch_ports(dt: LibraryDeviceType, part: PlannedPart, errors: list[LibraryError]) -> None:
    data = dt.data_interfaces
    speeds = Counter(i.speed_gbps for i in data if i.speed_gbps)
    infiniband = sum(1 for i in data if i.type.startswith("infiniband-"))
    part.values["kind"] = cat.Switch.Kind.INFINIBAND if data and infiniband * 2 > len(data) else cat.Switch.Kind.ETHERNET
    if not speeds:
        part.missing += ["ports", "port_gbps"]
        part.remarks.append("no interface type in the file names a speed: port count and speed missing")
        return
    speed, count = max(speeds.items(), key=lambda item: (item[1], item[0]))
    if count > MAX_SWITCH_PORTS:
        errors.append(LibraryError(dt.file, "interfaces", f"{count} ports of one speed; a catalogue switch has at most {MAX_SWITCH_PORTS}"))
        return
    types = sorted({i.type for i in data if i.speed_gbps == speed})
    others = sum(speeds.values()) - count
    part.values["ports"] = count
    part.values["port_gbps"] = speed
    extra = f"; {others} other port{'s' if others != 1 else ''} at other speeds not counted" if others else ""
    part.notes["ports"] = _note(dt, f"{count} interfaces of type {', '.join(types)} (management ports aside){extra}")
    part.notes["port_gbps"] = _note(dt, f"interface type {', '.join(types)}: {speed:g} Gb/s per port")


def plan_part(dt: LibraryDeviceType, kind: str | None = None) -> tuple[PlannedPart, list[LibraryError]]:
    """What a device type becomes in the catalogue (no database access): figures, notes, missing figures."""
    errors: list[LibraryError] = []
    if kind is None:
        kind, reason = guess_kind(dt)
        given = False
    else:
        reason, given = "given", True
    part = PlannedPart(file=dt.file, slug=dt.slug, name=f"{dt.manufacturer} {dt.model}", kind=kind, kind_given=given, kind_reason=reason)
    if len(dt.slug) > 80:
        errors.append(LibraryError(dt.file, "slug", f"the catalogue keeps slugs of at most 80 characters, not {len(dt.slug)}"))
    if len(part.name) > 160:
        errors.append(LibraryError(dt.file, "model", "manufacturer and model together exceed the catalogue's 160-character names"))
    part.values.update(vendor=dt.manufacturer[:80], model=dt.model[:120], name=part.name[:160])
    what = f"Imported from the community devicetype-library file {dt.file}" + (f" (part number {dt.part_number})" if dt.part_number else "")
    part.values["description"] = what + (f". {dt.description}" if dt.description else "") + "."
    _height(dt, part, errors)
    _weight(dt, part)
    _power(dt, part)
    if kind == "server":
        part.missing[:0] = list(MISSING["server"])
    elif kind == "switch":
        _switch_ports(dt, part, errors)
        part.missing += list(MISSING["switch"])
    else:
        part.values["kind"] = ENCLOSURE_KINDS[kind]
        if kind in ("expansion", "jbod"):
            part.missing[:0] = list(MISSING["enclosure"])
            for figure in ("controllers", "max_expansions"):
                part.values[figure] = 0
                part.notes[figure] = (
                    f"kind {kind} ({'given' if given else 'guessed'}): no RAID controllers and no expansions behind it, "
                    "as the kind means; the file does not say"
                )
        else:
            part.missing[:0] = list(MISSING["enclosure"]) + list(MISSING["controllers"])
    if dt.module_bays:
        part.remarks.append(f"{len(dt.module_bays)} module bays in the file; the catalogue does not model modules")
    return part, errors


def _existing(slug: str) -> dict:
    """Catalogue records with this slug, per model."""
    return {model: obj for model in (cat.Server, cat.Enclosure, cat.Switch) if (obj := model.objects.filter(slug=slug).first())}


def _settle(part: PlannedPart, errors: list[LibraryError]) -> tuple[object | None, dict]:
    """Decide create/update/unchanged against the catalogue; return (record or None, fields to write)."""
    existing = _existing(part.slug)
    others = [m for m in existing if m is not part.model]
    if others:
        other = others[0]
        errors.append(
            LibraryError(
                part.file,
                "slug",
                f"'{part.slug}' is already a catalogue {other._meta.verbose_name}; import it as that kind or change the file's slug",
            )
        )
        return None, {}
    record = existing.get(part.model)
    fields = {k: v for k, v in part.values.items() if k != "kind" or record is None or part.kind_given}
    if record is None:
        missing = list(dict.fromkeys(part.missing))
        placeholders = {k: v for k, v in PLACEHOLDERS[part.model].items() if k in missing or k not in fields}
        fields = {**placeholders, **fields, "sources": dict(part.notes), "missing_figures": missing}
        part.missing = missing
        part.action = "created"
        return None, fields
    # an update: the file's figures and notes replace those the record has; figures the record already
    # holds with a source note (entered by staff, or shipped) are not missing
    notes = {**(record.sources or {}), **part.notes}
    still = set(record.missing_figures or ())
    missing = [f for f in dict.fromkeys(part.missing) if f in still or not str(notes.get(f, "")).strip()]
    fields = {**fields, "sources": notes, "missing_figures": missing}
    part.missing = missing
    part.changes = {k: (getattr(record, k), v) for k, v in fields.items() if getattr(record, k) != v}
    part.action = "updated" if part.changes else "unchanged"
    return record, fields


def import_device_types(*, result: LibraryResult, kinds: dict[str, str] | None = None, dry_run: bool = True) -> list[dict]:
    """Map every device type read into the catalogue (or, with `dry_run`, only say what would happen).

    `kinds` maps a file name (as read, with its folder inside a zip) or a device-type slug to a kind
    (see KINDS); a device type without one gets a guess. Raises ImportRefused, naming file, key and
    problem, when the files are broken or a device type cannot be mapped; nothing is written then."""
    kinds = kinds or {}
    errors = list(result.errors)
    unknown_keys = [k for k in kinds if k not in {dt.file for dt in result.device_types} | {dt.slug for dt in result.device_types}]
    known_files = set(result.files)
    for key in unknown_keys:
        if key not in known_files:  # a broken file's kind is not worth a second message
            errors.append(LibraryError(key, "kind", "no device-type file or slug of this name was uploaded"))
    for key, kind in kinds.items():
        if kind not in KINDS:
            errors.append(LibraryError(key, "kind", f"'{kind}' is not a kind; choose one of {', '.join(KINDS)}"))
    if errors:
        raise ImportRefused(errors)
    planned: list[tuple[PlannedPart, object | None, dict]] = []
    for dt in result.device_types:
        part, part_errors = plan_part(dt, kinds.get(dt.file) or kinds.get(dt.slug))
        errors += part_errors
        record, fields = _settle(part, errors) if not part_errors else (None, {})
        planned.append((part, record, fields))
    if errors:
        raise ImportRefused(errors)
    if not dry_run:
        with transaction.atomic():
            for part, record, fields in planned:
                if record is None:
                    obj = part.model(slug=part.slug, **fields)
                elif part.action == "updated":
                    obj = record
                    for key, value in fields.items():
                        setattr(obj, key, value)
                else:
                    continue
                try:
                    obj.full_clean(validate_unique=False)
                except ValidationError as exc:
                    raise ImportRefused(
                        [LibraryError(part.file, f"(catalogue {key})", "; ".join(msgs)) for key, msgs in exc.message_dict.items()]
                    ) from exc
                obj.save()
    return [part.as_dict() for part, _, _ in planned]
