"""Engine inputs: plain frozen dataclasses, built from the catalogue by `planner.services`.

Units: capacity in bytes; disk and controller rates in MB/s (10^6 B/s); link and adapter
payloads in GB/s (10^9 B/s); power in W; weight in kg; heights in rack units; money in the
price list's currency.

A brick is composed from parts: OSS server(s), storage-side adapters (SAS HBAs, or iSCSI/FC
ports towards a SAN), network adapters towards the clients, a head (RAID head, JBOD, SAN array
or the server's own bays), expansion enclosures (or further SAN members), disks and a RAID
layout. What kind of storage the head is decides the physics (see `throughput.py`).
"""

from __future__ import annotations

from dataclasses import dataclass, field

STAGES: tuple[str, ...] = (
    "disks",
    "expansion_link",
    "raid_controller",
    "host_links",
    "server",
    "measured_backend",
    "network",
    "measured_end_to_end",
)
"""Stages a brick's data passes, in the order reported. `clients` and `fabric` are system-level.
`measured_end_to_end` is a calibration's IOR curve over client nodes, at the design's clients per brick."""
STAGE_LABELS: dict[str, str] = {
    "disks": "Disks",
    "expansion_link": "Expansion link",
    "raid_controller": "RAID controllers",
    "host_links": "Host links",
    "server": "Server (HBAs)",
    "measured_backend": "Measured back end",
    "network": "Network adapter",
    "measured_end_to_end": "Measured end to end",
    "clients": "Clients",
    "fabric": "Fabric",
}
"""Each stage in words, for pages and sheets; `stage_label` names the RAID stage by what does the RAID."""


def stage_label(stage: str, head_kind: str | None = None, controllers: int | None = None) -> str:
    """A stage in words for a brick whose storage head is of `head_kind` with `controllers` RAID controllers:
    the RAID stage of a JBOD is the servers' software RAID (ZFS raidz, md), of a SAN array its controllers,
    of a server's own bays its RAID controller."""
    if stage == "raid_controller":
        if controllers == 0:
            return "Software RAID (servers)"
        if head_kind in ("iscsi_array", "fc_array"):
            return "Array controllers"
        if head_kind == "internal":
            return "Server's RAID controller"
    return STAGE_LABELS.get(stage, stage)


BACKEND_STAGES = 6
"""disks .. measured_backend: the back end behind one OSS, what obdfilter-survey measures; the
Lustre software efficiency applies to these. `network` carries its protocol's goodput already."""

FAILOVER_MODES = ("paired", "none")
PLACEMENTS = ("in_rack", "separate_rack", "none")
RAID_LEVELS = ("raid5", "raid6", "raid10", "raidz1", "raidz2", "raidz3")
ZFS_LEVELS = ("raidz1", "raidz2", "raidz3")
RAID_PARITY = {"raid5": 1, "raid6": 2, "raidz1": 1, "raidz2": 2, "raidz3": 3}
"""Parity disks per group for each parity level; RAID 10 mirrors every data disk (parity = data)."""

SAN_KINDS = ("iscsi_array", "fc_array")
"""Storage reached through switches: every port stays in use under failover; members scale."""
SHARED_KINDS = ("raid_head", "jbod")
"""Storage cabled directly to an HA pair of servers: each server's ports are split between the two."""

PARTS: tuple[str, ...] = (
    "server",
    "hba",
    "network",
    "head",
    "expansion",
    "disk",
    "storage_cable",
    "network_cable",
    "expansion_cable",
    "array_cable",
    "rail_kit",
)
"""Per-brick parts, the last axis of the batch's per-part arrays (design x line x part)."""
PART_KINDS = ("server", "adapter", "adapter", "enclosure", "enclosure", "disk") + ("accessory",) * 5
"""Price-list kind of each entry of PARTS."""
BTU_PER_H_PER_W = 3.412
"""1 W of electrical power becomes 3.412 BTU/h of heat (1 BTU = 1055.06 J)."""


@dataclass(frozen=True)
class PartParams:
    """A rack-mounted or installed part: server, switch, or anything with height/power/weight."""

    slug: str
    name: str
    kind: str
    height_u: int = 0
    power_w: float = 0.0
    weight_kg: float = 0.0


@dataclass(frozen=True)
class ServerParams:
    """An OSS (or metadata) server: height, PCIe slots for adapters, own drive bays."""

    slug: str
    name: str
    height_u: int
    power_w: float
    weight_kg: float
    pcie_slots: int = 6
    internal_bays: int = 0


@dataclass(frozen=True)
class DiskParams:
    """A disk model: decimal capacity in bytes, sustained sequential rates in MB/s.

    `read_mbps`/`write_mbps` are the data sheet's maximum (outer zone); `inner_mbps` the inner
    zone's read rate (None: no zones, as on an SSD). A streaming file system that fills the whole
    surface sees the byte-weighted average, see `sustained_factor`.
    """

    slug: str
    name: str
    capacity_bytes: float
    read_mbps: float
    write_mbps: float
    power_w: float
    weight_kg: float
    inner_mbps: float | None = None
    form_factor: str = "3.5"
    interface: str = "nl-sas"
    afr_percent: float = 0.0
    """Annualised failure rate, % (data sheet); 0: unknown (`reliability` then assumes its default)."""
    ure_per_bit: float = 0.0
    """Unrecoverable read errors per bit read (data sheet: 1e-14, 1e-15, 1e-16); 0: unknown."""

    @property
    def sustained_factor(self) -> float:
        """Average over the surface / outer-zone rate.

        With zoned recording the rate grows linearly with the radius and so does the number of
        bytes per track: streaming every byte once takes total bytes / ((outer + inner) / 2), so
        the surface-averaged rate is the mean of the outer and inner rates.
        """
        if not self.inner_mbps or self.inner_mbps >= self.read_mbps:
            return 1.0
        return (self.read_mbps + self.inner_mbps) / 2.0 / self.read_mbps


@dataclass(frozen=True)
class AdapterParams:
    """An adapter: ports used, payload per port (GB/s, protocol goodput), its slot's PCIe payload."""

    slug: str
    name: str
    kind: str
    effective_gbps: float
    power_w: float = 0.0
    ports: int = 1
    port_gbps: float = 0.0
    """Payload of one port in GB/s (line code and protocol removed); 0: effective / ports."""
    line_gbps: float = 0.0
    """A port's nominal rate in Gb/s (100 for 100 GbE), for counting switch ports; 0: unknown."""
    cable: PartParams | None = None
    """The cable each port used takes (None: not counted)."""

    @property
    def per_port_gbps(self) -> float:
        return self.port_gbps if self.port_gbps > 0 else self.effective_gbps / max(self.ports, 1)


@dataclass(frozen=True)
class EnclosureParams:
    """A head, expansion, JBOD, SAN array or internal bays.

    `uplink_port_gbps` is the payload of one uplink port in GB/s; controller figures are MB/s for
    all controllers together; `controller_requests_per_s` is their large-request service rate;
    `cache_merge` the share of partial-stripe writes of a sequential stream that the write-back
    cache coalesces into full stripes; `max_request_kib` the largest request the controllers (or
    the SAN protocol) take in one piece (0: no limit).
    """

    slug: str
    name: str
    kind: str
    height_u: int
    drive_slots: int
    controllers: int
    controller_read_mbps: float
    controller_write_mbps: float
    controller_requests_per_s: float
    uplink_ports: int
    uplink_port_gbps: float
    max_expansions: int
    power_w: float
    weight_kg: float
    drive_form_factor: str = "3.5"
    cache_merge: float = 0.0
    max_request_kib: int = 0
    cable: PartParams | None = None
    """The cable each uplink port takes (expansion links, SAN array ports)."""

    @property
    def is_san(self) -> bool:
        return self.kind in SAN_KINDS

    @property
    def is_internal(self) -> bool:
        return self.kind == "internal"


@dataclass(frozen=True)
class RaidLayout:
    """Per enclosure: `groups` RAID groups of `data` + `parity` disks, plus `spares`.

    RAID 10 has parity = data (mirrors). Each group is one Lustre OST (a ZFS OST is one raidz
    vdev here)."""

    level: str
    data: int
    parity: int
    groups: int
    spares: int = 0
    segment_kib: int = 128
    declustered: bool = False
    """Declustered parity (dRAID, GPFS/Spectrum Scale RAID, dynamic disk pools): the enclosure's
    groups and spares form one pool, stripes spread over all its disks, so a rebuild reads and
    writes on every disk of the pool (see `reliability.py`)."""

    @property
    def group_disks(self) -> int:
        return self.data + self.parity

    @property
    def disks(self) -> int:
        return self.groups * self.group_disks + self.spares

    @property
    def zfs(self) -> bool:
        return self.level in ZFS_LEVELS

    @property
    def mirrored(self) -> bool:
        return self.level == "raid10"


@dataclass(frozen=True)
class BrickGroup:
    """`count` identical bricks of one template, with the spec's overrides already applied.

    `hba` is the storage-side adapter (SAS HBA, or an Ethernet/FC adapter towards a SAN), with
    `storage_ports` of its ports cabled per server; `network` the adapter towards the clients,
    `network_count` of them per server."""

    template: str
    name: str
    role: str
    count: int
    server: ServerParams
    servers_per_brick: int
    hba: AdapterParams | None
    hba_count: int
    network: AdapterParams
    network_count: int
    head: EnclosureParams
    expansion: EnclosureParams | None
    expansions: int
    disk: DiskParams
    raid: RaidLayout
    storage_ports: int
    fs_overhead_fraction: float
    software_raid_read_mbps: float = 0.0
    software_raid_write_mbps: float = 0.0
    measured_backend_read_gbps: float | None = None
    """Back end of one brick measured by obdfilter-survey (a calibration), GB/s; None: not measured."""
    measured_backend_write_gbps: float | None = None
    efficiency_read: float | None = None
    """Lustre efficiency (IOR over obdfilter-survey) measured for this brick; None: the tuning profile's."""
    efficiency_write: float | None = None
    client_curves: dict = field(default_factory=dict, compare=False, hash=False)
    """A calibration's IOR fits over client nodes: {"read"|"write": {"lam", "sigma", "kappa", "peak_gbps", "bricks"}};
    with the design's clients they give each brick's end-to-end figure at that many clients."""
    sources: dict = field(default_factory=dict, compare=False, hash=False)
    """Where each brick figure came from, e.g. {"raid_controller": "catalogue: md3460 ..."}."""

    @property
    def enclosures(self) -> int:
        """Enclosures holding disks: the head and its expansions (or further SAN members)."""
        return 1 + self.expansions

    @property
    def osts(self) -> int:
        return self.enclosures * self.raid.groups

    @property
    def disks(self) -> int:
        return self.enclosures * self.raid.disks

    @property
    def height_u(self) -> int:
        exp_h = self.expansion.height_u * self.expansions if self.expansion else 0
        return self.servers_per_brick * self.server.height_u + self.head.height_u + exp_h


@dataclass(frozen=True)
class TuningParams:
    """An I/O tuning profile: the Lustre RPC size, the block layer's limits on one request, and
    Lustre's software efficiency (IOR over obdfilter-survey).

    The request reaching the RAID controllers is the RPC split by the smallest limit on its way:
    `max_sectors_kb` and the HBA driver's scatter-gather entries x 4 KiB pages, and (in the brick)
    the controller's or SAN protocol's own largest request."""

    slug: str
    name: str
    rpc_kib: int
    software_read_efficiency: float
    software_write_efficiency: float
    max_sectors_kib: int = 0
    sg_entries: int = 0
    rpcs_in_flight: int = 8

    @property
    def request_kib(self) -> int:
        """The request at the block device, before the brick's own limits (KiB)."""
        limits = [self.rpc_kib]
        if self.max_sectors_kib:
            limits.append(self.max_sectors_kib)
        if self.sg_entries:
            limits.append(self.sg_entries * 4)
        return min(limits)


@dataclass(frozen=True)
class PduParams:
    """A power distribution unit: the part, its continuous capacity (W) and how it is fed."""

    part: PartParams
    capacity_w: float
    phases: int
    inlet: str


@dataclass(frozen=True)
class RackParams:
    """A rack model with the switches it carries at the top, its PDUs, uplinks to the core, and the
    rail kits and blanking panels that complete it."""

    slug: str
    name: str
    units: int
    power_budget_w: float
    max_load_kg: float
    weight_kg: float
    switches: tuple[tuple[PartParams, int], ...] = ()
    pdu: PduParams | None = None
    pdus: int = 0
    uplink_cable: PartParams | None = None
    uplinks: int = 0
    blanking_panel: PartParams | None = None
    rail_kit: PartParams | None = None
    data_switches: tuple[tuple[str, int, float], ...] = ()
    """The data switches' ports, as (adapter kind they take, ports, Gb/s a port) per switch model
    ("ib_hca" for InfiniBand, "eth_nic" for Ethernet of 10 GbE and faster); the management switch is
    not one of them."""
    uplink_kind: str = ""
    """The adapter kind whose switch takes the uplinks to the core ("ib_hca" or "eth_nic")."""

    @property
    def switch_units(self) -> int:
        return sum(part.height_u * count for part, count in self.switches)

    @property
    def usable_units(self) -> int:
        return self.units - self.switch_units


@dataclass(frozen=True)
class MetadataLine:
    """One part of a metadata cell: kind (server, enclosure, disk, adapter, switch), part, count, role."""

    kind: str
    part: PartParams
    count: int
    role: str


@dataclass(frozen=True)
class MdtStorage:
    """The metadata targets: `disks` of `disk` in `raid` groups, formatted as `mdts` MDTs with one
    inode per `bytes_per_inode` bytes, in enclosures of `enclosure` (as many as the disks need)."""

    disk: DiskParams
    disks: int
    raid: RaidLayout
    mdts: int
    bytes_per_inode: int
    enclosure: PartParams | None
    enclosure_slots: int
    fs_overhead_fraction: float = 0.0


@dataclass(frozen=True)
class MetadataParams:
    """A metadata cell (MDS pair, MGS, metadata storage, management server)."""

    slug: str
    name: str
    lines: tuple[MetadataLine, ...]
    mdt: MdtStorage | None = None

    def all_lines(self) -> tuple[MetadataLine, ...]:
        """The cell's parts with the MDT storage's enclosures and disks added."""
        extra = []
        if self.mdt is not None:
            if self.mdt.enclosure is not None:
                extra.append(MetadataLine("enclosure", self.mdt.enclosure, self.mdt_enclosures, "MDT storage"))
            d = self.mdt.disk
            extra.append(MetadataLine("disk", PartParams(d.slug, d.name, "disk", 0, d.power_w, d.weight_kg), self.mdt.disks, "MDT disks"))
        return tuple(self.lines) + tuple(extra)

    @property
    def mdt_enclosures(self) -> int:
        if self.mdt is None or self.mdt.enclosure is None:
            return 0
        return -(-self.mdt.disks // max(self.mdt.enclosure_slots, 1))

    @property
    def height_u(self) -> int:
        return sum(line.part.height_u * line.count for line in self.all_lines() if line.kind in ("server", "enclosure", "switch"))

    @property
    def power_w(self) -> float:
        return sum(line.part.power_w * line.count for line in self.all_lines())

    @property
    def weight_kg(self) -> float:
        return sum(line.part.weight_kg * line.count for line in self.all_lines())

    @property
    def servers(self) -> int:
        return sum(line.count for line in self.lines if line.kind == "server")


@dataclass(frozen=True)
class ClientParams:
    """Compute clients reading and writing: how many, each one's adapter, and Lustre's per-client
    limit: RPCs in flight per OSC x RPC size x OSCs a client keeps busy / the RPC round trip."""

    count: int
    adapter: AdapterParams
    rpc_round_trip_ms: float = 0.0
    """Time one bulk RPC takes from send to reply (0: not modelled, only the link counts)."""
    streams: int = 1
    """OSCs (OSTs) one client keeps busy at once, e.g. one per process writing its own file."""

    @property
    def gbps(self) -> float:
        return self.count * self.adapter.effective_gbps


@dataclass(frozen=True)
class FabricParams:
    """The network between clients and servers: edge switches with `oversubscription` (edge
    downlinks : uplinks to the core) and, optionally, the core's bisection `core_gbps`."""

    oversubscription: float = 1.0
    core_gbps: float | None = None


@dataclass(frozen=True)
class PriceParams:
    """A price list: unit prices keyed by (kind, slug), per-server support per year, energy."""

    slug: str
    name: str
    currency: str
    illustrative: bool
    effective_date: str
    service_years: int
    energy_price_per_kwh: float
    pue: float
    unit_prices: dict = field(default_factory=dict, compare=False, hash=False)
    support_per_server_year: float = 0.0

    def price(self, kind: str, slug: str) -> float | None:
        return self.unit_prices.get((kind, slug))


@dataclass(frozen=True)
class DesignInput:
    """Everything the engine needs to evaluate one design."""

    name: str
    bricks: tuple[BrickGroup, ...]
    rack: RackParams
    tuning: TuningParams
    failover: str
    placement: str
    metadata: MetadataParams | None
    clients: ClientParams | None
    prices: PriceParams
    fabric: FabricParams | None = None
    calibration: dict | None = field(default=None, compare=False, hash=False)
    """Which figures came from a site's calibration (id, name, template, sources); None without one."""
    notes: tuple[str, ...] = field(default=(), compare=False, hash=False)
    """Warnings found while resolving the design that the figures do not change for (shown with the
    Evaluation's own warnings), e.g. adapters faster than the rack's leaf switch."""

    def paired(self, group: "BrickGroup") -> bool:
        """Whether a line's servers are in HA pairs: under `paired` every line whose storage a partner
        can reach; a line of internal bays never (`batch.evaluate_batch` applies the same rule)."""
        return self.failover == "paired" and not group.head.is_internal
