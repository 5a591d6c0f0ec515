"""The vectorised core: N designs of up to G brick groups each, evaluated as arrays in one call.

`BatchInput` holds group arrays of shape (N, G) (padding groups have count 0) and design arrays
of shape (N,). `BatchInput.from_designs` builds one from `DesignInput`s; a solver can build the
arrays directly. `evaluate_batch` returns totals per design; `planner.engine.evaluate` adds the
per-design detail (rack layout, bill of materials, stage tables) for a single design.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from . import capacity, throughput
from .inputs import BACKEND_STAGES, STAGES, DesignInput
from .layout import brick_weight_kg, rack_count_batch
from .units import HOURS_PER_YEAR

GROUP_FIELDS = (
    "count",
    "servers_per_brick",
    "hba_count",
    "hba_gbps",
    "net_count",
    "net_gbps",
    "controllers",
    "ctrl_read_mbps",
    "ctrl_write_mbps",
    "ctrl_requests_per_s",
    "head_uplink_port_gbps",
    "host_ports",
    "expansions",
    "exp_link_gbps",
    "disk_bytes",
    "disk_read_mbps",
    "disk_write_mbps",
    "raid_data",
    "raid_parity",
    "mirrored",
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
    "brick_height",
    "server_height",
    "brick_weight",
    "server_power",
    "server_weight",
    "head_power",
    "exp_power",
    "disk_power",
    "head_weight",
    "exp_weight",
    "disk_weight",
    "price_server",
    "price_hba",
    "price_net",
    "price_head",
    "price_exp",
    "price_disk",
)
DESIGN_FIELDS = (
    "request_kib",
    "read_eff",
    "write_eff",
    "paired",
    "clients_gbps",
    "rack_usable_units",
    "rack_units",
    "rack_kit_price",
    "rack_kit_power",
    "rack_kit_weight",
    "md_reserved_units",
    "md_height",
    "md_separate",
    "md_counted",
    "md_price",
    "md_power",
    "md_weight",
    "md_servers",
    "support_per_server_year",
    "years",
    "energy_price",
    "pue",
)


@dataclass
class BatchInput:
    """Arrays for N designs: `groups[name]` has shape (N, G), `designs[name]` shape (N,)."""

    groups: dict
    designs: dict

    @property
    def size(self) -> int:
        return int(self.groups["count"].shape[0])

    @classmethod
    def from_designs(cls, designs: list[DesignInput]) -> "BatchInput":
        """Pack design inputs into arrays, padding to the largest number of brick groups."""
        n = len(designs)
        g = max(1, max(len(d.bricks) for d in designs))
        groups = {name: np.zeros((n, g)) for name in GROUP_FIELDS}
        groups["mirrored"] = np.zeros((n, g), dtype=bool)
        groups["raid_data"] = np.ones((n, g))
        groups["segment_kib"] = np.ones((n, g))
        groups["brick_height"] = np.ones((n, g))
        dv = {name: np.zeros(n) for name in DESIGN_FIELDS}
        dv["paired"] = np.zeros(n, dtype=bool)
        dv["md_separate"] = np.zeros(n, dtype=bool)
        dv["md_counted"] = np.zeros(n, dtype=bool)
        for i, d in enumerate(designs):
            prices = d.prices
            for j, b in enumerate(d.bricks):
                row = groups
                row["count"][i, j] = b.count
                row["servers_per_brick"][i, j] = b.servers_per_brick
                row["hba_count"][i, j] = b.hba_count if b.hba else 0
                row["hba_gbps"][i, j] = b.hba.effective_gbps if b.hba else 0.0
                row["net_count"][i, j] = b.network_count
                row["net_gbps"][i, j] = b.network.effective_gbps
                row["controllers"][i, j] = b.head.controllers
                row["ctrl_read_mbps"][i, j] = b.head.controller_read_mbps
                row["ctrl_write_mbps"][i, j] = b.head.controller_write_mbps
                row["ctrl_requests_per_s"][i, j] = b.head.controller_requests_per_s
                row["head_uplink_port_gbps"][i, j] = b.head.uplink_port_gbps
                row["host_ports"][i, j] = b.host_ports
                row["expansions"][i, j] = b.expansions if b.expansion else 0
                row["exp_link_gbps"][i, j] = (b.expansion.uplink_ports * b.expansion.uplink_port_gbps) if b.expansion else 0.0
                row["disk_bytes"][i, j] = b.disk.capacity_bytes
                row["disk_read_mbps"][i, j] = b.disk.read_mbps
                row["disk_write_mbps"][i, j] = b.disk.write_mbps
                row["raid_data"][i, j] = b.raid_data_disks
                row["raid_parity"][i, j] = b.raid_parity_disks
                row["mirrored"][i, j] = b.raid_level == "raid10"
                row["segment_kib"][i, j] = b.segment_kib
                row["groups_per_enclosure"][i, j] = b.groups_per_enclosure
                row["spares_per_enclosure"][i, j] = b.spares_per_enclosure
                row["fs_overhead"][i, j] = b.fs_overhead_fraction
                row["sw_raid_read_mbps"][i, j] = b.software_raid_read_mbps or 0.0
                row["sw_raid_write_mbps"][i, j] = b.software_raid_write_mbps or 0.0
                row["measured_read_gbps"][i, j] = b.measured_backend_read_gbps or 0.0
                row["measured_write_gbps"][i, j] = b.measured_backend_write_gbps or 0.0
                row["eff_read"][i, j] = b.efficiency_read if b.efficiency_read is not None else d.tuning.software_read_efficiency
                row["eff_write"][i, j] = b.efficiency_write if b.efficiency_write is not None else d.tuning.software_write_efficiency
                row["brick_height"][i, j] = b.height_u
                row["server_height"][i, j] = b.server.height_u
                row["brick_weight"][i, j] = brick_weight_kg(b)
                adapters_w = b.hba_count * (b.hba.power_w if b.hba else 0.0) + b.network_count * b.network.power_w
                row["server_power"][i, j] = b.server.power_w + adapters_w
                row["server_weight"][i, j] = b.server.weight_kg
                row["head_power"][i, j] = b.head.power_w
                row["exp_power"][i, j] = b.expansion.power_w if b.expansion else 0.0
                row["disk_power"][i, j] = b.disk.power_w
                row["head_weight"][i, j] = b.head.weight_kg
                row["exp_weight"][i, j] = b.expansion.weight_kg if b.expansion else 0.0
                row["disk_weight"][i, j] = b.disk.weight_kg
                row["price_server"][i, j] = prices.price("server", b.server.slug) or 0.0
                row["price_hba"][i, j] = (prices.price("adapter", b.hba.slug) or 0.0) if b.hba else 0.0
                row["price_net"][i, j] = prices.price("adapter", b.network.slug) or 0.0
                row["price_head"][i, j] = prices.price("enclosure", b.head.slug) or 0.0
                row["price_exp"][i, j] = (prices.price("enclosure", b.expansion.slug) or 0.0) if b.expansion else 0.0
                row["price_disk"][i, j] = prices.price("disk", b.disk.slug) or 0.0
            dv["request_kib"][i] = d.tuning.request_kib
            dv["read_eff"][i] = d.tuning.software_read_efficiency
            dv["write_eff"][i] = d.tuning.software_write_efficiency
            dv["paired"][i] = d.failover == "paired"
            dv["clients_gbps"][i] = d.clients.gbps if d.clients else np.inf
            dv["rack_usable_units"][i] = d.rack.usable_units
            dv["rack_units"][i] = d.rack.units
            dv["rack_kit_price"][i] = (prices.price("rack", d.rack.slug) or 0.0) + sum(
                (prices.price("switch", part.slug) or 0.0) * count for part, count in d.rack.switches
            )
            dv["rack_kit_power"][i] = sum(part.power_w * count for part, count in d.rack.switches)
            dv["rack_kit_weight"][i] = d.rack.weight_kg + sum(part.weight_kg * count for part, count in d.rack.switches)
            counted = d.metadata is not None and d.placement in ("in_rack", "separate_rack")
            dv["md_counted"][i] = counted
            dv["md_separate"][i] = counted and d.placement == "separate_rack"
            if counted:
                md = d.metadata
                dv["md_reserved_units"][i] = md.height_u if d.placement == "in_rack" else 0
                dv["md_height"][i] = md.height_u
                dv["md_price"][i] = sum((prices.price(line.kind, line.part.slug) or 0.0) * line.count for line in md.lines)
                dv["md_power"][i] = md.power_w
                dv["md_weight"][i] = md.weight_kg
                dv["md_servers"][i] = md.servers
            dv["support_per_server_year"][i] = prices.support_per_server_year
            dv["years"][i] = prices.service_years
            dv["energy_price"][i] = prices.energy_price_per_kwh
            dv["pue"][i] = prices.pue
        return cls(groups=groups, designs=dv)


@dataclass
class BatchResult:
    """Per-design totals (shape (N,)) and per-group detail (shape (N, G, ...))."""

    usable_bytes: np.ndarray
    raw_bytes: np.ndarray
    osts: np.ndarray
    disks: np.ndarray
    servers: np.ndarray
    enclosures: np.ndarray
    read_gbps: np.ndarray
    write_gbps: np.ndarray
    clients_limited: np.ndarray  # (N, 2) bool: the clients cap binds (read, write)
    stages: np.ndarray  # (N, G, S, 2) GB/s per brick, before software efficiency
    brick_gbps: np.ndarray  # (N, G, 2) delivered per brick
    limiting: np.ndarray  # (N, G, 2) stage index limiting each brick
    degraded_gbps: np.ndarray  # (N, 2) with one OSS server down
    standby: np.ndarray  # (N, G) standby servers added for HA pairing
    quantities: dict  # per group (N, G): servers, hbas, nets, heads, exps, disks
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

    def bottleneck_index(self) -> np.ndarray:
        """(N, 2) index of the stage limiting the system (into STAGES), -1 for `clients`.

        With mixed brick kinds, the stage of the group that delivers the most throughput.
        """
        contribution = self.brick_gbps * self.quantities["bricks"][..., None]
        top_group = np.argmax(contribution, axis=1)  # (N, 2)
        rows = np.arange(top_group.shape[0])[:, None]
        ops = np.arange(2)[None, :]
        idx = self.limiting[rows, top_group, ops]
        return np.where(self.clients_limited, -1, idx)

    def bottleneck_names(self) -> list[tuple[str, str]]:
        idx = self.bottleneck_index()
        name = lambda k: "clients" if k < 0 else STAGES[k]  # noqa: E731
        return [(name(r), name(w)) for r, w in idx]


def evaluate_batch(batch: BatchInput) -> BatchResult:
    """Evaluate N designs at once. Units: bytes, GB/s, W, kg, the price list's currency."""
    b = batch.groups
    d = batch.designs
    count = b["count"]
    enclosures = 1.0 + b["expansions"]
    paired = d["paired"][:, None]

    # capacity
    osts_brick = capacity.osts_per_brick(enclosures, b["groups_per_enclosure"])
    disks_brick = capacity.disks_per_brick(
        enclosures, b["groups_per_enclosure"], b["raid_data"], b["raid_parity"], b["spares_per_enclosure"]
    )
    ost_bytes = capacity.usable_bytes_per_ost(b["raid_data"], b["disk_bytes"], b["fs_overhead"])
    usable = np.sum(count * osts_brick * ost_bytes, axis=1)
    raw = np.sum(count * disks_brick * b["disk_bytes"], axis=1)

    # throughput
    stages = throughput.stage_limits(b, request_kib=d["request_kib"][:, None], paired=paired)
    brick, limiting = throughput.brick_delivery(stages, b["eff_read"], b["eff_write"])
    bricks_sum = np.sum(brick * count[..., None], axis=1)  # (N, 2)
    clients = d["clients_gbps"][:, None]
    system = np.minimum(bricks_sum, clients)
    clients_limited = clients < bricks_sum

    # one OSS server down: its partner serves both bricks through one server and network adapter
    backend = np.min(stages[..., :BACKEND_STAGES, :], axis=-2)
    front = np.min(stages[..., BACKEND_STAGES:, :], axis=-2)
    eff = np.stack([b["eff_read"], b["eff_write"]], axis=-1)
    pair_degraded = np.minimum(2.0 * backend, front) * eff
    loss_paired = np.where(count[..., None] >= 2, 2.0 * brick - pair_degraded, 0.0)
    loss = np.where(paired[..., None], loss_paired, np.where(count[..., None] > 0, brick, 0.0))
    degraded = np.minimum(np.maximum(bricks_sum - np.max(loss, axis=1), 0.0), clients)

    # parts
    standby = np.where(paired & (np.mod(count, 2) == 1), 1.0, 0.0)
    servers = count * b["servers_per_brick"] + standby
    quantities = {
        "bricks": count,
        "servers": servers,
        "hbas": servers * b["hba_count"],
        "nets": servers * b["net_count"],
        "heads": count,
        "exps": count * b["expansions"],
        "disks": count * disks_brick,
    }

    # rack fit
    order = np.argsort(-b["brick_weight"], axis=1, kind="stable")
    racks, fits = rack_count_batch(
        heights=b["brick_height"],
        counts=count,
        order=order,
        standby=standby,
        standby_height=b["server_height"],
        usable_units=d["rack_usable_units"],
        first_rack_reserved=d["md_reserved_units"],
        separate_metadata=d["md_separate"],
    )
    md = d["md_counted"].astype(float)
    switch_units = d["rack_units"] - d["rack_usable_units"]
    units_used = np.sum(count * b["brick_height"] + standby * b["server_height"], axis=1) + racks * switch_units + md * d["md_height"]

    # power and weight: every part of every brick, plus the racks' switch kits and the metadata cell
    def parts_total(per: str) -> np.ndarray:
        bricks = (
            servers * b[f"server_{per}"]
            + quantities["heads"] * b[f"head_{per}"]
            + quantities["exps"] * b[f"exp_{per}"]
            + quantities["disks"] * b[f"disk_{per}"]
        )
        return np.sum(bricks, axis=1) + racks * d[f"rack_kit_{per}"] + md * d[f"md_{per}"]

    power = parts_total("power")
    weight = parts_total("weight")

    # price
    hardware = (
        np.sum(
            servers * b["price_server"]
            + quantities["hbas"] * b["price_hba"]
            + quantities["nets"] * b["price_net"]
            + quantities["heads"] * b["price_head"]
            + quantities["exps"] * b["price_exp"]
            + quantities["disks"] * b["price_disk"],
            axis=1,
        )
        + racks * d["rack_kit_price"]
        + md * d["md_price"]
    )
    all_servers = np.sum(servers, axis=1) + md * d["md_servers"]
    support = all_servers * d["support_per_server_year"] * d["years"]
    capex = hardware + support
    opex = power / 1000.0 * HOURS_PER_YEAR * d["years"] * d["pue"] * d["energy_price"]

    return BatchResult(
        usable_bytes=usable,
        raw_bytes=raw,
        osts=np.sum(count * osts_brick, axis=1),
        disks=np.sum(quantities["disks"], axis=1),
        servers=all_servers,
        enclosures=np.sum(count * enclosures, axis=1),
        read_gbps=system[:, 0],
        write_gbps=system[:, 1],
        clients_limited=clients_limited,
        stages=stages,
        brick_gbps=brick,
        limiting=limiting,
        degraded_gbps=degraded,
        standby=standby,
        quantities=quantities,
        hardware=hardware,
        support=support,
        capex=capex,
        opex=opex,
        total=capex + opex,
        power_w=power,
        weight_kg=weight,
        rack_count=racks,
        racks_fit=fits,
        units_used=units_used,
    )
