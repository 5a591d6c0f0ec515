"""A design as DCIM inventory: device types, racks, devices and cables, as plain frozen dataclasses.

Read from what the planner already computes, never recomputed: the design is resolved and
evaluated by the evaluation service, and its rack layout (`planner.engine.layout.rack_layouts`, the
same one the elevation and the rack sheet draw) gives every device its rack, U position, role and
HA pair. The catalogue gives the device types: make, model, height, weight, power and the ports.

Names are `<prefix>-<role><number>`: bricks keep their brick number (the one the elevation shows),
so a device keeps its name when the design grows or its bricks move to another rack; switches and
PDUs belong to a rack and carry its number (`<prefix>-rack2-sw-ib1`).

Cables are only those the planner's model counts in the bill of materials (server to RAID head or
JBOD, head to expansion enclosures, SAN ports, network adapters to the rack's switch), plus one
management patch cable per management port (which the bill of materials does not count; said in
`Inventory.notes`). Every cable end names an interface of that device's type. What cannot be
placed (a switch without free ports, a rack without a switch for the adapter's link) is left out and
said in `notes`, never invented; an InfiniBand adapter faster than the rack's InfiniBand switch is
cabled to it (the link runs at the switch's rate) and the notes say so.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from django.utils.text import slugify

from planner.engine.batch import standby_storage_cables


@dataclass(frozen=True)
class PowerPortT:
    """A power inlet of a device type; draws in W (NetBox/Nautobot: maximum and allocated draw)."""

    name: str
    type: str
    maximum_draw: int | None
    allocated_draw: int | None


@dataclass(frozen=True)
class InterfaceT:
    """An interface of a device type; `type` is a NetBox/Nautobot interface type value."""

    name: str
    type: str
    mgmt_only: bool = False
    description: str = ""


@dataclass(frozen=True)
class DeviceType:
    """A device type as the DCIM tools know it, built from one catalogue part (a server with its
    adapters is one type per adapter configuration). `comments` says where every figure comes from."""

    manufacturer: str
    model: str
    slug: str
    part_number: str
    u_height: float
    is_full_depth: bool
    weight: float | None
    weight_unit: str
    power_ports: tuple[PowerPortT, ...]
    interfaces: tuple[InterfaceT, ...]
    comments: str
    catalogue_kind: str
    catalogue_slug: str

    def interface(self, name: str) -> InterfaceT | None:
        return next((i for i in self.interfaces if i.name == name), None)


def _part_type(part, kind: str, model: str, *, full_depth: bool, power_ports, interfaces, comments: str, slug: str = "", u_height=None):
    """A DeviceType for catalogue `part` (make, height and weight from the part; the rest as given)."""
    return DeviceType(
        manufacturer=part.vendor or "Unknown",
        model=model,
        slug=slug or slugify(f"{part.vendor} {model}")[:100],
        part_number="",
        u_height=float(part.height_u) if u_height is None else u_height,
        is_full_depth=full_depth,
        weight=round(part.weight_kg, 2) if part.weight_kg else None,
        weight_unit="kg",
        power_ports=power_ports,
        interfaces=interfaces,
        comments=comments,
        catalogue_kind=kind,
        catalogue_slug=part.slug,
    )


@dataclass(frozen=True)
class Rack:
    name: str
    u_height: int
    catalogue_slug: str = ""
    index: int = 0


@dataclass(frozen=True)
class Device:
    """A planned device: unique, stable name; rack and lowest U (None for 0U PDUs at the rear)."""

    name: str
    device_type: str
    role: str
    rack: str
    position: int | None
    face: str
    status: str = "planned"
    tags: tuple[str, ...] = ()
    comments: str = ""


@dataclass(frozen=True)
class Cable:
    """A cable between two interfaces; `type` a NetBox/Nautobot cable type value ("" where none fits)."""

    a_device: str
    a_interface: str
    b_device: str
    b_interface: str
    type: str
    label: str
    length: float | None = None
    length_unit: str = "m"
    kind: str = ""
    """What the planner counts it as: storage, expansion, array, network or management."""


@dataclass(frozen=True)
class Inventory:
    design_name: str
    prefix: str
    manufacturers: tuple[str, ...]
    device_types: tuple[DeviceType, ...]
    racks: tuple[Rack, ...]
    devices: tuple[Device, ...]
    cables: tuple[Cable, ...]
    notes: tuple[str, ...] = ()
    """What is assumed or left out, in words (a README and the push report show them)."""

    def device_type(self, slug: str) -> DeviceType:
        return next(t for t in self.device_types if t.slug == slug)

    def device(self, name: str) -> Device:
        return next(d for d in self.devices if d.name == name)


ROLE_NAMES = {
    "oss": "Storage server",
    "internal": "Storage server",
    "raid_head": "RAID enclosure",
    "expansion": "Expansion enclosure",
    "jbod": "JBOD",
    "san_array": "SAN array",
    "mds": "Metadata server",
    "mgs": "Metadata server",
    "management": "Management server",
    "metadata": "Metadata storage",
    "switch": "Switch",
    "pdu": "PDU",
}
"""Device roles in the DCIM tools, by the layout's role."""

CABLE_TYPES = {"ethernet-rj45": "cat6", "ethernet": "dac-passive", "infiniband": "dac-passive", "sas": ""}
"""NetBox/Nautobot cable types by the catalogue cable's `cable_type`: copper QSFP and SFP cables are
passive direct-attach; neither tool has a SAS cable type (left empty)."""

PSU_COUNT = 2
PSU_TYPE = "iec-60320-c14"
ASSUMED_POWER = (
    f"Assumption: {PSU_COUNT} redundant power supplies with IEC 60320 C14 inlets (the catalogue does not list supplies); "
    "each supply's allocated draw is half the typical draw."
)


def _interface_type(kind: str, gbps: float, cable_type: str = "") -> tuple[str, str]:
    """(NetBox/Nautobot interface type, note) for a port of a kind (ib_hca, eth_nic, sas_hba,
    infiniband, ethernet) at a signalling rate in Gb/s; the note says where no exact value exists."""
    if kind in ("ib_hca", "infiniband"):
        for limit, value in (
            (12, "infiniband-sdr"),
            (24, "infiniband-ddr"),
            (45, "infiniband-qdr"),
            (60, "infiniband-fdr"),
            (110, "infiniband-edr"),
            (210, "infiniband-hdr"),
        ):
            if gbps <= limit:
                return value, ""
        return "infiniband-ndr", ""
    if kind in ("eth_nic", "ethernet"):
        if gbps <= 1.5:
            return "1000base-t", ""
        if gbps <= 10.5:
            return ("10gbase-t", "") if cable_type == "ethernet-rj45" else ("10gbase-x-sfpp", "")
        for limit, value in (
            (25.5, "25gbase-x-sfp28"),
            (40.5, "40gbase-x-qsfpp"),
            (50.5, "50gbase-x-sfp56"),
            (100.5, "100gbase-x-qsfp28"),
            (200.5, "200gbase-x-qsfp56"),
        ):
            if gbps <= limit:
                return value, ""
        return "400gbase-x-qsfpdd", ""
    return "other", f"SAS x4 wide port, {gbps:g} Gb/s: NetBox and Nautobot have no SAS interface type ('other')"


def _model_name(item) -> str:
    """The catalogue's model without its parenthesised detail ("PowerVault MD3460 (12 Gb/s SAS, ...)")."""
    model = (item.model or item.name or item.slug).strip()
    return re.sub(r"\s*\([^)]*\)\s*$", "", model) or model


def _sources(item, keys: tuple[str, ...] = ()) -> list[str]:
    sources = item.sources or {}
    keys = keys or tuple(sources)
    return [f"{k}: {sources[k]}" for k in keys if sources.get(k)]


def _cable_type(cable) -> str:
    if cable is None:
        return ""
    kind = cable.cable_type or ""
    if kind == "ethernet" and "rj45" in (cable.model or "").lower():
        kind = "ethernet-rj45"
    return CABLE_TYPES.get(kind, "")


def default_prefix(name: str) -> str:
    """A short slug from the design name: its first words, at most 16 characters ("study-rack-b")."""
    words = slugify(name or "").split("-")
    out = ""
    for word in words:
        if not word:
            continue
        candidate = f"{out}-{word}" if out else word
        if len(candidate) > 16:
            break
        out = candidate
    return out or "design"


class _Builder:
    """Collects device types (one per distinct configuration), devices and cables for one design."""

    def __init__(self, snap, prefix: str):
        self.snap = snap
        self.prefix = prefix
        self.types: dict[str, DeviceType] = {}
        self.devices: list[Device] = []
        self.cables: list[Cable] = []
        self.notes: list[str] = []
        self.used: set[tuple[str, str]] = set()
        self.type_of: dict[str, str] = {}
        self.reserved: dict[str, int] = {}  # switch -> last ports kept free for the rack's uplinks
        self.memo: dict[tuple, str] = {}  # (catalogue kind, slug, configuration) -> device-type slug
        self.ports_memo: dict[tuple[str, str], list[str]] = {}  # (device-type slug, pattern) -> interface names
        self.names_memo: dict[str, set[str]] = {}  # device-type slug -> its interface names
        self.slower: dict[tuple, int] = {}  # (switch, its Gb/s, the adapter's Gb/s) -> InfiniBand links cabled below their rate

    # device types -----------------------------------------------------------------------------
    def _add_type(self, dt: DeviceType, key: tuple | None = None) -> str:
        self.types.setdefault(dt.slug, dt)
        if key is not None:
            self.memo[key] = dt.slug
        return dt.slug

    def _psus(self, typical_w: float | None, max_w: float | None) -> tuple[PowerPortT, ...]:
        per = round(typical_w / PSU_COUNT) if typical_w else None
        return tuple(PowerPortT(f"PSU{i + 1}", PSU_TYPE, round(max_w) if max_w else None, per) for i in range(PSU_COUNT))

    def server_type(self, server, hba=None, hba_count=0, storage_ports=0, network=None, network_count=0) -> str:
        """A server with its adapters: the management port, the storage-side ports used, the network ports."""
        key = ("server", server.slug, hba.slug if hba else "", hba_count, network.slug if network else "", network_count)
        if key in self.memo:
            return self.memo[key]
        interfaces = [InterfaceT("mgmt", "1000base-t", True, "Baseboard management (iDRAC/BMC); assumption: one 1 GbE port")]
        parts, notes, extra_w = [], [], 0.0
        if hba is not None and hba_count:
            stem = "sas" if hba.kind == "sas_hba" else "san"
            kind = hba.kind
            itype, note = _interface_type(kind, hba.port_gbps, hba.cable.cable_type if hba.cable else "")
            if note:
                notes.append(note)
            # ports port-major over the adapters, so that the ports used spread over the adapters
            for p in range(hba.ports):
                for h in range(hba_count):
                    interfaces.append(InterfaceT(f"{stem}{h + 1}-{p + 1}", itype, False, f"{_model_name(hba)} #{h + 1} port {p + 1}"))
            parts.append(f"{hba_count} x {hba.slug}")
            extra_w += hba.power_w * hba_count
        if network is not None and network_count:
            stem = "ib" if network.kind == "ib_hca" else "eth"
            itype, _ = _interface_type(network.kind, network.port_gbps, network.cable.cable_type if network.cable else "")
            for a in range(network_count):
                for p in range(network.ports):
                    interfaces.append(InterfaceT(f"{stem}{a + 1}-{p + 1}", itype, False, f"{_model_name(network)} #{a + 1} port {p + 1}"))
            parts.append(f"{network_count} x {network.slug}")
            extra_w += network.power_w * network_count
        model = _model_name(server) + (f" ({', '.join(parts)})" if parts else "")
        slug = slugify(f"{server.vendor} {model}")[:100]
        comments = [f"Catalogue server '{server.slug}' ({server.name})."]
        comments += _sources(server, ("height_u", "weight_kg", "power_w", "pcie_slots"))
        for adapter in (hba, network):
            if adapter is not None:
                comments.append(f"Adapter '{adapter.slug}' ({adapter.name}): " + "; ".join(_sources(adapter, ("ports", "port_gbps"))))
        comments += [ASSUMED_POWER, "Interfaces: the adapter ports the design uses (the catalogue lists ports used, not every port)."]
        comments += notes
        return self._add_type(
            key=key,
            dt=_part_type(
                server,
                "server",
                model,
                slug=slug,
                full_depth=True,
                power_ports=self._psus(server.power_w + extra_w, server.max_power_w),
                interfaces=tuple(interfaces),
                comments="\n".join(comments),
            ),
        )

    def enclosure_type(self, enc) -> str:
        """A RAID head (host, expansion and management ports per controller), an expansion enclosure
        (in and out per path), a JBOD (host ports) or a SAN array (data and management per controller)."""
        key = ("enclosure", enc.slug)
        if key in self.memo:
            return self.memo[key]
        interfaces, comments = (
            [],
            [f"Catalogue enclosure '{enc.slug}' ({enc.name}), {enc.drive_slots} drive slots (drives are not DCIM objects)."],
        )
        lane = enc.uplink_lane_gbps * max(enc.uplink_lanes, 1)
        controllers = max(enc.controllers, 1)
        per = max(enc.uplink_ports // controllers, 1) if enc.uplink_ports else 0
        if enc.kind == "raid_head":
            itype, note = _interface_type("sas", lane)
            for p in range(per):
                for c in range(controllers):
                    interfaces.append(InterfaceT(f"ctrl{c}-host{p}", itype, False, f"Controller {c} SAS host port {p}"))
            if enc.max_expansions:
                for c in range(controllers):
                    interfaces.append(InterfaceT(f"ctrl{c}-exp", itype, False, f"Controller {c} SAS expansion port"))
                comments.append("Assumption: one SAS expansion port per controller (the catalogue does not count them).")
            for c in range(controllers):
                interfaces.append(InterfaceT(f"ctrl{c}-mgmt", "1000base-t", True, f"Controller {c} management"))
            comments += [note, "Assumption: one 1 GbE management port per controller."]
        elif enc.kind == "expansion":
            itype, note = _interface_type("sas", lane)
            for k in range(enc.uplink_ports):
                interfaces.append(InterfaceT(f"emm{k}-in", itype, False, f"EMM {k} SAS in"))
                interfaces.append(InterfaceT(f"emm{k}-out", itype, False, f"EMM {k} SAS out (to the next enclosure)"))
            comments.append(note)
        elif enc.kind == "jbod":
            itype, note = _interface_type("sas", lane)
            for p in range(enc.uplink_ports):
                interfaces.append(InterfaceT(f"host{p}", itype, False, f"SAS host port {p}"))
            comments.append(note)
        elif enc.kind in ("iscsi_array", "fc_array"):
            itype, _ = _interface_type("ethernet", lane, enc.cable.cable_type if enc.cable else "")
            for p in range(per):
                for c in range(controllers):
                    interfaces.append(InterfaceT(f"ctrl{c}-eth{p}", itype, False, f"Controller {c} data port {p}"))
            for c in range(controllers):
                interfaces.append(InterfaceT(f"ctrl{c}-mgmt", "1000base-t", True, f"Controller {c} management"))
            comments.append("Assumption: one 1 GbE management port per controller.")
            if enc.kind == "fc_array":
                comments.append("Fibre Channel ports exported as Ethernet: the catalogue gives no FC speed (check before import).")
        comments += _sources(enc, ("height_u", "weight_kg", "power_w", "uplink_ports", "uplink_lane_gbps", "controllers"))
        comments += [ASSUMED_POWER, "Allocated draw left empty: an enclosure's draw depends on its drives (see the rack sheet)."]
        model = _model_name(enc)
        return self._add_type(
            key=key,
            dt=_part_type(
                enc,
                "enclosure",
                model,
                full_depth=True,
                power_ports=self._psus(None, None),
                interfaces=tuple(interfaces),
                comments="\n".join(c for c in comments if c),
            ),
        )

    def switch_type(self, sw) -> str:
        key = ("switch", sw.slug)
        if key in self.memo:
            return self.memo[key]
        itype, _ = _interface_type(sw.kind, sw.port_gbps, "ethernet-rj45" if sw.port_gbps <= 1.5 else "")
        interfaces = [InterfaceT(f"port{p + 1}", itype, False) for p in range(sw.ports)]
        interfaces.append(InterfaceT("mgmt0", "1000base-t", True, "Out-of-band management; assumption: one 1 GbE port"))
        model = _model_name(sw)
        comments = [f"Catalogue switch '{sw.slug}' ({sw.name})."] + _sources(sw) + [ASSUMED_POWER]
        return self._add_type(
            key=key,
            dt=_part_type(
                sw,
                "switch",
                model,
                full_depth=False,
                power_ports=self._psus(sw.power_w, None),
                interfaces=tuple(interfaces),
                comments="\n".join(comments + ["Assumption: not full depth (a 1U top-of-rack switch)."]),
            ),
        )

    def pdu_type(self, pdu) -> str:
        key = ("pdu", pdu.slug)
        if key in self.memo:
            return self.memo[key]
        inlet = (pdu.pdu_inlet or "").upper()
        ptype = "iec-60309-3p-n-e-6h" if ("3P+N+E" in inlet or (pdu.pdu_phases or 1) == 3) else "iec-60309-p-n-e-6h"
        rating = round((pdu.pdu_volts or 0) * (pdu.pdu_amps or 0) * (pdu.pdu_phases or 1)) or None
        model = _model_name(pdu)
        comments = [f"Catalogue accessory '{pdu.slug}' ({pdu.name}), inlet {pdu.pdu_inlet or 'not given'}."] + _sources(pdu)
        comments.append(f"Inlet type {ptype}: IEC 60309 6h (230/400 V) from the catalogue's inlet; outlets are not exported.")
        return self._add_type(
            key=key,
            dt=_part_type(
                pdu,
                "accessory",
                model,
                u_height=0.0,
                full_depth=False,
                power_ports=(PowerPortT("Inlet", ptype, rating, round(pdu.power_w) if pdu.power_w else None),),
                interfaces=(),
                comments="\n".join(comments),
            ),
        )

    # devices and cables -----------------------------------------------------------------------
    def device(self, name, type_slug, role, rack, item, tags=(), comments="") -> str:
        position = int(item["u"]) if item["height"] else None
        face = item.get("face") or "front"
        self.devices.append(Device(name, type_slug, role, rack, position, face, "planned", tuple(tags), comments))
        self.type_of[name] = type_slug
        return name

    def cable(self, a, ai, b, bi, part, kind) -> bool:
        for dev, iface in ((a, ai), (b, bi)):
            slug = self.type_of[dev]
            if slug not in self.names_memo:
                self.names_memo[slug] = {i.name for i in self.types[slug].interfaces}
            assert iface in self.names_memo[slug], (dev, iface)
            if (dev, iface) in self.used:
                return False
        self.used.update({(a, ai), (b, bi)})
        self.cables.append(
            Cable(
                a,
                ai,
                b,
                bi,
                _cable_type(part),
                f"{a}:{ai}"[:100],
                float(part.length_m) if part is not None and part.length_m else None,
                "m",
                kind,
            )
        )
        return True

    def take(self, device: str, names: list[str]) -> str | None:
        """The first of `names` on `device` without a cable yet (None when all have one)."""
        return next((n for n in names if (device, n) not in self.used), None)


BRICK_LABEL = re.compile(r"#(\d+)(?:\.(\d+))?([a-z]?)$")
STEMS = {"raid_head": "raid", "jbod": "jbod", "san_array": "san", "expansion": "exp"}
METADATA_STEMS = {"mds": "mds", "mgs": "mgs", "management": "mgmt", "metadata": "mdt"}


def _line_numbers(bricks) -> tuple[list[int], list[int]]:
    """First brick number and first HA pair number of each line, as the layout numbers them (lines
    whose disks sit inside their servers have no pairs)."""
    numbers, pairs, n, p = [], [], 1, 1
    for group in bricks:
        numbers.append(n)
        pairs.append(p)
        n += group.count
        p += (group.count + 1) // 2 if not group.head.is_internal else 0
    return numbers, pairs


def _switch_stem(sw) -> str:
    return "ib" if sw.kind == "infiniband" else "eth"


def _link_kind(adapter_kind: str) -> str:
    return "infiniband" if adapter_kind == "ib_hca" else "ethernet"


def build_inventory(design, evaluation, snap, *, prefix: str = "", switches: dict | None = None) -> Inventory:
    """The inventory of a resolved design (`DesignInput`) from its evaluation's racks and the catalogue
    snapshot it was resolved against. `switches` maps switch slugs to catalogue switches (looked up
    when not given)."""
    from hardware_catalog import models as cat

    prefix = prefix or default_prefix(design.name)
    b = _Builder(snap, prefix)
    numbers, pair_starts = _line_numbers(design.bricks)
    paired = design.failover == "paired"
    if switches is None:
        slugs = {item["item"] for rack in evaluation.racks for item in rack["items"] if item["kind"] == "switch"}
        switches = {s.slug: s for s in cat.Switch.objects.filter(slug__in=slugs)}

    def line_of(n: int) -> int:
        return max(j for j, start in enumerate(numbers) if start <= n)

    standby_of_pair = {}
    if paired:
        for j, group in enumerate(design.bricks):
            if group.count % 2 and design.paired(group):
                standby_of_pair[f"HA {pair_starts[j] + (group.count - 1) // 2}"] = (j, numbers[j] + group.count - 1)

    racks: list[Rack] = []
    bricks: dict[int, dict] = {}
    standbys: dict[int, str] = {}  # last brick number of the line -> standby server
    rack_of: dict[str, int] = {}
    rack_switches: dict[int, list] = {}
    md_counts: dict[str, int] = {}
    rack_params = design.rack

    for rack in evaluation.racks:
        index = int(rack["index"])
        rname = f"{prefix}-rack{index}"
        racks.append(Rack(rname, int(rack["units_total"]), rack["rack"], index))
        stem_counts: dict[str, int] = {}
        for item in rack["items"]:
            role, label, kind = item.get("role") or "", str(item["label"]), item["kind"]
            tags = (slugify(item["pair"]),) if item.get("pair") else ()
            name = None
            if kind == "switch" and item.get("group") == "switches":
                sw = switches[item["item"]]
                stem = _switch_stem(sw)
                stem_counts[stem] = stem_counts.get(stem, 0) + 1
                name = b.device(f"{rname}-sw-{stem}{stem_counts[stem]}", b.switch_type(sw), "Switch", rname, item)
                rack_switches.setdefault(index, []).append((name, sw))
            elif kind == "pdu":
                pdu = snap.racks[rack["rack"]].pdu
                feed = re.search(r"\(feed (\w+)\)$", label)
                suffix = feed.group(1).lower() if feed else str(sum(1 for d in b.devices if d.rack == rname and d.role == "PDU") + 1)
                name = b.device(f"{rname}-pdu-{suffix}", b.pdu_type(pdu), "PDU", rname, item)
            elif item.get("group") == "metadata":
                stem = METADATA_STEMS.get(role, "md")
                if kind == "switch":
                    stem = "md-sw"
                md_counts[stem] = md_counts.get(stem, 0) + 1
                if kind == "server":
                    type_slug = b.server_type(snap.servers[item["item"]])
                elif kind == "enclosure":
                    type_slug = b.enclosure_type(snap.enclosures[item["item"]])
                else:
                    type_slug = b.switch_type(cat.Switch.objects.get(slug=item["item"]))
                name = b.device(f"{prefix}-{stem}{md_counts[stem]}", type_slug, ROLE_NAMES.get(role, "Metadata server"), rname, item)
            elif role in ("oss", "internal") and "standby OSS (" in label:
                j, last = standby_of_pair[item["pair"]]
                group = design.bricks[j]
                type_slug = _oss_type(b, snap, group)
                name = b.device(
                    f"{prefix}-oss{last:02d}-standby", type_slug, ROLE_NAMES["oss"], rname, item, tags, "Standby server (odd brick count)"
                )
                standbys[last] = name
            else:
                m = BRICK_LABEL.search(label)
                if m is None:
                    b.notes.append(f"Rack {index}: '{label}' was not recognised and is not exported.")
                    continue
                n, e, suffix = int(m.group(1)), m.group(2), m.group(3)
                j = line_of(n)
                group = design.bricks[j]
                entry = bricks.setdefault(n, {"line": j, "start": numbers[j], "servers": [], "head": None, "members": {}})
                if kind == "server":
                    name = b.device(f"{prefix}-oss{n:02d}{suffix}", _oss_type(b, snap, group), ROLE_NAMES["oss"], rname, item, tags)
                    entry["servers"].append(name)
                else:
                    enc = snap.enclosures[item["item"]]
                    stem = STEMS.get(role, "enc")
                    dev = f"{prefix}-{stem}{n:02d}" + (f"-{e}" if e else "")
                    name = b.device(dev, b.enclosure_type(enc), ROLE_NAMES.get(role, "Storage enclosure"), rname, item, tags)
                    if e:
                        entry["members"][int(e)] = name
                    else:
                        entry["head"] = name
            if name:
                rack_of[name] = index

    _cable_bricks(b, design, snap, bricks, standbys, rack_of, rack_switches, paired)
    _cable_management(b, rack_of, rack_switches)
    if rack_params.uplinks and rack_params.uplink_cable is not None:
        b.notes.append(
            f"Each rack's {rack_params.uplinks} uplinks to the core ({rack_params.uplink_cable.name}) are in the bill of materials "
            "but not exported: their far end is outside the design. The switch's last ports are kept free for them."
        )
    if design.metadata is not None and design.placement != "none":
        loose = [f"{line.count} x {line.part.name}" for line in design.metadata.all_lines() if line.kind == "adapter"]
        if loose:
            b.notes.append(
                f"The metadata cell's adapters ({', '.join(loose)}) are not assigned to its servers in the catalogue: its servers are exported "
                "with their management port only, and the metadata cell's data cables (in the bill of materials, one per adapter port) are not exported."
            )
    manufacturers = tuple(sorted({t.manufacturer for t in b.types.values()}))
    return Inventory(
        design_name=design.name,
        prefix=prefix,
        manufacturers=manufacturers,
        device_types=tuple(b.types.values()),
        racks=tuple(racks),
        devices=tuple(b.devices),
        cables=tuple(b.cables),
        notes=tuple(dict.fromkeys(b.notes)),
    )


def _oss_type(b: _Builder, snap, group) -> str:
    hba = snap.adapters[group.hba.slug] if group.hba is not None else None
    network = snap.adapters[group.network.slug]
    return b.server_type(snap.servers[group.server.slug], hba, group.hba_count, group.storage_ports, network, group.network_count)


def _storage_ports(b: _Builder, server: str, count: int) -> list[str]:
    """The first `count` storage-side ports of a server (spread over its adapters)."""
    return _ports(b, server, r"(sas|san)\d+-\d+$")[:count]


def _ports(b: _Builder, device: str, pattern: str) -> list[str]:
    """The interfaces of a device's type whose names match `pattern`, in the type's order (memoised per type)."""
    slug = b.type_of[device]
    key = (slug, pattern)
    if key not in b.ports_memo:
        rx = re.compile(pattern)
        b.ports_memo[key] = [i.name for i in b.types[slug].interfaces if rx.match(i.name)]
    return b.ports_memo[key]


class _Missing:
    """Cables the model counts but that cannot be placed, by reason (said once in the notes)."""

    def __init__(self):
        self.counts: dict[str, int] = {}

    def add(self, reason: str, n: int = 1) -> None:
        self.counts[reason] = self.counts.get(reason, 0) + n


def _to_switch(b, missing, device, iface, rack_index, rack_switches, kind, gbps, part, cable_kind) -> None:
    """Cable a port to a switch of the device's rack that takes its kind of link and speed. InfiniBand
    falls back to a slower switch of the rack (the link trains down to the switch's rate: said in the
    notes); Ethernet does not (an SFP+ port does not fit an RJ45 switch)."""
    same = sorted((s for s in rack_switches.get(rack_index, []) if s[1].kind == kind), key=lambda s: -s[1].port_gbps)
    fast = [s for s in same if s[1].port_gbps >= 0.95 * gbps]
    chosen = fast[-1:] or (same[:1] if kind == "infiniband" else [])
    if not chosen:
        missing.add(f"no switch of the rack model takes the {gbps:g} Gb/s {kind} {cable_kind} links")
        return
    sw_name, sw = chosen[0]
    port = b.take(sw_name, _switch_data_ports(b, sw_name))
    if port is None:
        missing.add(f"the rack's {sw.name} has no free port for more {cable_kind} cables")
        return
    b.cable(device, iface, sw_name, port, part, cable_kind)
    if not fast:
        b.slower[(sw.name, sw.port_gbps, gbps)] = b.slower.get((sw.name, sw.port_gbps, gbps), 0) + 1


def _switch_data_ports(b: _Builder, sw_name: str) -> list[str]:
    ports = _ports(b, sw_name, r"port\d+$")
    reserve = b.reserved.get(sw_name, 0)
    return ports[: len(ports) - reserve] if reserve else ports


def _cable_bricks(b, design, snap, bricks, standbys, rack_of, rack_switches, paired) -> None:
    missing = _Missing()
    # keep the uplink ports free on the switch that takes the rack's uplink cables
    uplink = design.rack.uplink_cable
    if design.rack.uplinks and uplink is not None:
        kind = snap.racks[design.rack.slug].uplink_cable.cable_type
        for switches in rack_switches.values():
            for sw_name, sw in switches:
                if sw.kind == kind:
                    b.reserved[sw_name] = design.rack.uplinks
                    break
    for n in sorted(bricks):
        entry = bricks[n]
        j = entry["line"]
        group = design.bricks[j]
        head = entry["head"]
        hba = snap.adapters[group.hba.slug] if group.hba is not None else None
        network = snap.adapters[group.network.slug]
        start = entry["start"]  # first brick number of the line
        k = n - start
        servers = list(entry["servers"])
        san = group.head.is_san
        # storage: server to RAID head or JBOD (split with the HA partner's), or to the SAN switch
        if hba is not None and not group.head.is_internal:
            partner = None
            if paired and not san:
                other = k ^ 1
                partner = bricks.get(start + other, {}).get("head") if other < group.count else None
            standby = standbys.get(n)
            lone_ports = group.storage_ports  # SAS ports each of this brick's servers cables
            standby_ports = 0
            if standby is not None and not san:
                # the standby shares this brick's head: as many cables to it as the bill of materials
                # counts, split so that the standby gets its share when the head is short of ports
                total = len(servers) * group.storage_ports + standby_storage_cables(group)
                standby_ports = max(standby_storage_cables(group), min(group.storage_ports, total // (len(servers) + 1)))
                lone_ports = (total - standby_ports) // max(len(servers), 1)
            for server in servers:
                ports = _storage_ports(b, server, group.storage_ports)
                if standby_ports:
                    ports = ports[:lone_ports]
                if san:
                    for port in ports:
                        _to_switch(
                            b, missing, server, port, rack_of[server], rack_switches, "ethernet", hba.port_gbps, hba.cable, "storage"
                        )
                    continue
                half = (len(ports) + 1) // 2 if partner else len(ports)
                for port, target in [(p, head) for p in ports[:half]] + [(p, partner) for p in ports[half:]]:
                    _sas(b, missing, server, port, target, hba.cable)
            if standby is not None and not san:
                for port in _storage_ports(b, standby, standby_ports):
                    _sas(b, missing, standby, port, head, hba.cable)
            elif standby is not None:
                for port in _storage_ports(b, standby, group.storage_ports):
                    _to_switch(b, missing, standby, port, rack_of[standby], rack_switches, "ethernet", hba.port_gbps, hba.cable, "storage")
        # expansion enclosures daisy-chained per path; SAN members' ports to the SAN switch
        members = [entry["members"][e] for e in sorted(entry["members"])]
        if san:
            enc = snap.enclosures[group.head.slug]
            for dev in [head, *members]:
                for port in _ports(b, dev, r"ctrl\d+-eth\d+$"):
                    _to_switch(b, missing, dev, port, rack_of[dev], rack_switches, "ethernet", enc.uplink_lane_gbps, enc.cable, "array")
        elif members:
            exp = snap.enclosures[group.expansion.slug]
            for i, member in enumerate(members):
                for path in range(exp.uplink_ports):
                    up = (head, f"ctrl{path}-exp") if i == 0 else (members[i - 1], f"emm{path}-out")
                    if b.types[b.type_of[up[0]]].interface(up[1]) is None:
                        missing.add(f"the {group.head.name} has no expansion port for path {path} of its {exp.name}")
                        continue
                    b.cable(up[0], up[1], member, f"emm{path}-in", exp.cable, "expansion")
        # network: every server's adapter ports to the rack's switch
        for server in servers + ([standbys[n]] if n in standbys else []):
            for port in _ports(b, server, r"(ib|eth)\d+-\d+$"):
                _to_switch(
                    b,
                    missing,
                    server,
                    port,
                    rack_of[server],
                    rack_switches,
                    _link_kind(network.kind),
                    network.port_gbps,
                    network.cable,
                    "network",
                )
    for reason, count in missing.counts.items():
        b.notes.append(f"{count} cable{'s' if count != 1 else ''} left out: {reason}.")
    for (switch, switch_gbps, gbps), count in b.slower.items():
        b.notes.append(
            f"{count} InfiniBand link{'s' if count != 1 else ''} of {gbps:g} Gb/s go to the rack's {switch} and run at its {switch_gbps:g} Gb/s "
            "(the rack model has no faster switch; the planner's throughput figures do not include this limit)."
        )


def _sas(b, missing, server, port, target, part) -> None:
    if target is None:
        missing.add("no enclosure to cable to")
        return
    host = b.take(target, _ports(b, target, r"(ctrl\d+-)?host\d+$"))
    if host is None:
        missing.add(f"{target} has no free host port")
        return
    b.cable(server, port, target, host, part, "storage")


def _cable_management(b, rack_of, rack_switches) -> None:
    """One patch cable per management port to the rack's management switch (the slowest Ethernet one)."""
    missing = _Missing()
    count = 0
    mgmt_switch = {}
    for index, switches in rack_switches.items():
        eth = sorted((s for s in switches if s[1].kind == "ethernet"), key=lambda s: s[1].port_gbps)
        if eth:
            mgmt_switch[index] = eth[0][0]
    for device in list(b.devices):
        sw = mgmt_switch.get(rack_of.get(device.name))
        for iface in b.types[device.device_type].interfaces:
            if not iface.mgmt_only or device.name == sw:
                continue
            if sw is None:
                missing.add("no Ethernet switch in the rack for management")
                continue
            port = b.take(sw, _switch_data_ports(b, sw))
            if port is None:
                missing.add(f"{sw} has no free port for more management cables")
                continue
            b.cable(device.name, iface.name, sw, port, None, "management")
            count += 1
    if count:
        b.notes.append(
            f"{count} management patch cables (one per management port, to the rack's management switch) are exported; "
            "the bill of materials does not count them."
        )
    for reason, n in missing.counts.items():
        b.notes.append(f"{n} management cable{'s' if n != 1 else ''} left out: {reason}.")


def inventory_for_spec(spec: dict, *, user=None, name: str = "", prefix: str = "", prices: dict | None = None) -> Inventory:
    """The inventory of a DesignSpec (resolved with `user`'s templates); raises SpecError for a bad spec."""
    from planner import engine
    from planner.services.catalogue import catalogue_snapshot
    from planner.services.evaluation import design_resolve

    snap = catalogue_snapshot(user=user)
    design = design_resolve(spec=spec, prices=prices, user=user, snapshot=snap)
    if name:
        import dataclasses

        design = dataclasses.replace(design, name=name)
    evaluation = engine.evaluate(design)
    return build_inventory(design, evaluation, snap, prefix=prefix)


def inventory_for_design(design, *, prefix: str = "") -> Inventory:
    """The inventory of a saved design (`planner.models.Design`), with its owner's templates."""
    return inventory_for_spec(design.spec, user=design.owner, name=design.name, prefix=prefix, prices=design.prices or None)
