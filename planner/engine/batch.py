"""The one array pipeline: N designs of up to G brick lines each, evaluated as arrays in one call.

`BatchInput` holds
- `groups`: physics of each brick line, (N, G) arrays (padding lines have count 0);
- `parts`: per-part figures of each brick line, (N, G, P) arrays over `inputs.PARTS` (quantity per
  brick and per standby server, unit price, power and weight);
- `dparts`: design-level parts, (N, D) arrays (the rack and its switches per rack, the metadata
  cell's parts once);
- `designs`: design-level figures, (N,) arrays;
- `keys`: for designs built from `DesignInput`s, which catalogue part each (line, part) and each
  design-level part is, to name the bill of materials.

`evaluate_batch` computes every figure once: capacity, the stage table, delivered throughput,
per-part quantities, rack packing, power, weight and price. A single evaluation is row 0 of a
batch of one (`planner.engine.evaluate`); the bill of materials and the rack layout read the
same arrays (`cost.bill_of_materials`, `layout.rack_layouts`).
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from . import capacity, throughput
from .inputs import PART_KINDS, PARTS, STAGES, DesignInput
from .layout import pack_racks
from .throughput import KIND_INTERNAL, KIND_SAN, KIND_SHARED
from .units import HOURS_PER_YEAR

GROUP_FIELDS = (
    "count",
    "servers_per_brick",
    "hba_count",
    "hba_gbps",
    "hba_port_gbps",
    "storage_ports",
    "net_count",
    "net_gbps",
    "kind_code",
    "controllers",
    "ctrl_read_mbps",
    "ctrl_write_mbps",
    "ctrl_requests_per_s",
    "ctrl_max_request_kib",
    "cache_merge",
    "head_ports",
    "head_port_gbps",
    "expansions",
    "exp_link_gbps",
    "disk_bytes",
    "disk_read_mbps",
    "disk_write_mbps",
    "raid_data",
    "raid_parity",
    "level_code",
    "segment_kib",
    "groups_per_enclosure",
    "spares_per_enclosure",
    "fs_overhead",
    "sw_raid_read_mbps",
    "sw_raid_write_mbps",
    "measured_read_gbps",
    "measured_write_gbps",
    "eff_read",
    "eff_write",
    "cc_read_lam",
    "cc_read_sigma",
    "cc_read_kappa",
    "cc_read_peak",
    "cc_write_lam",
    "cc_write_sigma",
    "cc_write_kappa",
    "cc_write_peak",
    "cc_bricks",
    "brick_height",
    "standby_height",
)
PART_FIELDS = ("per_brick", "per_standby", "price", "power", "weight")
DPART_FIELDS = ("fixed", "per_rack", "per_free_unit", "price", "power", "weight", "server")
DESIGN_FIELDS = (
    "request_kib",
    "client_nodes",
    "paired",
    "clients_gbps",
    "fabric_gbps",
    "rack_usable_units",
    "rack_units",
    "md_reserved_units",
    "md_height",
    "md_separate",
    "md_counted",
    "support_per_server_year",
    "years",
    "energy_price",
    "pue",
)
KIND_CODES = {"raid_head": KIND_SHARED, "jbod": KIND_SHARED, "internal": KIND_INTERNAL, "iscsi_array": KIND_SAN, "fc_array": KIND_SAN}


@dataclass
class BatchInput:
    """Arrays for N designs (see the module docstring)."""

    groups: dict
    designs: dict
    parts: dict
    dparts: dict
    keys: list = field(default_factory=list)
    """Per design: ([per line: [(kind, slug, name) per part]], [(kind, slug, name) per design part], unpriced)."""

    @property
    def size(self) -> int:
        return int(self.groups["count"].shape[0])

    def repeat(self, times: int) -> "BatchInput":
        """Each design repeated `times` times (row i -> rows i*times .. i*times+times-1)."""
        rep = lambda d: {k: np.repeat(v, times, axis=0) for k, v in d.items()}  # noqa: E731
        return BatchInput(groups=rep(self.groups), designs=rep(self.designs), parts=rep(self.parts), dparts=rep(self.dparts))

    @classmethod
    def concatenate(cls, batches: list["BatchInput"]) -> "BatchInput":
        """Batches with the same number of lines and design parts, one after another."""

        def pad(a, width):
            if a.ndim < 2 or a.shape[1] == width:
                return a
            shape = (a.shape[0], width - a.shape[1]) + a.shape[2:]
            return np.concatenate([a, np.zeros(shape, dtype=a.dtype)], axis=1)

        def cat(attr):
            first = getattr(batches[0], attr)
            out = {}
            for k in first:
                arrays = [getattr(b, attr)[k] for b in batches]
                width = max(a.shape[1] for a in arrays) if arrays[0].ndim >= 2 else 0
                out[k] = np.concatenate([pad(a, width) for a in arrays])
            return out

        return cls(groups=cat("groups"), designs=cat("designs"), parts=cat("parts"), dparts=cat("dparts"))

    @classmethod
    def from_designs(cls, designs: list[DesignInput]) -> "BatchInput":
        """Pack design inputs into arrays, padding to the largest number of lines and design parts."""
        n = len(designs)
        g = max(1, max(len(d.bricks) for d in designs))
        design_parts = [_design_parts(d) for d in designs]
        dp = max(1, max(len(x) for x in design_parts))
        groups = {name: np.zeros((n, g)) for name in GROUP_FIELDS}
        for name in ("raid_data", "segment_kib", "brick_height", "eff_read", "eff_write"):
            groups[name] = np.ones((n, g))
        parts = {name: np.zeros((n, g, len(PARTS))) for name in PART_FIELDS}
        dparts = {name: np.zeros((n, dp)) for name in DPART_FIELDS}
        dv = {name: np.zeros(n) for name in DESIGN_FIELDS}
        for name in ("paired", "md_separate", "md_counted"):
            dv[name] = np.zeros(n, dtype=bool)
        keys = []
        for i, d in enumerate(designs):
            line_keys, unpriced = [], []
            for j, brick in enumerate(d.bricks):
                _fill_group(groups, i, j, brick, d)
                line_keys.append(_fill_parts(parts, i, j, brick, d, unpriced))
            dkeys = []
            for k, (kind, part, fixed, per_rack, per_free, is_server) in enumerate(design_parts[i]):
                price = d.prices.price(kind, part.slug)
                if price is None:
                    unpriced.append((kind, part.slug))
                dparts["fixed"][i, k] = fixed
                dparts["per_rack"][i, k] = per_rack
                dparts["per_free_unit"][i, k] = per_free
                dparts["price"][i, k] = price or 0.0
                dparts["power"][i, k] = part.power_w
                dparts["weight"][i, k] = part.weight_kg
                dparts["server"][i, k] = float(is_server)
                dkeys.append((kind, part.slug, part.name))
            keys.append((line_keys, dkeys, unpriced))
            _fill_design(dv, i, d)
        return cls(groups=groups, designs=dv, parts=parts, dparts=dparts, keys=keys)


def _fill_group(groups: dict, i: int, j: int, b, d: DesignInput) -> None:
    row = lambda name, value: groups[name].__setitem__((i, j), value)  # noqa: E731
    head, disk, raid = b.head, b.disk, b.raid
    row("count", b.count)
    row("servers_per_brick", b.servers_per_brick)
    row("hba_count", b.hba_count if b.hba else 0)
    row("hba_gbps", b.hba.effective_gbps if b.hba else 0.0)
    row("hba_port_gbps", b.hba.per_port_gbps if b.hba else 0.0)
    row("storage_ports", b.storage_ports)
    row("net_count", b.network_count)
    row("net_gbps", b.network.effective_gbps)
    row("kind_code", KIND_CODES.get(head.kind, KIND_SHARED))
    row("controllers", head.controllers)
    row("ctrl_read_mbps", head.controller_read_mbps)
    row("ctrl_write_mbps", head.controller_write_mbps)
    row("ctrl_requests_per_s", head.controller_requests_per_s)
    row("ctrl_max_request_kib", head.max_request_kib)
    row("cache_merge", head.cache_merge)
    row("head_ports", head.uplink_ports)
    row("head_port_gbps", head.uplink_port_gbps)
    row("expansions", b.expansions if b.expansion else 0)
    exp = b.expansion
    row("exp_link_gbps", exp.uplink_ports * exp.uplink_port_gbps if exp is not None and not head.is_san else 0.0)
    factor = disk.sustained_factor
    row("disk_bytes", disk.capacity_bytes)
    row("disk_read_mbps", disk.read_mbps * factor)
    row("disk_write_mbps", disk.write_mbps * factor)
    row("raid_data", raid.data)
    row("raid_parity", raid.parity)
    row("level_code", capacity.level_code(raid.level))
    row("segment_kib", raid.segment_kib)
    row("groups_per_enclosure", raid.groups)
    row("spares_per_enclosure", raid.spares)
    row("fs_overhead", b.fs_overhead_fraction)
    row("sw_raid_read_mbps", b.software_raid_read_mbps or 0.0)
    row("sw_raid_write_mbps", b.software_raid_write_mbps or 0.0)
    row("measured_read_gbps", b.measured_backend_read_gbps or 0.0)
    row("measured_write_gbps", b.measured_backend_write_gbps or 0.0)
    row("eff_read", b.efficiency_read if b.efficiency_read is not None else d.tuning.software_read_efficiency)
    row("eff_write", b.efficiency_write if b.efficiency_write is not None else d.tuning.software_write_efficiency)
    for op in ("read", "write"):
        curve = b.client_curves.get(op)
        if curve:
            row(f"cc_{op}_lam", curve["lam"])
            row(f"cc_{op}_sigma", curve["sigma"])
            row(f"cc_{op}_kappa", curve["kappa"])
            row(f"cc_{op}_peak", curve["peak_gbps"])
            row("cc_bricks", curve["bricks"])
    row("brick_height", b.height_u)
    row("standby_height", b.server.height_u)


def brick_part_counts(b, rail_kit) -> tuple[tuple, tuple, tuple]:
    """One brick's parts as (catalogue parts, per brick, per standby server), in the order of PARTS.

    Cables: each storage port used per server (HBA to head or SAN), each network port used (to the
    top-of-rack switch), each expansion enclosure's uplink ports, each SAN array's ports (to the SAN
    switches); one rail kit per rack-mounted server or enclosure (not for a server's own bays)."""
    spb = b.servers_per_brick
    hba_cable = b.hba.cable if b.hba else None
    net_cable = b.network.cable
    exp = b.expansion
    san = b.head.is_san
    exp_cable = exp.cable if exp is not None and not san else None
    array_cable = b.head.cable if san else None
    enclosures_mounted = (1 if b.head.height_u > 0 else 0) + (b.expansions if exp is not None else 0)
    catalogue = (b.server, b.hba, b.network, b.head, exp, b.disk, hba_cable, net_cable, exp_cable, array_cable, rail_kit)
    per_brick = (
        spb,
        spb * b.hba_count if b.hba else 0,
        spb * b.network_count,
        1,
        b.expansions if exp is not None else 0,
        b.disks,
        spb * b.storage_ports if hba_cable else 0,
        spb * b.network_count * b.network.ports if net_cable else 0,
        b.expansions * exp.uplink_ports if exp_cable else 0,
        b.enclosures * b.head.uplink_ports if array_cable else 0,
        spb + enclosures_mounted if rail_kit else 0,
    )
    per_standby = (
        1,
        b.hba_count if b.hba else 0,
        b.network_count,
        0,
        0,
        0,
        b.storage_ports if hba_cable else 0,
        b.network_count * b.network.ports if net_cable else 0,
        0,
        0,
        1 if rail_kit else 0,
    )
    return catalogue, per_brick, per_standby


def _fill_parts(parts: dict, i: int, j: int, b, d: DesignInput, unpriced: list) -> list:
    """Per-part quantities and unit figures of one brick line; returns the parts' (kind, slug, name)."""
    catalogue, per_brick, per_standby = brick_part_counts(b, d.rack.rail_kit)
    keys = []
    for k, (kind, part) in enumerate(zip(PART_KINDS, catalogue, strict=True)):
        if part is None or (per_brick[k] == 0 and per_standby[k] == 0):
            keys.append(None)
            continue
        price = d.prices.price(kind, part.slug)
        if price is None:
            unpriced.append((kind, part.slug))
        parts["per_brick"][i, j, k] = per_brick[k]
        parts["per_standby"][i, j, k] = per_standby[k]
        parts["price"][i, j, k] = price or 0.0
        parts["power"][i, j, k] = part.power_w
        parts["weight"][i, j, k] = getattr(part, "weight_kg", 0.0)
        keys.append((kind, part.slug, part.name))
    return keys


def _design_parts(d: DesignInput) -> list[tuple]:
    """Design-level parts: (price kind, part, fixed quantity, per rack, per free rack unit, is a server)."""
    rack = d.rack
    out = [("rack", _rack_part(rack), 0, 1, 0, False)]
    out += [("switch", part, 0, count, 0, False) for part, count in rack.switches]
    if rack.pdu is not None and rack.pdus:
        out.append(("accessory", rack.pdu.part, 0, rack.pdus, 0, False))
    if rack.uplink_cable is not None and rack.uplinks:
        out.append(("accessory", rack.uplink_cable, 0, rack.uplinks, 0, False))
    if rack.blanking_panel is not None:
        out.append(("accessory", rack.blanking_panel, 0, 0, 1.0 / max(rack.blanking_panel.height_u, 1), False))
    if d.metadata is not None and d.placement in ("in_rack", "separate_rack"):
        lines = d.metadata.all_lines()
        out += [(line.kind, line.part, line.count, 0, 0, line.kind == "server") for line in lines]
        mounted = sum(line.count for line in lines if line.kind in ("server", "enclosure") and line.part.height_u > 0)
        if rack.rail_kit is not None and mounted:
            out.append(("accessory", rack.rail_kit, mounted, 0, 0, False))
    return out


def _rack_part(rack):
    from .inputs import PartParams

    return PartParams(slug=rack.slug, name=rack.name, kind="rack", height_u=0, power_w=0.0, weight_kg=rack.weight_kg)


def _fill_design(dv: dict, i: int, d: DesignInput) -> None:
    dv["request_kib"][i] = d.tuning.request_kib
    dv["paired"][i] = d.failover == "paired"
    dv["clients_gbps"][i] = client_limit_gbps(d) if d.clients else np.inf
    dv["client_nodes"][i] = d.clients.count if d.clients else 0
    fabric = np.inf
    if d.fabric is not None and d.fabric.core_gbps:
        fabric = d.fabric.core_gbps
    dv["fabric_gbps"][i] = fabric
    dv["rack_usable_units"][i] = d.rack.usable_units
    dv["rack_units"][i] = d.rack.units
    counted = d.metadata is not None and d.placement in ("in_rack", "separate_rack")
    dv["md_counted"][i] = counted
    dv["md_separate"][i] = counted and d.placement == "separate_rack"
    if counted:
        dv["md_reserved_units"][i] = d.metadata.height_u if d.placement == "in_rack" else 0
        dv["md_height"][i] = d.metadata.height_u
    prices = d.prices
    dv["support_per_server_year"][i] = prices.support_per_server_year
    dv["years"][i] = prices.service_years
    dv["energy_price"][i] = prices.energy_price_per_kwh
    dv["pue"][i] = prices.pue


def per_client_gbps(d: DesignInput) -> tuple[float, float]:
    """One client's limit: (its link's payload, Lustre's RPC limit) in GB/s.

    Lustre keeps at most `rpcs_in_flight` RPCs of `rpc_kib` in flight per OSC; a client streaming
    to `streams` OSTs at once moves at most streams x in flight x RPC size per round trip."""
    c = d.clients
    link = c.adapter.effective_gbps
    if c.rpc_round_trip_ms <= 0:
        return link, np.inf
    rpc_bytes = d.tuning.rpc_kib * 1024.0
    lustre = c.streams * d.tuning.rpcs_in_flight * rpc_bytes / (c.rpc_round_trip_ms / 1000.0) / 1e9
    return link, lustre


def client_limit_gbps(d: DesignInput) -> float:
    """What the clients can move together, GB/s: count x min(link, Lustre per-client limit), over
    the fabric's oversubscription."""
    link, lustre = per_client_gbps(d)
    oversub = d.fabric.oversubscription if d.fabric is not None else 1.0
    return d.clients.count * min(link, lustre) / max(oversub, 1.0)


@dataclass
class BatchResult:
    """Per-design totals (shape (N,)), per-line detail (N, G) and the stage table (S, 2, N, G)."""

    usable_bytes: np.ndarray
    raw_bytes: np.ndarray
    osts: np.ndarray
    disks: np.ndarray
    servers: np.ndarray
    enclosures: np.ndarray
    read_gbps: np.ndarray
    write_gbps: np.ndarray
    system_limit: np.ndarray  # (2, N): 0 the bricks, 1 clients, 2 fabric
    stages: np.ndarray  # (S, 2, N, G) GB/s per brick, before software efficiency
    brick_gbps: np.ndarray  # (2, N, G) delivered per brick
    backend_gbps: np.ndarray  # (2, N, G) back end per brick after software efficiency
    limiting: np.ndarray  # (2, N, G) stage index limiting each brick
    degraded_gbps: np.ndarray  # (2, N) with one OSS server down
    standby: np.ndarray  # (N, G) standby servers added for HA pairing
    part_qty: np.ndarray  # (N, G, P) parts of every line
    dpart_qty: np.ndarray  # (N, D) design-level parts
    brick_power: np.ndarray  # (N, G) W per brick
    brick_weight: np.ndarray  # (N, G) kg per brick
    standby_power: np.ndarray  # (N, G)
    standby_weight: np.ndarray  # (N, G)
    pack: dict  # rack packing per line (see layout.pack_racks)
    hardware: np.ndarray
    support: np.ndarray
    capex: np.ndarray
    opex: np.ndarray
    total: np.ndarray
    power_w: np.ndarray
    weight_kg: np.ndarray
    rack_count: np.ndarray
    racks_fit: np.ndarray
    units_used: np.ndarray
    free_units: np.ndarray

    @property
    def bricks(self) -> np.ndarray:
        return self.part_qty[..., PARTS.index("head")]

    def bottleneck_names(self) -> list[tuple[str, str]]:
        """Per design, the stage limiting (read, write): `clients` or `fabric` when those cap the
        system, else the stage of the line that delivers the most."""
        contribution = self.brick_gbps * self.bricks[None]
        top = np.argmax(contribution, axis=2)  # (2, N)
        ops, rows = np.meshgrid(np.arange(2), np.arange(top.shape[1]), indexing="ij")
        idx = self.limiting[ops, rows, top]
        names = []
        for i in range(top.shape[1]):
            pair = []
            for op in range(2):
                cap = self.system_limit[op, i]
                pair.append("clients" if cap == 1 else "fabric" if cap == 2 else STAGES[idx[op, i]])
            names.append(tuple(pair))
        return names


def evaluate_batch(batch: BatchInput) -> BatchResult:
    """Evaluate N designs at once. Units: bytes, GB/s, W, kg, the price list's currency."""
    b, d, parts, dparts = batch.groups, batch.designs, batch.parts, batch.dparts
    count = b["count"]
    enclosures = 1.0 + b["expansions"]
    paired = d["paired"][:, None]

    # capacity
    osts_brick = capacity.osts_per_brick(enclosures, b["groups_per_enclosure"])
    ost_bytes = capacity.usable_bytes_per_ost(b["raid_data"], b["raid_parity"], b["disk_bytes"], b["fs_overhead"], b["level_code"])
    usable = np.sum(count * osts_brick * ost_bytes, axis=1)

    # throughput
    stages = throughput.stage_limits(b, request_kib=d["request_kib"][:, None], paired=paired)
    throughput.measured_end_to_end(stages, b, clients_per_brick=d["client_nodes"] / np.maximum(np.sum(count, axis=1), 1.0))
    eff = np.stack([b["eff_read"], b["eff_write"]])
    brick, limiting, back_eff = throughput.brick_delivery(stages, eff)
    bricks_sum = np.sum(brick * count, axis=2)  # (2, N)
    clients = d["clients_gbps"][None, :]
    fabric = d["fabric_gbps"][None, :]
    system = np.minimum(np.minimum(bricks_sum, clients), fabric)
    system_limit = np.where(clients < np.minimum(bricks_sum, fabric), 1, np.where(fabric < bricks_sum, 2, 0))

    # one OSS server down: its HA partner serves both bricks through one server and network adapter
    net = stages[throughput.NETWORK]
    pair_degraded = np.minimum(2.0 * back_eff, net)
    loss_paired = np.where(count >= 2, 2.0 * brick - pair_degraded, 0.0)
    loss = np.where(paired[None], loss_paired, np.where(count > 0, brick, 0.0))
    degraded = np.minimum(np.maximum(bricks_sum - np.max(loss, axis=2), 0.0), np.minimum(clients, fabric))

    # parts
    standby = np.where(paired & (np.mod(count, 2) == 1), 1.0, 0.0)
    part_qty = count[..., None] * parts["per_brick"] + standby[..., None] * parts["per_standby"]
    brick_power = np.sum(parts["per_brick"] * parts["power"], axis=2)
    brick_weight = np.sum(parts["per_brick"] * parts["weight"], axis=2)
    standby_power = np.sum(parts["per_standby"] * parts["power"], axis=2)
    standby_weight = np.sum(parts["per_standby"] * parts["weight"], axis=2)

    # rack fit
    pack = pack_racks(
        heights=b["brick_height"],
        counts=count,
        weights=brick_weight,
        standby=standby,
        standby_height=b["standby_height"],
        usable_units=d["rack_usable_units"],
        first_rack_reserved=d["md_reserved_units"],
        separate_metadata=d["md_separate"],
    )
    racks = pack["racks"]
    md = d["md_counted"].astype(float)
    switch_units = d["rack_units"] - d["rack_usable_units"]
    units_used = np.sum(count * b["brick_height"] + standby * b["standby_height"], axis=1) + racks * switch_units + md * d["md_height"]
    free_units = np.maximum(racks * d["rack_units"] - units_used, 0.0)
    dpart_qty = dparts["fixed"] + racks[:, None] * dparts["per_rack"] + np.ceil(free_units[:, None] * dparts["per_free_unit"])

    # power, weight and price: every part once
    power = np.sum(part_qty * parts["power"], axis=(1, 2)) + np.sum(dpart_qty * dparts["power"], axis=1)
    weight = np.sum(part_qty * parts["weight"], axis=(1, 2)) + np.sum(dpart_qty * dparts["weight"], axis=1)
    hardware = np.sum(part_qty * parts["price"], axis=(1, 2)) + np.sum(dpart_qty * dparts["price"], axis=1)
    brick_servers = np.sum(part_qty[..., PARTS.index("server")], axis=1)
    all_servers = brick_servers + np.sum(dpart_qty * dparts["server"], axis=1)
    support = all_servers * d["support_per_server_year"] * d["years"]
    capex = hardware + support
    opex = power / 1000.0 * HOURS_PER_YEAR * d["years"] * d["pue"] * d["energy_price"]

    disks_brick = parts["per_brick"][..., PARTS.index("disk")]
    return BatchResult(
        usable_bytes=usable,
        raw_bytes=np.sum(count * disks_brick * b["disk_bytes"], axis=1),
        osts=np.sum(count * osts_brick, axis=1),
        disks=np.sum(count * disks_brick, axis=1),
        servers=all_servers,
        enclosures=np.sum(count * enclosures, axis=1),
        read_gbps=system[0],
        write_gbps=system[1],
        system_limit=system_limit,
        stages=stages,
        brick_gbps=brick,
        backend_gbps=back_eff,
        limiting=limiting,
        degraded_gbps=degraded,
        standby=standby,
        part_qty=part_qty,
        dpart_qty=dpart_qty,
        brick_power=brick_power,
        brick_weight=brick_weight,
        standby_power=standby_power,
        standby_weight=standby_weight,
        pack=pack,
        hardware=hardware,
        support=support,
        capex=capex,
        opex=opex,
        total=capex + opex,
        power_w=power,
        weight_kg=weight,
        rack_count=racks,
        racks_fit=pack["fits"],
        units_used=units_used,
        free_units=free_units,
    )
