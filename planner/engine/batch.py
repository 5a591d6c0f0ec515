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

Memory layout. Arrays are indexed design first, (N, G) and (N, G, P), but stored design last:
`from_designs`, `repeat` and `concatenate` build them in Fortran order, so that `a.T` is a
C-contiguous (G, N) or (P, G, N) array. `evaluate_batch` works on those transposed views: every
operation runs over long contiguous rows of designs, and the sums over lines and parts, the
minimum over stages, run over a short *leading* axis (adding whole rows), never over a short
strided trailing one. Figures of a batch are handed back design first again, as views.

Count-independent figures. A field whose design axis is broadcast (stride 0, as `repeat` builds
from a batch of one design) holds the same value for every design; `evaluate_batch` keeps it as
one column, so everything that does not depend on the brick counts (the stage table, per-brick
capacity, power, weight and price, the order lines are packed in) is computed once and broadcast
against the counts. Write a new array into `groups["count"]` (as a solver does) rather than into
a repeated field in place: repeated fields are read-only views. For many options at many counts,
give `rows` instead: every array holds one row per option, `groups["count"]` one row per design,
and design i is option `rows[i]`; the count-independent figures are computed once per option and
only what the count-dependent part reads is gathered per design (a figure equal for every option
stays one column). `BatchResult` builds its per-design views of the per-option figures (stage
table, per-brick power and weight, parts) on first use.
"""

from __future__ import annotations

import math
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
    rows: np.ndarray | None = None
    """Optional (N,) integers: design i is option `rows[i]`, a row of every array but
    `groups["count"]`, which stays per design (N, G). Options x counts without copying each
    option's arrays per design: what does not depend on the counts is computed once per option."""

    @property
    def size(self) -> int:
        return int(self.groups["count"].shape[0])

    def repeat(self, times: int) -> "BatchInput":
        """Each design repeated `times` times (row i -> rows i*times .. i*times+times-1).

        A batch of one design is repeated as read-only broadcast views (no copy): `evaluate_batch`
        then computes its count-independent figures once."""
        if self.rows is not None:
            raise ValueError("repeat a batch without `rows` (or repeat its rows and counts)")
        if self.size == 1:
            rep = lambda d: {k: np.broadcast_to(v, (times,) + v.shape[1:]) for k, v in d.items()}  # noqa: E731
        else:
            rep = lambda d: {k: np.repeat(v.T, times, axis=-1).T for k, v in d.items()}  # noqa: E731
        return BatchInput(groups=rep(self.groups), designs=rep(self.designs), parts=rep(self.parts), dparts=rep(self.dparts))

    def at_counts(self, rows, counts) -> "BatchInput":
        """Design i = option `rows[i]` of this batch (one option per row) with `counts[i]` bricks per
        line ((N, G), or (N,) for one line): a `rows` batch, the options' arrays shared, not copied."""
        if self.rows is not None:
            raise ValueError("at_counts takes a batch of options (without `rows`)")
        rows = np.asarray(rows, dtype=np.intp).ravel()
        counts = np.asarray(counts, dtype=float).reshape(rows.size, -1)
        return BatchInput(groups={**self.groups, "count": counts}, designs=self.designs, parts=self.parts, dparts=self.dparts, rows=rows)

    @classmethod
    def concatenate(cls, batches: list["BatchInput"]) -> "BatchInput":
        """Batches with the same number of lines and design parts, one after another (without `rows`)."""
        if any(b.rows is not None for b in batches):
            raise ValueError("concatenate batches without `rows`")

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
                out[k] = np.concatenate([pad(a, width).T for a in arrays], axis=-1).T  # stored design last
            return out

        return cls(groups=cat("groups"), designs=cat("designs"), parts=cat("parts"), dparts=cat("dparts"))

    @classmethod
    def from_designs(cls, designs: list[DesignInput]) -> "BatchInput":
        """Pack design inputs into arrays, padding to the largest number of lines and design parts.

        Each brick line's and each design's figures are first gathered as one Python tuple and every
        set of tuples becomes an array in one conversion: setting numpy elements one at a time cost
        several times more than the arithmetic a search then does with them. Design-level figures are
        gathered once for designs that share their rack, metadata cell, prices and the rest (a search's
        options do), since they then cannot differ."""
        n = len(designs)
        g = max(1, max(len(d.bricks) for d in designs))
        shared: dict[tuple, tuple] = {}
        design_level = []
        for d in designs:
            key = _design_key(d)
            if key not in shared:
                shared[key] = _design_level(d)
            design_level.append(shared[key])
        dp = max(1, max(len(x[0]) for x in design_level))
        n_parts = len(PARTS)
        group_rows = [_GROUP_PADDING] * (n * g)  # line j of design i at j * n + i
        part_rows = [(0.0,) * (len(PART_FIELDS) * n_parts)] * (n * g)
        dpart_rows, design_rows, keys = [], [], []
        for i, d in enumerate(designs):
            line_keys, unpriced = [], []
            for j, brick in enumerate(d.bricks):
                group_rows[j * n + i] = _group_row(brick, d)
                row, line = _part_row(brick, d, unpriced)
                part_rows[j * n + i] = row
                line_keys.append(line)
            dkeys, dvalues, dunpriced, dfigures = design_level[i]
            unpriced.extend(dunpriced)
            keys.append((line_keys, list(dkeys), unpriced))
            width = len(dkeys)
            if width < dp:  # pad each field's block to dp entries
                pad = (0.0,) * (dp - width)
                dvalues = sum((dvalues[f * width : (f + 1) * width] + pad for f in range(len(DPART_FIELDS))), ())
            dpart_rows.append(dvalues)
            design_rows.append(dfigures)
        groups = _fields_by_rows(group_rows, GROUP_FIELDS, 1, g, n)
        parts = _fields_by_rows(part_rows, PART_FIELDS, n_parts, g, n)
        dblock = np.ascontiguousarray(np.array(dpart_rows, dtype=float).T)  # (fields x dp, N)
        dparts = {name: dblock[f * dp : (f + 1) * dp].T for f, name in enumerate(DPART_FIELDS)}
        by_field = np.array(design_rows, dtype=float).T.copy()
        dv = {name: by_field[f].astype(bool) if name in _BOOL_DESIGN_FIELDS else by_field[f] for f, name in enumerate(DESIGN_FIELDS)}
        return cls(groups=groups, designs=dv, parts=parts, dparts=dparts, keys=keys)


def _fields_by_rows(rows: list, names: tuple, width: int, g: int, n: int) -> dict:
    """Rows of `len(names) * width` values (row of line j of design i at j * n + i, field f's values at
    f * width ... f * width + width - 1) as one array per field: (N, G) for width 1, else (N, G, width),
    stored design last (Fortran order) as views of one block."""
    block = np.ascontiguousarray(np.array(rows, dtype=float).T)  # (fields x width, G x N)
    if width == 1:
        return {name: block[f].reshape(g, n).T for f, name in enumerate(names)}
    return {name: block[f * width : (f + 1) * width].reshape(width, g, n).T for f, name in enumerate(names)}


def _design_key(d: DesignInput) -> tuple:
    """What the design-level figures depend on, by identity (the objects live while the batch is built)."""
    return (id(d.rack), id(d.metadata), d.placement, id(d.prices), id(d.tuning), id(d.clients), id(d.fabric), d.failover)


def _design_level(d: DesignInput) -> tuple:
    """(part keys, design-part values field by field, unpriced design parts, design figures) of one design."""
    columns = {name: [] for name in DPART_FIELDS}
    dkeys, unpriced = [], []
    for kind, part, fixed, per_rack, per_free, is_server in _design_parts(d):
        price = d.prices.price(kind, part.slug)
        if price is None:
            unpriced.append((kind, part.slug))
        for name, value in zip(
            DPART_FIELDS, (fixed, per_rack, per_free, price or 0.0, part.power_w, part.weight_kg, float(is_server)), strict=True
        ):
            columns[name].append(value)
        dkeys.append((kind, part.slug, part.name))
    values = tuple(v for name in DPART_FIELDS for v in columns[name])
    figures = dict.fromkeys(DESIGN_FIELDS, 0.0)
    _fill_design(figures, d)
    return tuple(dkeys), values, tuple(unpriced), tuple(figures[name] for name in DESIGN_FIELDS)


_GROUP_ONES = ("raid_data", "segment_kib", "brick_height", "eff_read", "eff_write")
_GROUP_PADDING = tuple(1.0 if name in _GROUP_ONES else 0.0 for name in GROUP_FIELDS)
"""A padding line's row of group figures (count 0; ones where a figure divides)."""
_BOOL_DESIGN_FIELDS = ("paired", "md_separate", "md_counted")


def _group_row(b, d: DesignInput) -> tuple:
    """One brick line's figures in the order of GROUP_FIELDS."""
    head, disk, raid, hba, exp = b.head, b.disk, b.raid, b.hba, b.expansion
    factor = disk.sustained_factor
    cc = {}
    for op in ("read", "write"):
        curve = b.client_curves.get(op)
        if curve:
            cc[op] = (curve["lam"], curve["sigma"], curve["kappa"], curve["peak_gbps"])
            cc["bricks"] = curve["bricks"]
    read, write = cc.get("read", (0.0,) * 4), cc.get("write", (0.0,) * 4)
    return (
        b.count,
        b.servers_per_brick,
        b.hba_count if hba else 0,
        hba.effective_gbps if hba else 0.0,
        hba.per_port_gbps if hba else 0.0,
        b.storage_ports,
        b.network_count,
        b.network.effective_gbps,
        KIND_CODES.get(head.kind, KIND_SHARED),
        head.controllers,
        head.controller_read_mbps,
        head.controller_write_mbps,
        head.controller_requests_per_s,
        head.max_request_kib,
        head.cache_merge,
        head.uplink_ports,
        head.uplink_port_gbps,
        b.expansions if exp else 0,
        exp.uplink_ports * exp.uplink_port_gbps if exp is not None and not head.is_san else 0.0,
        disk.capacity_bytes,
        disk.read_mbps * factor,
        disk.write_mbps * factor,
        raid.data,
        raid.parity,
        capacity.level_code(raid.level),
        raid.segment_kib,
        raid.groups,
        raid.spares,
        b.fs_overhead_fraction,
        b.software_raid_read_mbps or 0.0,
        b.software_raid_write_mbps or 0.0,
        b.measured_backend_read_gbps or 0.0,
        b.measured_backend_write_gbps or 0.0,
        b.efficiency_read if b.efficiency_read is not None else d.tuning.software_read_efficiency,
        b.efficiency_write if b.efficiency_write is not None else d.tuning.software_write_efficiency,
        *read,
        *write,
        cc.get("bricks", 0.0),
        b.height_u,
        b.server.height_u,
    )


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
        standby_storage_cables(b) if hba_cable else 0,
        b.network_count * b.network.ports if net_cable else 0,
        0,
        0,
        1 if rail_kit else 0,
    )
    return catalogue, per_brick, per_standby


def standby_storage_cables(b) -> int:
    """Storage cables of a line's standby server (an odd count under HA pairing): it shares the last
    brick's RAID head or JBOD, so it is cabled to the host ports the brick's own servers leave free, at
    most its storage ports (an MD3460's 8 ports take 4 + 4; a JBOD's 4 are split between the two
    servers, as `dcim.inventory` cables them). A switched SAN keeps every port."""
    if b.head.is_san or b.head.is_internal:
        return b.storage_ports
    return min(b.storage_ports, max(0, b.head.uplink_ports - b.servers_per_brick * b.storage_ports))


def _part_row(b, d: DesignInput, unpriced: list) -> tuple[tuple, list]:
    """One brick line's per-part figures (PART_FIELDS, each over PARTS, field after field) and the parts'
    (kind, slug, name) (None for a part the line does not use); unpriced parts are added to `unpriced`."""
    catalogue, per_brick, per_standby = brick_part_counts(b, d.rack.rail_kit)
    n_parts = len(PARTS)
    brick_q, standby_q, price_v, power_v, weight_v = [0.0] * n_parts, [0.0] * n_parts, [0.0] * n_parts, [0.0] * n_parts, [0.0] * n_parts
    keys = []
    for k, (kind, part) in enumerate(zip(PART_KINDS, catalogue, strict=True)):
        if part is None or (per_brick[k] == 0 and per_standby[k] == 0):
            keys.append(None)
            continue
        price = d.prices.price(kind, part.slug)
        if price is None:
            unpriced.append((kind, part.slug))
        brick_q[k] = per_brick[k]
        standby_q[k] = per_standby[k]
        price_v[k] = price or 0.0
        power_v[k] = part.power_w
        weight_v[k] = getattr(part, "weight_kg", 0.0)
        keys.append((kind, part.slug, part.name))
    return (*brick_q, *standby_q, *price_v, *power_v, *weight_v), keys


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


def _fill_design(dv: dict, d: DesignInput) -> None:
    """One design's DESIGN_FIELDS into `dv`."""
    dv["request_kib"] = d.tuning.request_kib
    dv["paired"] = d.failover == "paired"
    dv["clients_gbps"] = client_limit_gbps(d) if d.clients else np.inf
    dv["client_nodes"] = d.clients.count if d.clients else 0
    fabric = np.inf
    if d.fabric is not None and d.fabric.core_gbps:
        fabric = d.fabric.core_gbps
    dv["fabric_gbps"] = fabric
    dv["rack_usable_units"] = d.rack.usable_units
    dv["rack_units"] = d.rack.units
    counted = d.metadata is not None and d.placement in ("in_rack", "separate_rack")
    dv["md_counted"] = counted
    dv["md_separate"] = counted and d.placement == "separate_rack"
    if counted:
        dv["md_reserved_units"] = d.metadata.height_u if d.placement == "in_rack" else 0
        dv["md_height"] = d.metadata.height_u
    prices = d.prices
    dv["support_per_server_year"] = prices.support_per_server_year
    dv["years"] = prices.service_years
    dv["energy_price"] = prices.energy_price_per_kwh
    dv["pue"] = prices.pue


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
    """Per-design totals (shape (N,)), per-line detail (N, G) and the stage table (S, 2, N, G).

    Arrays are views of the design-last arrays `evaluate_batch` computed (see the module
    docstring); figures that do not depend on the counts may be read-only broadcast views. The
    per-design figures of one call share one memory block (about 30 rows of N floats), which stays
    alive while any of them is referenced: a caller keeping a few figures of many large calls
    should keep copies (`np.array(res.total)`), not views."""

    usable_bytes: np.ndarray
    raw_bytes: np.ndarray
    osts: np.ndarray
    disks: np.ndarray
    servers: np.ndarray
    enclosures: np.ndarray
    read_gbps: np.ndarray
    write_gbps: np.ndarray
    system_limit: np.ndarray  # (2, N): 0 the bricks, 1 clients, 2 fabric
    degraded_gbps: np.ndarray  # (2, N) with one OSS server down
    standby: np.ndarray  # (N, G) standby servers added for HA pairing
    dpart_qty: np.ndarray  # (N, D) design-level parts
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
    count: np.ndarray = None  # (N, G) bricks per line, as given
    per_option: dict = field(default_factory=dict, repr=False)
    """Count-independent figures, design last, (..., 1 | K | N); read them through the properties."""
    rows: np.ndarray | None = None  # the batch's `rows`: design -> option column of `per_option`

    def _per_design(self, name: str, lines_last: bool = False) -> np.ndarray:
        """A `per_option` array for every design, design first (built once, then kept)."""
        cache = self.__dict__.setdefault("_per_design_cache", {})
        out = cache.get(name)
        if out is None:
            a, n = self.per_option[name], self.count.shape[0]
            if self.rows is not None and a.shape[-1] > 1:
                a = np.take(a, self.rows, axis=-1)
            elif a.shape[-1] != n:
                a = np.broadcast_to(a, a.shape[:-1] + (n,))
            out = cache[name] = a.swapaxes(-1, -2) if lines_last else a.T
        return out

    @property
    def stages(self) -> np.ndarray:
        """(S, 2, N, G) GB/s per brick, before software efficiency."""
        return self._per_design("stages", lines_last=True)

    @property
    def brick_gbps(self) -> np.ndarray:
        """(2, N, G) delivered per brick."""
        return self._per_design("brick_gbps", lines_last=True)

    @property
    def backend_gbps(self) -> np.ndarray:
        """(2, N, G) back end per brick after software efficiency."""
        return self._per_design("backend_gbps", lines_last=True)

    @property
    def limiting(self) -> np.ndarray:
        """(2, N, G) stage index limiting each brick."""
        return self._per_design("limiting", lines_last=True)

    @property
    def brick_power(self) -> np.ndarray:
        """(N, G) W per brick."""
        return self._per_design("brick_power")

    @property
    def brick_weight(self) -> np.ndarray:
        """(N, G) kg per brick."""
        return self._per_design("brick_weight")

    @property
    def standby_power(self) -> np.ndarray:
        """(N, G) W per standby server."""
        return self._per_design("standby_power")

    @property
    def standby_weight(self) -> np.ndarray:
        """(N, G) kg per standby server."""
        return self._per_design("standby_weight")

    @property
    def parts_per_brick(self) -> np.ndarray:
        """(N, G, P) the batch's parts["per_brick"]."""
        return self._per_design("per_brick")

    @property
    def parts_per_standby(self) -> np.ndarray:
        """(N, G, P) the batch's parts["per_standby"]."""
        return self._per_design("per_standby")

    @property
    def part_qty(self) -> np.ndarray:
        """(N, G, P) parts of every line: count x per brick + standby x per standby server. Built
        on first use (the bill of materials reads it; the totals never need it)."""
        qty = self.__dict__.get("_part_qty")
        if qty is None:
            qty = self.count[..., None] * self.parts_per_brick + self.standby[..., None] * self.parts_per_standby
            self.__dict__["_part_qty"] = qty
        return qty

    @property
    def bricks(self) -> np.ndarray:
        head = PARTS.index("head")
        return self.count * self.parts_per_brick[..., head] + self.standby * self.parts_per_standby[..., head]

    def bottleneck_names(self, rows=None) -> list[tuple[str, str]]:
        """Per design (or per design of `rows`), the stage limiting (read, write): `clients` or
        `fabric` when those cap the system, else the stage of the line that delivers the most."""
        pick = slice(None) if rows is None else np.asarray(rows, dtype=np.intp)
        contribution = self.brick_gbps[:, pick] * self.bricks[pick][None]
        top = np.argmax(contribution, axis=2)  # (2, rows)
        # the limiting stage of each op's top line (take_along_axis's Python wrapper costs more than indexing)
        idx = self.limiting[:, pick][np.arange(2)[:, None], np.arange(top.shape[1])[None, :], top].tolist()
        limits = self.system_limit[:, pick].tolist()
        names = []
        for i in range(top.shape[1]):
            pair = []
            for op in range(2):
                cap = limits[op][i]
                pair.append("clients" if cap == 1 else "fabric" if cap == 2 else STAGES[idx[op][i]])
            names.append(tuple(pair))
        return names


def _design_last(a) -> np.ndarray:
    """A design-first array (N, ...) as a C-contiguous design-last one (..., N): a free view for
    the Fortran-ordered arrays `BatchInput` builds. A design axis broadcast from one design
    (stride 0) is kept as a single column, so count-independent work is done once."""
    if not isinstance(a, np.ndarray):
        a = np.asarray(a)
    if not a.ndim or a.shape[0] == 1:
        return a.T  # one design (a batch of one): the layout does not matter
    if a.strides[0] == 0:
        a = a[:1]
    t = a.T
    return t if t.flags.c_contiguous else np.ascontiguousarray(t)


def _design_first(a, n: int) -> np.ndarray:
    """A design-last array (..., N or 1) back as design first (N, ...): a view, broadcast over
    the N designs when it was computed once for all of them."""
    if a.shape[-1] != n:
        a = np.broadcast_to(a, a.shape[:-1] + (n,))
    return a.T


def _expand_rows(batch: BatchInput) -> BatchInput:
    """A batch with `rows` as full per-design arrays (stored design last)."""
    rows = np.asarray(batch.rows)
    take = lambda v: np.take(np.asarray(v).T, rows, axis=-1).T  # noqa: E731
    groups = {k: (v if k == "count" else take(v)) for k, v in batch.groups.items()}
    return BatchInput(
        groups=groups,
        designs={k: take(v) for k, v in batch.designs.items()},
        parts={k: take(v) for k, v in batch.parts.items()},
        dparts={k: take(v) for k, v in batch.dparts.items()},
        keys=batch.keys,
    )


class _Block:
    """One allocation carved into arrays. Dozens of fresh megabyte temporaries each fault their
    pages in (several ns per element, more than the arithmetic); one block, large enough for
    numpy to back it with huge pages, is faulted in once. `take` falls back to a fresh array
    when the block is full."""

    SMALL = 16_384
    """Below this many elements separate small arrays are cheaper (numpy caches small allocations)."""

    def __init__(self, size: int, dtype=float):
        self.dtype = dtype
        self.buf = np.empty(size, dtype=dtype) if size >= self.SMALL else None
        self.used = 0

    def take(self, *shape) -> np.ndarray:
        if self.buf is None:
            return np.empty(shape, dtype=self.dtype)
        size = math.prod(shape)
        if self.used + size > self.buf.size:
            return np.empty(shape, dtype=self.dtype)
        out = self.buf[self.used : self.used + size].reshape(shape)
        self.used += size
        return out


def _row_sum(rows, weights, out, tmp, tmp_rows):
    """out = sum over the leading axis of rows x weights, (D, N) x (D, N or 1) -> (N,), adding the
    rows in order as a reduction over the leading axis does. For long rows, rows whose shared weight is 0 add
    exactly 0 and are skipped; short ones take two calls."""
    if rows.shape[-1] < 4096 or weights.shape[-1] != 1:
        np.add.reduce(np.multiply(rows, weights, out=tmp_rows), axis=0, out=out)
        return
    out.fill(0.0)
    for k in np.flatnonzero(weights[:, 0]):
        out += np.multiply(rows[k], weights[k], out=tmp)


def evaluate_batch(batch: BatchInput) -> BatchResult:
    """Evaluate N designs at once. Units: bytes, GB/s, W, kg, the price list's currency.

    Internally every array is design last: (G, N) per line, (P, G, N) per part, (D, N) per
    design part, (S, 2, G, N) for the stage table, where N is 1 for figures shared by every
    design (see the module docstring). The figures that scale with the counts are written with
    `out=` into two blocks: one for the results, one for scratch."""
    n = batch.size
    rows = batch.rows
    if rows is not None and (np.asarray(batch.groups["cc_bricks"]) > 0).any():
        batch = _expand_rows(batch)  # a measured client curve depends on the counts: no sharing
        rows = None
    b = {k: _design_last(v) for k, v in batch.groups.items()}
    d = {k: _design_last(v) for k, v in batch.designs.items()}
    parts = {k: _design_last(v) for k, v in batch.parts.items()}
    dparts = {k: _design_last(v) for k, v in batch.dparts.items()}
    count = b["count"]  # (G, N): the one figure that always varies
    if count.shape[-1] != n:
        count = np.broadcast_to(count, count.shape[:-1] + (n,)).copy()
    n_lines = count.shape[0]
    n_dparts = dparts["fixed"].shape[0]
    enclosures = 1.0 + b["expansions"]
    paired = d["paired"]

    # per brick, once per distinct option: OSTs, usable bytes, disks, power, weight, price
    osts_brick = capacity.osts_per_brick(enclosures, b["groups_per_enclosure"])
    brick_usable = osts_brick * capacity.usable_bytes_per_ost(
        b["raid_data"], b["raid_parity"], b["disk_bytes"], b["fs_overhead"], b["level_code"]
    )
    per_brick, per_standby = parts["per_brick"], parts["per_standby"]
    disks_brick = per_brick[PARTS.index("disk")]
    brick_bytes = disks_brick * b["disk_bytes"]
    brick_power = np.add.reduce(per_brick * parts["power"], axis=0)
    brick_weight = np.add.reduce(per_brick * parts["weight"], axis=0)
    brick_price = np.add.reduce(per_brick * parts["price"], axis=0)
    standby_power = np.add.reduce(per_standby * parts["power"], axis=0)
    standby_weight = np.add.reduce(per_standby * parts["weight"], axis=0)
    standby_price = np.add.reduce(per_standby * parts["price"], axis=0)
    server = PARTS.index("server")

    # the stage table, once per distinct option unless a measured client curve depends on the counts
    stages, survivor = throughput.stage_limits(b, request_kib=d["request_kib"], paired=paired, survivor=True)
    if (b["cc_bricks"] > 0).any():
        if stages.shape[-1] != n:
            stages = np.broadcast_to(stages, stages.shape[:-1] + (n,)).copy()
        throughput.measured_end_to_end(stages, b, clients_per_brick=d["client_nodes"] / np.maximum(np.add.reduce(count, axis=0), 1.0))
    eff = np.stack([b["eff_read"], b["eff_write"]])
    brick, limiting, back_eff = throughput.brick_delivery(stages, eff)  # (2, G, N or 1)
    net = stages[throughput.NETWORK]
    # one OSS of a pair down: what the pair loses (its partner delivers the survivor back end for both
    # bricks, through the network adapters of the servers left)
    left = throughput.servers_left(b["servers_per_brick"])
    pair = np.minimum(np.minimum(survivor * eff, left * net), 2.0 * stages[throughput.END_TO_END])
    pair_loss = np.maximum(2.0 * brick - pair, 0.0)
    per_option = dict(
        stages=stages,
        brick_gbps=brick,
        backend_gbps=back_eff,
        limiting=limiting,
        brick_power=brick_power,
        brick_weight=brick_weight,
        standby_power=standby_power,
        standby_weight=standby_weight,
        per_brick=per_brick,
        per_standby=per_standby,
    )
    # HA pairing per line: a design's `paired` pairs the lines whose storage a partner can reach, not
    # those that keep their disks inside their server (internal bays)
    line_paired = np.logical_and(paired, b["kind_code"] != KIND_INTERNAL)  # (G, N or 1)
    if rows is not None:  # options -> designs: gather what the count-dependent part reads

        def pick(a):
            if a.shape[-1] == 1 or (a == a[..., :1]).all():
                return a[..., :1]  # the same for every option: one column, broadcast
            return np.take(a, rows, axis=-1)

        brick, pair_loss, osts_brick, brick_usable, brick_bytes, disks_brick, enclosures, line_paired = map(
            pick, (brick, pair_loss, osts_brick, brick_usable, brick_bytes, disks_brick, enclosures, line_paired)
        )
        brick_power, brick_weight, brick_price, standby_power, standby_weight, standby_price = map(
            pick, (brick_power, brick_weight, brick_price, standby_power, standby_weight, standby_price)
        )
        b = {k: pick(b[k]) for k in ("brick_height", "standby_height")}
        d = {k: pick(v) for k, v in d.items() if k not in ("request_kib", "client_nodes")}
        dparts = {k: pick(v) for k, v in dparts.items()}
        per_brick, per_standby = pick(per_brick[server : server + 1])[0], pick(per_standby[server : server + 1])[0]
    else:
        per_brick, per_standby = per_brick[server], per_standby[server]
    all_paired, none_paired = bool(line_paired.all()), not line_paired.any()

    # per design: everything below scales with the counts, written into two blocks
    gn = (n_lines, n)
    res = _Block((22 + 5 * n_lines + n_dparts) * n)  # sized to what is taken below and in pack_racks
    work = _Block((6 * n_lines + 9 + n_dparts) * n)
    flags = _Block((2 * n_lines + 4) * n, dtype=bool)
    t2g = work.take(2, *gn)
    tg, tg2 = work.take(*gn), work.take(*gn)
    tn, tn2 = work.take(n), work.take(n)
    t2n = work.take(2, n)
    tdn = work.take(n_dparts, n)
    fg = flags.take(*gn)

    def per_line_total(per_brick_figure, out):
        np.multiply(count, per_brick_figure, out=tg)
        return np.add.reduce(tg, axis=0, out=out)

    # throughput of the system: the bricks, capped by the clients and the fabric
    np.multiply(brick, count, out=t2g)
    bricks_sum = np.add.reduce(t2g, axis=1, out=work.take(2, n))  # (2, N)
    clients, fabric = d["clients_gbps"], d["fabric_gbps"]
    cap = np.minimum(clients, fabric)
    system = np.minimum(bricks_sum, clients, out=res.take(2, n))
    np.minimum(system, fabric, out=system)
    system_limit = res.take(2, n).view(np.int64)  # 0 the bricks, 1 clients, 2 fabric
    f2 = flags.take(2, n)
    np.less(fabric, bricks_sum, out=f2)
    np.multiply(f2, 2, out=system_limit)
    np.minimum(bricks_sum, fabric, out=t2n)
    np.less(clients, t2n, out=f2)
    np.copyto(system_limit, 1, where=f2)

    # one OSS server down: on a paired line its HA partner serves both bricks (the survivor back end,
    # through the network adapters of the servers left); on an unpaired line the brick is lost
    loss = t2g
    loss.fill(0.0)
    if not none_paired:
        np.greater_equal(count, 2, out=fg)
        if not all_paired:
            np.logical_and(fg, line_paired, out=fg)
        np.copyto(loss, pair_loss, where=fg)
    if not all_paired:
        np.greater(count, 0, out=fg)
        if not none_paired:
            np.logical_and(fg, ~line_paired, out=fg)
        np.copyto(loss, brick, where=fg)
    degraded = res.take(2, n)
    np.subtract(bricks_sum, np.maximum.reduce(loss, axis=1, out=t2n), out=degraded)
    np.maximum(degraded, 0.0, out=degraded)
    np.minimum(degraded, cap, out=degraded)

    # standby servers: one per odd line under HA pairing (count / 2 has a fractional part of 1/2)
    standby = res.take(*gn)
    np.multiply(count, 0.5, out=tg)
    np.subtract(tg, np.floor(tg, out=tg2), out=tg)
    np.equal(tg, 0.5, out=fg)
    if none_paired:
        standby.fill(0.0)
    else:
        if not all_paired:
            np.logical_and(fg, line_paired, out=fg)
        np.copyto(standby, fg)

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
        block=res,
        work=work,
        flags=flags,
    )
    racks = pack["racks"]
    units_used = res.take(n)
    np.multiply(count, b["brick_height"], out=tg)
    tg += np.multiply(standby, b["standby_height"], out=tg2)
    np.add.reduce(tg, axis=0, out=units_used)
    units_used += np.multiply(racks, d["rack_units"] - d["rack_usable_units"], out=tn)
    units_used += d["md_counted"] * d["md_height"]
    free_units = res.take(n)
    np.multiply(racks, d["rack_units"], out=free_units)
    free_units -= units_used
    np.maximum(free_units, 0.0, out=free_units)
    dpart_qty = res.take(n_dparts, n)  # fixed + racks x per rack + ceil(free units x per free unit)
    np.multiply(racks, dparts["per_rack"], out=dpart_qty)
    np.add(dparts["fixed"], dpart_qty, out=dpart_qty)
    per_free = dparts["per_free_unit"]
    for k in range(n_dparts):
        if per_free.shape[-1] == 1 and per_free[k, 0] == 0.0:
            continue  # ceil(0) adds nothing
        np.ceil(np.multiply(free_units, per_free[k], out=tn), out=tn)
        dpart_qty[k] += tn

    # power, weight and price: per-brick figures x counts, plus every design part once
    def total(per_brick_figure, per_standby_figure, design_figure):
        out = res.take(n)
        np.multiply(count, per_brick_figure, out=tg)
        np.add(tg, np.multiply(standby, per_standby_figure, out=tg2), out=tg)
        np.add.reduce(tg, axis=0, out=out)
        _row_sum(dpart_qty, design_figure, tn2, tn, tdn)
        out += tn2
        return out

    power = total(brick_power, standby_power, dparts["power"])
    weight = total(brick_weight, standby_weight, dparts["weight"])
    hardware = total(brick_price, standby_price, dparts["price"])
    all_servers = total(per_brick, per_standby, dparts["server"])
    # (in the order the figures were always multiplied: the rounded cents stay the same)
    support = np.multiply(all_servers, d["support_per_server_year"], out=res.take(n))
    support *= d["years"]
    capex = np.add(hardware, support, out=res.take(n))
    opex = np.divide(power, 1000.0, out=res.take(n))
    for factor in (HOURS_PER_YEAR, d["years"], d["pue"], d["energy_price"]):
        opex *= factor
    grand_total = np.add(capex, opex, out=res.take(n))

    first = lambda a: _design_first(a, n)  # noqa: E731
    return BatchResult(
        usable_bytes=per_line_total(brick_usable, res.take(n)),
        raw_bytes=per_line_total(brick_bytes, res.take(n)),
        osts=per_line_total(osts_brick, res.take(n)),
        disks=per_line_total(disks_brick, res.take(n)),
        servers=all_servers,
        enclosures=per_line_total(enclosures, res.take(n)),
        read_gbps=system[0],
        write_gbps=system[1],
        system_limit=system_limit,
        degraded_gbps=degraded,
        standby=standby.T,
        dpart_qty=dpart_qty.T,
        pack={k: first(v) if isinstance(v, np.ndarray) and v.ndim == 2 else v for k, v in pack.items()},
        hardware=hardware,
        support=support,
        capex=capex,
        opex=opex,
        total=grand_total,
        power_w=power,
        weight_kg=weight,
        rack_count=racks,
        racks_fit=pack["fits"],
        units_used=units_used,
        free_units=free_units,
        count=count.T,
        per_option=per_option,
        rows=rows,
    )
