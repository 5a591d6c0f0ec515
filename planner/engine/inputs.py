"""Engine inputs: plain frozen dataclasses, built from the catalogue by `planner.services`.

Units: capacity in bytes; disk and controller rates in MB/s (10^6 B/s); link and adapter
payloads in GB/s (10^9 B/s); power in W; weight in kg; heights in rack units; money in the
price list's currency.
"""

from __future__ import annotations

from dataclasses import dataclass, field

STAGES: tuple[str, ...] = ("disks", "expansion_link", "raid_controller", "host_links", "measured_backend", "server", "network")
BACKEND_STAGES = 5  # disks .. measured_backend: what obdfilter-survey measures behind one OSS
"""Stages a brick's data passes, in the order reported. `clients` is a system-level stage."""

FAILOVER_MODES = ("paired", "none")
PLACEMENTS = ("in_rack", "separate_rack", "none")


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
class DiskParams:
    """A disk model: decimal capacity in bytes, sustained sequential rates in MB/s."""

    slug: str
    name: str
    capacity_bytes: float
    read_mbps: float
    write_mbps: float
    power_w: float
    weight_kg: float


@dataclass(frozen=True)
class AdapterParams:
    """An adapter with its effective payload bandwidth (GB/s), already capped by its PCIe slot."""

    slug: str
    name: str
    kind: str
    effective_gbps: float
    power_w: float = 0.0


@dataclass(frozen=True)
class EnclosureParams:
    """A head, expansion, JBOD, iSCSI array or internal bays.

    `uplink_port_gbps` is the payload of one uplink port in GB/s; controller figures are MB/s for
    all controllers together; `controller_requests_per_s` is their large-request service rate.
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


@dataclass(frozen=True)
class BrickGroup:
    """`count` identical bricks of one template, with the spec's overrides already applied."""

    template: str
    name: str
    role: str
    count: int
    server: PartParams
    servers_per_brick: int
    hba: AdapterParams | None
    hba_count: int
    network: AdapterParams
    network_count: int
    head: EnclosureParams
    expansion: EnclosureParams | None
    expansions: int
    disk: DiskParams
    raid_level: str
    raid_data_disks: int
    raid_parity_disks: int
    segment_kib: int
    groups_per_enclosure: int
    spares_per_enclosure: int
    host_ports: int
    fs_overhead_fraction: float
    software_raid_read_mbps: float = 0.0
    software_raid_write_mbps: float = 0.0
    measured_backend_read_gbps: float | None = None
    """Back end of one brick measured by obdfilter-survey (a calibration), GB/s; None: not measured."""
    measured_backend_write_gbps: float | None = None
    efficiency_read: float | None = None
    """Lustre efficiency (IOR over obdfilter-survey) measured for this brick; None: the tuning profile's."""
    efficiency_write: float | None = None
    sources: dict = field(default_factory=dict, compare=False, hash=False)
    """Where each brick figure came from, e.g. {"raid_controller": "catalogue: md3460 ..."}."""

    @property
    def enclosures(self) -> int:
        return 1 + self.expansions

    @property
    def height_u(self) -> int:
        exp_h = self.expansion.height_u * self.expansions if self.expansion else 0
        return self.servers_per_brick * self.server.height_u + self.head.height_u + exp_h


@dataclass(frozen=True)
class TuningParams:
    """An I/O tuning profile: request size at the controllers and Lustre's efficiency."""

    slug: str
    name: str
    request_kib: int
    software_read_efficiency: float
    software_write_efficiency: float


@dataclass(frozen=True)
class RackParams:
    """A rack model with the switches it carries at the top."""

    slug: str
    name: str
    units: int
    power_budget_w: float
    max_load_kg: float
    weight_kg: float
    switches: tuple[tuple[PartParams, int], ...] = ()

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
class MetadataParams:
    """A metadata cell (MDS pair, MGS, metadata storage, management server)."""

    slug: str
    name: str
    lines: tuple[MetadataLine, ...]

    @property
    def height_u(self) -> int:
        return sum(line.part.height_u * line.count for line in self.lines if line.kind in ("server", "enclosure", "switch"))

    @property
    def power_w(self) -> float:
        return sum(line.part.power_w * line.count for line in self.lines)

    @property
    def weight_kg(self) -> float:
        return sum(line.part.weight_kg * line.count for line in self.lines)

    @property
    def servers(self) -> int:
        return sum(line.count for line in self.lines if line.kind == "server")


@dataclass(frozen=True)
class ClientParams:
    """Compute clients reading and writing: how many, and the adapter each has."""

    count: int
    adapter: AdapterParams

    @property
    def gbps(self) -> float:
        return self.count * self.adapter.effective_gbps


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
    calibration: dict | None = field(default=None, compare=False, hash=False)
    """Which figures came from a site's calibration (id, name, template, sources); None without one."""
