"""Device-type files in the community devicetype-library format (the YAML that NetBox and Nautobot
import): read one file, several, or a zip of them, check each against the format's rules, and return
plain dataclasses with the device types and every problem found.

The rules follow the library's JSON schema (schema/devicetype.json, components.json and the
enumerations generated from NetBox's choices): required keys, the keys each object may have, types,
enumerations, `u_height` in half units, `weight` and `weight_unit` given together, `device-bays`
needing `subdevice_role: parent`. A problem names the file, the key path and what is wrong, e.g.
``PowerEdge R730xd.yaml: power-ports[1].maximum_draw: must be a whole number of watts (at least 1), not '750W'``.

Nothing is written to disk: zip members are read in memory, with limits on the upload's size, the
number of members, their total uncompressed size and the folder depth. YAML anchors and aliases are
refused (a file of a few kilobytes must not expand into gigabytes), and so is nesting deeper than the
format needs. No Django here: `dcim.catalogue_import` maps the result onto the catalogue.
"""

from __future__ import annotations

import io
import math
import re
import zipfile
import zlib
from dataclasses import dataclass, field

import yaml

MAX_FILE_BYTES = 1024 * 1024
"""One YAML file (the library's largest files, chassis switches, are under 200 KB)."""
MAX_ZIP_BYTES = 4 * 1024 * 1024
"""One zip upload, compressed (the site refuses any request over 4 MiB anyway: MAX_REQUEST_BYTES)."""
MAX_ZIP_MEMBERS = 500
"""Entries in one zip (folders included)."""
MAX_TOTAL_BYTES = 16 * 1024 * 1024
"""Uncompressed YAML read from one request, all files together."""
MAX_ZIP_DEPTH = 6
"""Folders above a file inside a zip (device-types/<Manufacturer>/<file> is 2)."""
MAX_YAML_DEPTH = 12
"""Nesting of mappings and lists in one file (the format needs 3)."""
MAX_FILES = 500
"""Device-type files in one request."""

YAML_SUFFIXES = (".yaml", ".yml")

# ---------------------------------------------------------------- the format's vocabulary
# Enumerations of the library's generated schema (values of NetBox's choice sets), as data.

AIRFLOW = ("front-to-rear", "rear-to-front", "left-to-right", "right-to-left", "side-to-rear", "passive", "mixed")
WEIGHT_UNITS = {"kg": 1.0, "g": 0.001, "lb": 0.45359237, "oz": 0.028349523125}
SUBDEVICE_ROLES = ("parent", "child")
FEED_LEGS = ("A", "B", "C")

CONSOLE_TYPES = tuple(
    "de-9 db-25 rj-11 rj-12 rj-45 mini-din-8 usb-a usb-b usb-c usb-mini-a usb-mini-b usb-micro-a usb-micro-b usb-micro-ab other".split()
)

_IEC_60309 = [f"iec-60309-{p}-{h}h" for p in ("p-n-e", "2p-e", "3p-e", "3p-n-e") for h in (4, 6, 9)]
_NEMA_PLUGS = (
    "1-15 5-15 5-20 5-30 5-50 6-15 6-20 6-30 6-50 10-30 10-50 14-20 14-30 14-50 14-60 15-15 15-20 15-30 15-50 15-60 "
    "l1-15 l5-15 l5-20 l5-30 l5-50 l6-15 l6-20 l6-30 l6-50 l10-30 l14-20 l14-30 l14-50 l14-60 l15-20 l15-30 l15-50 l15-60 "
    "l21-20 l21-30 l22-30"
).split()
POWER_PORT_TYPES = tuple(
    ["iec-60320-c6", "iec-60320-c8", "iec-60320-c14", "iec-60320-c16", "iec-60320-c20", "iec-60320-c22"]
    + _IEC_60309
    + ["iec-60906-1", "nbr-14136-10a", "nbr-14136-20a"]
    + [f"nema-{n}p" for n in _NEMA_PLUGS]
    + "cs6361c cs6365c cs8165c cs8265c cs8365c cs8465c".split()
    + [f"ita-{x}" for x in "c e f ef g h i j k l m n o".split()]
    + "usb-a usb-b usb-c usb-mini-a usb-mini-b usb-micro-a usb-micro-b usb-micro-ab usb-3-b usb-3-micro-b".split()
    + "molex-micro-fit-1x2 molex-micro-fit-2x2 molex-micro-fit-2x4 dc-terminal saf-d-grid".split()
    + "neutrik-powercon-20 neutrik-powercon-32 neutrik-powercon-true1 neutrik-powercon-true1-top ubiquiti-smartpower".split()
    + ["hardwired", "other"]
)
POWER_OUTLET_TYPES = tuple(
    ["iec-60320-c5", "iec-60320-c7", "iec-60320-c13", "iec-60320-c15", "iec-60320-c19", "iec-60320-c21"]
    + _IEC_60309
    + ["iec-60906-1", "nbr-14136-10a", "nbr-14136-20a"]
    + [f"nema-{n}r" for n in _NEMA_PLUGS]
    + "CS6360C CS6364C CS8164C CS8264C CS8364C CS8464C".split()
    + [f"ita-{x}" for x in "e f g h i j k l m n o multistandard".split()]
    + "usb-a usb-micro-b usb-c molex-micro-fit-1x2 molex-micro-fit-2x2 molex-micro-fit-2x4 dc-terminal hdot-cx saf-d-grid".split()
    + "neutrik-powercon-20a neutrik-powercon-32a neutrik-powercon-true1 neutrik-powercon-true1-top ubiquiti-smartpower".split()
    + ["hardwired", "other"]
)
INTERFACE_TYPES = tuple(
    (
        "virtual bridge lag "
        "100base-fx 100base-lfx 100base-tx 100base-t1 1000base-t 2.5gbase-t 5gbase-t 10gbase-t 10gbase-cx4 "
        "1000base-x-gbic 1000base-x-sfp 10gbase-x-sfpp 10gbase-x-xfp 10gbase-x-xenpak 10gbase-x-x2 25gbase-x-sfp28 "
        "50gbase-x-sfp56 40gbase-x-qsfpp 50gbase-x-sfp28 100gbase-x-cfp 100gbase-x-cfp2 200gbase-x-cfp2 400gbase-x-cfp2 "
        "100gbase-x-cfp4 100gbase-x-cxp 100gbase-x-cpak 100gbase-x-dsfp 100gbase-x-sfpdd 100gbase-x-qsfp28 100gbase-x-qsfpdd "
        "200gbase-x-qsfp56 200gbase-x-qsfpdd 400gbase-x-qsfp112 400gbase-x-qsfpdd 400gbase-x-osfp 400gbase-x-osfp-rhs "
        "400gbase-x-cdfp 400gbase-x-cfp8 800gbase-x-qsfpdd 800gbase-x-osfp "
        "1000base-kx 2.5gbase-kx 5gbase-kr 10gbase-kr 10gbase-kx4 25gbase-kr 40gbase-kr4 50gbase-kr 100gbase-kp4 100gbase-kr2 "
        "100gbase-kr4 "
        "ieee802.11a ieee802.11g ieee802.11n ieee802.11ac ieee802.11ad ieee802.11ax ieee802.11ay ieee802.15.1 other-wireless "
        "gsm cdma lte 4g 5g "
        "sonet-oc3 sonet-oc12 sonet-oc48 sonet-oc192 sonet-oc768 sonet-oc1920 sonet-oc3840 "
        "1gfc-sfp 2gfc-sfp 4gfc-sfp 8gfc-sfpp 16gfc-sfpp 32gfc-sfp28 32gfc-sfpp 64gfc-qsfpp 64gfc-sfpdd 64gfc-sfpp 128gfc-qsfp28 "
        "infiniband-sdr infiniband-ddr infiniband-qdr infiniband-fdr10 infiniband-fdr infiniband-edr infiniband-hdr "
        "infiniband-ndr infiniband-xdr "
        "t1 e1 t3 e3 xdsl docsis bpon epon 10g-epon gpon xg-pon xgs-pon ng-pon2 25g-pon 50g-pon "
        "cisco-stackwise cisco-stackwise-plus cisco-flexstack cisco-flexstack-plus cisco-stackwise-80 cisco-stackwise-160 "
        "cisco-stackwise-320 cisco-stackwise-480 cisco-stackwise-1t juniper-vcp extreme-summitstack extreme-summitstack-128 "
        "extreme-summitstack-256 extreme-summitstack-512 other"
    ).split()
)
POE_MODES = ("pd", "pse")
POE_TYPES = tuple(
    "type1-ieee802.3af type2-ieee802.3at type3-ieee802.3bt type4-ieee802.3bt passive-24v-2pair passive-24v-4pair "
    "passive-48v-2pair passive-48v-4pair".split()
)
PORT_TYPES = tuple(
    (
        "8p8c 8p6c 8p4c 8p2c 6p6c 6p4c 6p2c 4p4c 4p2c gg45 tera-4p tera-2p tera-1p 110-punch bnc f n mrj21 fc "
        "lc lc-pc lc-upc lc-apc lsh lsh-pc lsh-upc lsh-apc lx5 lx5-pc lx5-upc lx5-apc mpo mtrj sc sc-pc sc-upc sc-apc st cs sn "
        "sma-905 sma-906 urm-p2 urm-p4 urm-p8 splice other"
    ).split()
)

# InfiniBand 4x link signalling rates, Gb/s (the interface type names the generation, not the rate).
INFINIBAND_GBPS = {"sdr": 10, "ddr": 20, "qdr": 40, "fdr10": 40, "fdr": 56, "edr": 100, "hdr": 200, "ndr": 400, "xdr": 800}
_ETHERNET_SPEED = re.compile(r"^(\d+(?:\.\d+)?)(g?)base-")


def interface_speed_gbps(type_: str) -> float | None:
    """Line rate an interface type names, Gb/s: '1000base-t' 1, '10gbase-x-sfpp' 10, 'infiniband-fdr' 56;
    None when the type does not say (virtual, lag, wireless, 'other')."""
    if type_.startswith("infiniband-"):
        return float(INFINIBAND_GBPS[type_.removeprefix("infiniband-")]) if type_.removeprefix("infiniband-") in INFINIBAND_GBPS else None
    match = _ETHERNET_SPEED.match(type_)
    if not match:
        return None
    value = float(match.group(1))
    return value if match.group(2) else value / 1000.0


# ---------------------------------------------------------------- schema, as data

STR, INT1, BOOL, NUM = "string", "integer>=1", "boolean", "number"


def _s(max_length: int | None = None, pattern: str | None = None) -> tuple:
    return (STR, max_length, pattern)


_NAME, _LABEL, _DESC = _s(64), _s(64), _s(200)
COMPONENTS: dict[str, dict] = {
    "console-ports": {
        "keys": {"name": _NAME, "label": _LABEL, "type": CONSOLE_TYPES, "description": _DESC, "_is_power_source": (BOOL,)},
        "required": ("name", "type"),
    },
    "console-server-ports": {
        "keys": {"name": _NAME, "label": _LABEL, "type": CONSOLE_TYPES, "description": _DESC},
        "required": ("name", "type"),
    },
    "power-ports": {
        "keys": {
            "name": _NAME,
            "label": _LABEL,
            "type": POWER_PORT_TYPES,
            "maximum_draw": (INT1,),
            "allocated_draw": (INT1,),
            "description": _DESC,
        },
        "required": ("name", "type"),
    },
    "power-outlets": {
        "keys": {
            "name": _NAME,
            "label": _LABEL,
            "type": POWER_OUTLET_TYPES,
            "power_port": _s(64),
            "feed_leg": FEED_LEGS,
            "description": _DESC,
        },
        "required": ("name", "type"),
    },
    "interfaces": {
        "keys": {
            "name": _NAME,
            "label": _LABEL,
            "type": INTERFACE_TYPES,
            "enabled": (BOOL,),
            "mgmt_only": (BOOL,),
            "description": _DESC,
            "bridge": _s(64),
            "poe_mode": POE_MODES,
            "poe_type": POE_TYPES,
        },
        "required": ("name", "type"),
    },
    "front-ports": {
        "keys": {
            "name": _NAME,
            "label": _LABEL,
            "type": PORT_TYPES,
            "color": _s(6, r"^[a-f0-9]{6}$"),
            "positions": (INT1,),
            "rear_port": _s(64),
            "rear_port_position": (INT1,),
            "description": _DESC,
        },
        "required": ("name", "type"),
    },
    "rear-ports": {
        "keys": {
            "name": _NAME,
            "label": _LABEL,
            "type": PORT_TYPES,
            "color": _s(6, r"^[a-f0-9]{6}$"),
            "positions": (INT1,),
            "description": _DESC,
            "_is_power_source": (BOOL,),
        },
        "required": ("name", "type"),
    },
    "module-bays": {"keys": {"name": _NAME, "label": _LABEL, "position": _s(30), "description": _DESC}, "required": ("name", "position")},
    "device-bays": {"keys": {"name": _NAME, "label": _LABEL, "description": _DESC}, "required": ("name",)},
    "inventory-items": {
        "keys": {"name": _NAME, "label": _LABEL, "manufacturer": _s(100), "part_id": _s(50), "description": _DESC},
        "required": ("name",),
    },
}

TOP_LEVEL: dict[str, tuple] = {
    "manufacturer": _s(100),
    "model": _s(100),
    "slug": _s(100, r"^[-a-z0-9_]+$"),
    "part_number": _s(50),
    "u_height": ("u_height",),
    "is_full_depth": (BOOL,),
    "airflow": AIRFLOW,
    "weight": (NUM,),
    "weight_unit": tuple(WEIGHT_UNITS),
    "front_image": (BOOL,),
    "rear_image": (BOOL,),
    "subdevice_role": SUBDEVICE_ROLES,
    "is_powered": (BOOL,),
    "description": _s(200),
    "comments": _s(),
}
REQUIRED = ("manufacturer", "model", "slug", "u_height", "is_full_depth")
ALLOWED_KEYS = tuple(TOP_LEVEL) + tuple(COMPONENTS)


# ---------------------------------------------------------------- results


@dataclass(frozen=True)
class LibraryError:
    """One problem: the file (as uploaded, with its folder inside a zip), the key path, what is wrong."""

    file: str
    key: str
    problem: str

    def __str__(self) -> str:
        return f"{self.file}: {self.key}: {self.problem}" if self.key else f"{self.file}: {self.problem}"

    def as_dict(self) -> dict:
        return {"file": self.file, "key": self.key, "problem": self.problem}


@dataclass(frozen=True)
class PowerPort:
    name: str
    type: str
    maximum_draw: int | None  # W, the supply's rating as the file gives it
    allocated_draw: int | None  # W, the draw budgeted for it (an allocation, not a measurement)


@dataclass(frozen=True)
class Interface:
    name: str
    type: str
    mgmt_only: bool = False

    @property
    def speed_gbps(self) -> float | None:
        return interface_speed_gbps(self.type)


@dataclass(frozen=True)
class ModuleBay:
    name: str
    position: str


@dataclass(frozen=True)
class LibraryDeviceType:
    """A device type as a library file describes it; `file` is where it was read from."""

    file: str
    manufacturer: str
    model: str
    slug: str
    part_number: str
    u_height: float
    is_full_depth: bool
    airflow: str
    weight: float | None
    weight_unit: str
    power_ports: tuple[PowerPort, ...]
    interfaces: tuple[Interface, ...]
    module_bays: tuple[ModuleBay, ...]
    device_bays: int
    description: str
    comments: str

    @property
    def weight_kg(self) -> float | None:
        """The weight converted to kg (1 lb = 0.45359237 kg exactly, 1 oz = 1/16 lb)."""
        return None if self.weight is None else self.weight * WEIGHT_UNITS[self.weight_unit]

    @property
    def data_interfaces(self) -> tuple[Interface, ...]:
        """Interfaces that are not management-only, nor virtual/LAG/bridge."""
        return tuple(i for i in self.interfaces if not i.mgmt_only and i.type not in ("virtual", "lag", "bridge"))


@dataclass
class LibraryResult:
    """What a read produced: the device types that passed, every problem, and the files read."""

    device_types: list[LibraryDeviceType] = field(default_factory=list)
    errors: list[LibraryError] = field(default_factory=list)
    files: list[str] = field(default_factory=list)

    @property
    def ok(self) -> bool:
        return not self.errors


# ---------------------------------------------------------------- validation


def _is_number(value) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool) and math.isfinite(value)


def _shown(value) -> str:
    text = repr(value) if not isinstance(value, str) else f"'{value}'"
    return text if len(text) <= 60 else text[:57] + "..."


def _check_value(value, rule: tuple, enum_name: str) -> str | None:
    """The problem with one scalar, or None. `rule` is an enumeration (tuple of strings) or a type rule."""
    kind = rule[0] if rule else None
    if kind == STR:
        _, max_length, pattern = rule
        if not isinstance(value, str):
            return f"must be text, not {_shown(value)}"
        if max_length is not None and len(value) > max_length:
            return f"at most {max_length} characters, not {len(value)}"
        if pattern and not re.match(pattern, value):
            return f"{_shown(value)} does not match {pattern}"
        return None
    if kind == BOOL:
        return None if isinstance(value, bool) else f"must be true or false, not {_shown(value)}"
    if kind == INT1:
        ok = isinstance(value, int) and not isinstance(value, bool) and value >= 1
        return None if ok else f"must be a whole number, at least 1, not {_shown(value)}"
    if kind == NUM:
        if not _is_number(value):
            return f"must be a number, not {_shown(value)}"
        return None if value >= 0 else f"must not be negative, not {_shown(value)}"
    if kind == "u_height":
        if not _is_number(value):
            return f"must be a number of rack units, not {_shown(value)}"
        if value < 0:
            return f"must not be negative, not {_shown(value)}"
        if (value * 2) != int(value * 2):
            return f"must be a multiple of 0.5, not {_shown(value)}"
        return None
    # an enumeration
    if not isinstance(value, str) or value not in rule:
        shown = ", ".join(rule) if len(rule) <= 12 else ", ".join(rule[:10]) + f", ... ({len(rule)} values)"
        return f"{_shown(value)} is not a {enum_name}; allowed: {shown}"
    return None


_ENUM_NAMES = {
    "airflow": "known airflow",
    "weight_unit": "weight unit",
    "subdevice_role": "subdevice role",
    "type": "known type",
    "feed_leg": "feed leg",
    "poe_mode": "PoE mode",
    "poe_type": "PoE type",
}


def validate_device_type(data, filename: str) -> list[LibraryError]:
    """Check one parsed device-type document against the library format; every problem, in file order.

    `filename` names the file in the messages. An empty list means the document is valid (the
    export side uses this to check that what it writes reads back)."""
    errors: list[LibraryError] = []

    def err(key: str, problem: str) -> None:
        errors.append(LibraryError(filename, key, problem))

    if not isinstance(data, dict):
        err("", f"the file must hold one mapping of keys (manufacturer, model, slug, ...), not {type(data).__name__}")
        return errors
    for key in data:
        if not isinstance(key, str):
            err(str(key), "keys must be text")
        elif key not in ALLOWED_KEYS:
            err(key, f"unknown key; the format allows: {', '.join(ALLOWED_KEYS)}")
    for key in REQUIRED:
        if key not in data or data[key] is None:
            err(key, "required key is missing" if key not in data else "required key is empty")
    for key, rule in TOP_LEVEL.items():
        if key in data and data[key] is not None:
            problem = _check_value(data[key], rule, _ENUM_NAMES.get(key, key))
            if problem:
                err(key, problem)
        elif key in data and key not in REQUIRED:
            err(key, "is empty; give a value or leave the key out")
    has_weight = data.get("weight") is not None
    has_unit = data.get("weight_unit") is not None
    if has_weight and not has_unit:
        err("weight_unit", "required when weight is given (kg, g, lb or oz)")
    if has_unit and not has_weight:
        err("weight", "required when weight_unit is given")
    if data.get("device-bays") and data.get("subdevice_role") != "parent":
        err("subdevice_role", "must be 'parent' for a device type with device-bays")
    for section, spec in COMPONENTS.items():
        if section not in data:
            continue
        items = data[section]
        if not isinstance(items, list):
            err(section, f"must be a list of {section}, not {_shown(items)}")
            continue
        names: dict[str, int] = {}
        for i, item in enumerate(items):
            where = f"{section}[{i}]"
            if not isinstance(item, dict):
                err(where, f"must be a mapping with {', '.join(spec['required'])}, not {_shown(item)}")
                continue
            for key in item:
                if key not in spec["keys"]:
                    err(f"{where}.{key}", f"unknown key; a {section[:-1]} may have: {', '.join(spec['keys'])}")
            for key in spec["required"]:
                if item.get(key) is None:
                    err(f"{where}.{key}", "required key is missing")
            for key, rule in spec["keys"].items():
                if item.get(key) is not None:
                    problem = _check_value(item[key], rule, _ENUM_NAMES.get(key, key))
                    if problem:
                        err(f"{where}.{key}", problem if key != "type" else problem.replace("known type", f"known {section[:-1]} type"))
            name = item.get("name")
            if isinstance(name, str):
                if name in names:
                    err(f"{where}.name", f"'{name}' is already the name of {section}[{names[name]}]")
                else:
                    names[name] = i
    return errors


def _device_type(data: dict, filename: str) -> LibraryDeviceType:
    """Build the dataclass from a document `validate_device_type` accepted."""
    return LibraryDeviceType(
        file=filename,
        manufacturer=data["manufacturer"],
        model=data["model"],
        slug=data["slug"],
        part_number=data.get("part_number") or "",
        u_height=float(data["u_height"]),
        is_full_depth=bool(data["is_full_depth"]),
        airflow=data.get("airflow") or "",
        weight=float(data["weight"]) if data.get("weight") is not None else None,
        weight_unit=data.get("weight_unit") or "",
        power_ports=tuple(
            PowerPort(p["name"], p["type"], p.get("maximum_draw"), p.get("allocated_draw")) for p in data.get("power-ports") or ()
        ),
        interfaces=tuple(Interface(i["name"], i["type"], bool(i.get("mgmt_only", False))) for i in data.get("interfaces") or ()),
        module_bays=tuple(ModuleBay(m["name"], str(m["position"])) for m in data.get("module-bays") or ()),
        device_bays=len(data.get("device-bays") or ()),
        description=data.get("description") or "",
        comments=data.get("comments") or "",
    )


# ---------------------------------------------------------------- reading files


def _yaml_problem(text: str) -> str | None:
    """Refuse anchors/aliases and deep nesting before building anything (a scan of parser events)."""
    depth = 0
    loader = getattr(yaml, "CSafeLoader", yaml.SafeLoader)
    documents = 0
    for event in yaml.parse(text, Loader=loader):
        if isinstance(event, yaml.AliasEvent) or getattr(event, "anchor", None):
            return "YAML anchors and aliases (& and *) are not allowed in device-type files"
        if isinstance(event, (yaml.MappingStartEvent, yaml.SequenceStartEvent)):
            depth += 1
            if depth > MAX_YAML_DEPTH:
                return f"nested more than {MAX_YAML_DEPTH} levels deep"
        elif isinstance(event, (yaml.MappingEndEvent, yaml.SequenceEndEvent)):
            depth -= 1
        elif isinstance(event, yaml.DocumentStartEvent):
            documents += 1
            if documents > 1:
                return "holds more than one YAML document (one device type per file)"
    return None


def read_yaml(raw: bytes, filename: str, result: LibraryResult | None = None) -> LibraryResult:
    """Read one device-type file (bytes as uploaded) into `result` (a new one when not given)."""
    result = result if result is not None else LibraryResult()
    result.files.append(filename)
    if len(raw) > MAX_FILE_BYTES:
        result.errors.append(LibraryError(filename, "", f"is {len(raw)} bytes; the limit is {MAX_FILE_BYTES} bytes per file"))
        return result
    try:
        text = raw.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        result.errors.append(LibraryError(filename, "", f"is not UTF-8 text (byte {exc.start})"))
        return result
    if "\x00" in text:
        result.errors.append(LibraryError(filename, "", "is not text (it holds NUL characters)"))
        return result
    loader = getattr(yaml, "CSafeLoader", yaml.SafeLoader)
    try:
        problem = _yaml_problem(text)
        data = None if problem else yaml.load(text, Loader=loader)  # noqa: S506 - a safe loader
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None)
        where = f" (line {mark.line + 1}, column {mark.column + 1})" if mark is not None else ""
        reason = getattr(exc, "problem", None) or str(exc).splitlines()[0]
        result.errors.append(LibraryError(filename, "", f"is not valid YAML{where}: {reason}"))
        return result
    except (ValueError, OverflowError, RecursionError) as exc:
        result.errors.append(LibraryError(filename, "", f"cannot be read as YAML: {exc}"[:300]))
        return result
    if problem:
        result.errors.append(LibraryError(filename, "", problem))
        return result
    errors = validate_device_type(data, filename)
    if errors:
        result.errors.extend(errors)
        return result
    result.device_types.append(_device_type(data, filename))
    return result


def read_zip(raw: bytes, filename: str, result: LibraryResult | None = None) -> LibraryResult:
    """Read every .yaml/.yml member of a zip (in memory) into `result`; other members are ignored,
    folders are kept in the member names (device-types/Dell/...)."""
    result = result if result is not None else LibraryResult()
    if len(raw) > MAX_ZIP_BYTES:
        result.errors.append(LibraryError(filename, "", f"is {len(raw)} bytes; the limit is {MAX_ZIP_BYTES} bytes per zip"))
        return result
    try:
        archive = zipfile.ZipFile(io.BytesIO(raw))
        members = archive.infolist()
    except (zipfile.BadZipFile, zipfile.LargeZipFile, ValueError, OSError, EOFError) as exc:
        result.errors.append(LibraryError(filename, "", f"is not a readable zip file ({exc})"[:300]))
        return result
    if len(members) > MAX_ZIP_MEMBERS:
        result.errors.append(LibraryError(filename, "", f"holds {len(members)} entries; the limit is {MAX_ZIP_MEMBERS}"))
        return result
    read_before = len(result.files)
    total = 0
    for info in members:
        name = info.filename
        if info.is_dir() or name.startswith("__MACOSX/") or name.rsplit("/", 1)[-1].startswith("."):
            continue
        if not name.lower().endswith(YAML_SUFFIXES):
            continue
        shown = f"{filename}:{name}"
        parts = [p for p in name.split("/") if p]
        if name.startswith("/") or ".." in parts or "\\" in name:
            result.errors.append(LibraryError(shown, "", "member paths must be relative, without '..'"))
            continue
        if len(parts) - 1 > MAX_ZIP_DEPTH:
            result.errors.append(LibraryError(shown, "", f"is {len(parts) - 1} folders deep; the limit is {MAX_ZIP_DEPTH}"))
            continue
        if len(result.files) >= MAX_FILES:
            result.errors.append(LibraryError(filename, "", f"holds more than {MAX_FILES} device-type files; import them in parts"))
            break
        if info.file_size > MAX_FILE_BYTES:
            result.errors.append(LibraryError(shown, "", f"is {info.file_size} bytes; the limit is {MAX_FILE_BYTES} bytes per file"))
            continue
        try:
            with archive.open(info) as member:
                data = member.read(MAX_FILE_BYTES + 1)  # never more than the limit, whatever the header says
        except (zipfile.BadZipFile, zlib.error, NotImplementedError, RuntimeError, ValueError, OSError, EOFError) as exc:
            result.errors.append(LibraryError(shown, "", f"cannot be read from the zip ({exc})"[:300]))
            continue
        total += len(data)
        if total > MAX_TOTAL_BYTES:
            result.errors.append(LibraryError(filename, "", f"uncompresses to more than {MAX_TOTAL_BYTES} bytes of YAML; the limit"))
            break
        read_yaml(data, name, result)
    if len(result.files) == read_before and not result.errors:
        result.errors.append(LibraryError(filename, "", "holds no .yaml or .yml file"))
    return result


def read_files(files: list[tuple[str, bytes]]) -> LibraryResult:
    """Read uploads: each (name, bytes) a .yaml/.yml file or a .zip of them. Device types whose slug
    appears twice are refused (which file wins would be a guess)."""
    result = LibraryResult()
    total = 0
    for name, raw in files:
        total += len(raw)
        lower = name.lower()
        if lower.endswith(".zip"):
            read_zip(raw, name, result)
        elif lower.endswith(YAML_SUFFIXES):
            if total > MAX_TOTAL_BYTES:
                result.errors.append(LibraryError(name, "", f"the files together exceed {MAX_TOTAL_BYTES} bytes"))
                break
            read_yaml(raw, name, result)
        else:
            result.errors.append(LibraryError(name, "", "is neither a .yaml/.yml device-type file nor a .zip of them"))
        if len(result.files) > MAX_FILES:
            result.errors.append(LibraryError(name, "", f"more than {MAX_FILES} device-type files in one import"))
            break
    seen: dict[str, str] = {}
    for dt in result.device_types:
        if dt.slug in seen:
            result.errors.append(LibraryError(dt.file, "slug", f"'{dt.slug}' is also the slug of {seen[dt.slug]}"))
        else:
            seen[dt.slug] = dt.file
    return result
