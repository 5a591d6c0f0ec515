"""Rack fit: packing bricks (and the metadata cell) into racks.

Rule, the same in the vectorised count and the detailed layout: brick groups are taken heaviest
brick first; bricks go into the current rack while they fit (next fit), a new rack is opened
when one does not; a standby server (HA pairing of an odd group) follows its group's bricks.
With metadata `in_rack` the first rack keeps room for the metadata cell; with `separate_rack`
the cell has a rack of its own, counted. The rack model's switches sit at the top of every rack.
Within a rack, devices are stacked from U1 upwards, heaviest item first.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from .inputs import DesignInput


def rack_count_batch(*, heights, counts, order, standby, standby_height, usable_units, first_rack_reserved, separate_metadata):
    """Racks needed per design (vectorised over designs).

    heights, counts, standby, standby_height: (N, G); order: (N, G) group indices heaviest first;
    usable_units, first_rack_reserved, separate_metadata: (N,). Returns (racks (N,), fits (N,)),
    `fits` False where some item is taller than a rack.
    """
    heights = np.asarray(heights, dtype=float)
    n_designs, n_groups = heights.shape
    cap = np.asarray(usable_units, dtype=float)
    free = cap - np.asarray(first_rack_reserved, dtype=float)
    racks = np.ones(n_designs)
    fits = free >= 0
    rows = np.arange(n_designs)
    for j in range(n_groups):
        g = order[:, j]
        h = heights[rows, g]
        c = np.asarray(counts, dtype=float)[rows, g]
        active = c > 0
        too_tall = active & (h > cap)
        fits &= ~too_tall
        h_safe = np.where(h > 0, h, 1.0)
        per_rack = np.maximum(np.floor(cap / h_safe), 1.0)
        fit_now = np.minimum(c, np.floor(np.maximum(free, 0) / h_safe))
        remaining = c - fit_now
        new = np.ceil(remaining / per_rack)
        last = remaining - (new - 1) * per_rack
        free = np.where(new > 0, cap - last * h, free - fit_now * h)
        racks = racks + new
        s = np.asarray(standby, dtype=float)[rows, g] > 0
        sh = np.asarray(standby_height, dtype=float)[rows, g]
        need_new = s & (free < sh)
        racks = racks + need_new
        free = np.where(need_new, cap - sh, np.where(s, free - sh, free))
    racks = racks + np.asarray(separate_metadata, dtype=float)
    return racks, fits


@dataclass
class RackItem:
    """A device in a rack: its lowest U (1-based), height, catalogue slug, label and brick group."""

    u: int
    height: int
    item: str
    kind: str
    label: str
    group: str
    power_w: float
    weight_kg: float

    def as_dict(self) -> dict:
        return {
            "u": self.u,
            "height": self.height,
            "item": self.item,
            "kind": self.kind,
            "label": self.label,
            "group": self.group,
            "power_w": round(self.power_w, 1),
            "weight_kg": round(self.weight_kg, 1),
        }


@dataclass
class RackLayout:
    """One rack of a design: its devices, units used, power and weight."""

    index: int
    rack: str
    units_total: int
    items: list[RackItem] = field(default_factory=list)
    weight_empty_kg: float = 0.0

    @property
    def units_used(self) -> int:
        return sum(item.height for item in self.items)

    @property
    def power_w(self) -> float:
        return sum(item.power_w for item in self.items)

    @property
    def weight_kg(self) -> float:
        return self.weight_empty_kg + sum(item.weight_kg for item in self.items)


@dataclass
class _Block:
    """A unit of packing: devices that stay together (a brick, a standby server, the metadata cell)."""

    label: str
    group: str
    devices: list[tuple[int, str, str, str, float, float]]  # (height, slug, kind, label, power, weight)

    @property
    def height(self) -> int:
        return sum(d[0] for d in self.devices)

    @property
    def weight(self) -> float:
        return sum(d[5] for d in self.devices)


def _brick_blocks(design: DesignInput, group_index: int, first_number: int) -> list[_Block]:
    group = design.bricks[group_index]
    blocks = []
    disks_per_enclosure = group.groups_per_enclosure * (group.raid_data_disks + group.raid_parity_disks) + group.spares_per_enclosure
    disk_w = group.disk.power_w * disks_per_enclosure
    disk_kg = group.disk.weight_kg * disks_per_enclosure
    server_w = (
        group.server.power_w + group.hba_count * (group.hba.power_w if group.hba else 0) + group.network_count * group.network.power_w
    )
    for k in range(group.count):
        number = first_number + k
        devices = []
        if group.expansion is not None:
            for e in range(group.expansions):
                devices.append(
                    (
                        group.expansion.height_u,
                        group.expansion.slug,
                        "expansion",
                        f"{group.expansion.name} #{number}.{e + 1}",
                        group.expansion.power_w + disk_w,
                        group.expansion.weight_kg + disk_kg,
                    )
                )
        internal = group.head.height_u == 0  # the server's own bays: disks draw power inside the server
        if not internal:
            devices.insert(
                0,
                (
                    group.head.height_u,
                    group.head.slug,
                    "enclosure",
                    f"{group.head.name} #{number}",
                    group.head.power_w + disk_w,
                    group.head.weight_kg + disk_kg,
                ),
            )
        extra_w = group.head.power_w + disk_w if internal else 0.0
        extra_kg = group.head.weight_kg + disk_kg if internal else 0.0
        for s in range(group.servers_per_brick):
            devices.append(
                (
                    group.server.height_u,
                    group.server.slug,
                    "server",
                    f"{group.server.name} OSS #{number}" + (f"{chr(97 + s)}" if group.servers_per_brick > 1 else ""),
                    server_w + extra_w,
                    group.server.weight_kg + extra_kg,
                )
            )
        blocks.append(_Block(label=f"{group.name} #{number}", group=group.template, devices=devices))
    return blocks


def standby_needed(design: DesignInput) -> list[bool]:
    """Per brick group: does HA pairing need a standby server (an odd number of bricks)?"""
    return [design.failover == "paired" and group.count % 2 == 1 for group in design.bricks]


def brick_order(design: DesignInput) -> list[int]:
    """Group indices, heaviest brick first (stable for ties)."""
    weights = [brick_weight_kg(g) for g in design.bricks]
    return sorted(range(len(design.bricks)), key=lambda i: -weights[i])


def brick_weight_kg(group) -> float:
    """Weight of one brick with its disks, kg."""
    disks = group.enclosures * (group.groups_per_enclosure * (group.raid_data_disks + group.raid_parity_disks) + group.spares_per_enclosure)
    exp_kg = group.expansion.weight_kg * group.expansions if group.expansion else 0.0
    return group.servers_per_brick * group.server.weight_kg + group.head.weight_kg + exp_kg + disks * group.disk.weight_kg


def layout_design(design: DesignInput) -> list[RackLayout]:
    """The detailed rack layout of one design: U positions, labels, power and weight per rack."""
    rack = design.rack
    cap = rack.usable_units
    metadata_block = None
    if design.metadata is not None and design.placement in ("in_rack", "separate_rack"):
        md = design.metadata
        devices = [
            (
                line.part.height_u,
                line.part.slug,
                line.kind,
                f"{line.part.name} ({line.role})" + (f" {i + 1}" if line.count > 1 else ""),
                line.part.power_w,
                line.part.weight_kg,
            )
            for line in md.lines
            if line.kind in ("server", "enclosure", "switch")
            for i in range(line.count)
        ]
        # parts without height (disks, adapters) add their power and weight to the cell's first device
        loose_w = sum(line.part.power_w * line.count for line in md.lines if line.kind not in ("server", "enclosure", "switch"))
        loose_kg = sum(line.part.weight_kg * line.count for line in md.lines if line.kind not in ("server", "enclosure", "switch"))
        if devices:
            h, slug, kind, label, pw, kg = devices[0]
            devices[0] = (h, slug, kind, label, pw + loose_w, kg + loose_kg)
        metadata_block = _Block(label=md.name, group="metadata", devices=devices)

    standby = standby_needed(design)
    racks: list[list[_Block]] = [[]]
    free = cap
    if metadata_block is not None and design.placement == "in_rack":
        racks[0].append(metadata_block)
        free -= metadata_block.height
    numbers = {}
    counter = 1
    for i, group in enumerate(design.bricks):
        numbers[i] = counter
        counter += group.count
    for i in brick_order(design):
        group = design.bricks[i]
        blocks = _brick_blocks(design, i, numbers[i])
        if standby[i]:
            server_w = (
                group.server.power_w
                + group.hba_count * (group.hba.power_w if group.hba else 0)
                + group.network_count * group.network.power_w
            )
            blocks.append(
                _Block(
                    label=f"{group.name} standby OSS",
                    group=group.template,
                    devices=[
                        (
                            group.server.height_u,
                            group.server.slug,
                            "server",
                            f"{group.server.name} standby OSS ({group.name})",
                            server_w,
                            group.server.weight_kg,
                        )
                    ],
                )
            )
        for block in blocks:
            if block.height > free and racks[-1]:
                racks.append([])
                free = cap
            racks[-1].append(block)
            free -= block.height
    if metadata_block is not None and design.placement == "separate_rack":
        racks.append([metadata_block])

    layouts = []
    for index, blocks in enumerate(racks, start=1):
        layout = RackLayout(index=index, rack=rack.slug, units_total=rack.units, weight_empty_kg=rack.weight_kg)
        u = 1
        for block in sorted(blocks, key=lambda b: -b.weight):
            for height, slug, kind, label, power, weight in block.devices:
                layout.items.append(
                    RackItem(u=u, height=height, item=slug, kind=kind, label=label, group=block.group, power_w=power, weight_kg=weight)
                )
                u += height
        top = rack.units + 1
        for part, count in rack.switches:
            for k in range(count):
                top -= part.height_u
                layout.items.append(
                    RackItem(
                        u=top,
                        height=part.height_u,
                        item=part.slug,
                        kind="switch",
                        label=f"{part.name}" + (f" {k + 1}" if count > 1 else ""),
                        group="switches",
                        power_w=part.power_w,
                        weight_kg=part.weight_kg,
                    )
                )
        layouts.append(layout)
    return layouts
