"""Rack fit: packing bricks (and the metadata cell) into racks.

One rule, computed once for every design of a batch (`pack_racks`): brick lines are taken
heaviest brick first; bricks go into the current rack while they fit (next fit), a new rack is
opened when one does not; a standby server (HA pairing of an odd line) follows its line's bricks.
With metadata `in_rack` the first rack keeps room for the metadata cell; with `separate_rack` the
cell has a rack of its own, counted. The rack model's switches sit at the top of every rack.

`rack_layouts` reads one design's packing from those arrays and gives every device its U
position (stacked from U1 upwards, heaviest block first), power and weight.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from .inputs import DesignInput


def pack_racks(*, heights, counts, weights, standby, standby_height, usable_units, first_rack_reserved, separate_metadata) -> dict:
    """Racks needed per design, and how each line is spread over them (vectorised over designs).

    heights, counts, weights, standby, standby_height: (N, G); usable_units, first_rack_reserved,
    separate_metadata: (N,). Returns arrays: `racks` (N,), `fits` (N,) False where an item is
    taller than a rack, `order` (N, G) lines heaviest first, and per position in that order
    (N, G): `fit_now` bricks into the rack open when the line starts, `new` racks opened for the
    line, `per_rack` bricks in each full new rack, `last` in the last one, `standby_new` whether
    the standby server opened a rack of its own.
    """
    heights = np.asarray(heights, dtype=float)
    counts = np.asarray(counts, dtype=float)
    n_designs, n_groups = heights.shape
    order = np.argsort(-np.asarray(weights, dtype=float), axis=1, kind="stable")
    cap = np.asarray(usable_units, dtype=float)
    free = cap - np.asarray(first_rack_reserved, dtype=float)
    racks = np.ones(n_designs)
    fits = free >= 0
    rows = np.arange(n_designs)
    out = {name: np.zeros((n_designs, n_groups)) for name in ("fit_now", "new", "per_rack", "last")}
    out["standby_new"] = np.zeros((n_designs, n_groups), dtype=bool)
    for j in range(n_groups):
        g = order[:, j]
        h = heights[rows, g]
        c = counts[rows, g]
        fits &= ~((c > 0) & (h > cap))
        h_safe = np.where(h > 0, h, 1.0)
        per_rack = np.maximum(np.floor(cap / h_safe), 1.0)
        fit_now = np.minimum(c, np.floor(np.maximum(free, 0) / h_safe))
        remaining = c - fit_now
        new = np.ceil(remaining / per_rack)
        last = remaining - np.maximum(new - 1, 0) * per_rack
        free = np.where(new > 0, cap - last * h, free - fit_now * h)
        racks = racks + new
        s = np.asarray(standby, dtype=float)[rows, g] > 0
        sh = np.asarray(standby_height, dtype=float)[rows, g]
        need_new = s & (free < sh)
        racks = racks + need_new
        free = np.where(need_new, cap - sh, np.where(s, free - sh, free))
        out["fit_now"][:, j], out["new"][:, j], out["per_rack"][:, j], out["last"][:, j] = fit_now, new, per_rack, last
        out["standby_new"][:, j] = need_new
    out.update(racks=racks + np.asarray(separate_metadata, dtype=float), fits=fits, order=order)
    return out


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
    def weight(self) -> float:
        return sum(dev[5] for dev in self.devices)


def _unit(parts: dict, row: int, j: int, k: int, figure: str) -> float:
    return float(parts[figure][row, j, k])


def _brick_devices(design: DesignInput, parts: dict, row: int, j: int) -> list[tuple]:
    """The devices of one brick of line j with their power and weight, from the batch's per-part
    figures; labels hold `{n}` for the brick's number."""
    group = design.bricks[j]
    per_enclosure = group.raid.disks
    disk_w = _unit(parts, row, j, 5, "power") * per_enclosure
    disk_kg = _unit(parts, row, j, 5, "weight") * per_enclosure
    adapters_w = (
        _unit(parts, row, j, 1, "power") * parts["per_standby"][row, j, 1]
        + _unit(parts, row, j, 2, "power") * parts["per_standby"][row, j, 2]
    )
    adapters_kg = (
        _unit(parts, row, j, 1, "weight") * parts["per_standby"][row, j, 1]
        + _unit(parts, row, j, 2, "weight") * parts["per_standby"][row, j, 2]
    )
    head_w, head_kg = _unit(parts, row, j, 3, "power") + disk_w, _unit(parts, row, j, 3, "weight") + disk_kg
    devices = []
    internal = group.head.height_u == 0  # the server's own bays: disks draw power inside the server
    if not internal:
        devices.append((group.head.height_u, group.head.slug, "enclosure", f"{group.head.name} #{{n}}", head_w, head_kg))
    if group.expansion is not None:
        exp_w, exp_kg = _unit(parts, row, j, 4, "power") + disk_w, _unit(parts, row, j, 4, "weight") + disk_kg
        kind = "enclosure" if group.head.is_san else "expansion"
        for e in range(group.expansions):
            devices.append((group.expansion.height_u, group.expansion.slug, kind, f"{group.expansion.name} #{{n}}.{e + 1}", exp_w, exp_kg))
    server_w = _unit(parts, row, j, 0, "power") + adapters_w + (head_w if internal else 0.0)
    server_kg = _unit(parts, row, j, 0, "weight") + adapters_kg + (head_kg if internal else 0.0)
    for s in range(group.servers_per_brick):
        suffix = chr(97 + s) if group.servers_per_brick > 1 else ""
        devices.append((group.server.height_u, group.server.slug, "server", f"{group.server.name} OSS #{{n}}{suffix}", server_w, server_kg))
    return devices


def _metadata_block(design: DesignInput) -> _Block | None:
    if design.metadata is None or design.placement not in ("in_rack", "separate_rack"):
        return None
    md = design.metadata
    lines = md.all_lines()
    devices = [
        (
            line.part.height_u,
            line.part.slug,
            line.kind,
            f"{line.part.name} ({line.role})" + (f" {i + 1}" if line.count > 1 else ""),
            line.part.power_w,
            line.part.weight_kg,
        )
        for line in lines
        if line.kind in ("server", "enclosure", "switch")
        for i in range(line.count)
    ]
    # parts without height (disks, adapters) add their power and weight to the cell's first device
    loose_w = sum(line.part.power_w * line.count for line in lines if line.kind not in ("server", "enclosure", "switch"))
    loose_kg = sum(line.part.weight_kg * line.count for line in lines if line.kind not in ("server", "enclosure", "switch"))
    if devices:
        h, slug, kind, label, pw, kg = devices[0]
        devices[0] = (h, slug, kind, label, pw + loose_w, kg + loose_kg)
    return _Block(label=md.name, group="metadata", devices=devices)


def rack_layouts(design: DesignInput, batch, result, row: int = 0) -> list[RackLayout]:
    """The detailed rack layout of design `row` of a batch: U positions, labels, power and weight,
    following the packing the batch computed (`result.pack`)."""
    rack = design.rack
    pack = result.pack
    racks: list[list[_Block]] = [[]]
    metadata_block = _metadata_block(design)
    if metadata_block is not None and design.placement == "in_rack":
        racks[0].append(metadata_block)
    numbers, counter = {}, 1
    for j, group in enumerate(design.bricks):
        numbers[j] = counter
        counter += group.count
    parts = batch.parts
    for pos, j in enumerate(pack["order"][row].tolist()):
        if j >= len(design.bricks):
            continue
        group = design.bricks[j]
        devices = _brick_devices(design, parts, row, j)
        blocks = [
            _Block(
                label=f"{group.name} #{numbers[j] + k}",
                group=group.template,
                devices=[(h, slug, kind, label.replace("{n}", str(numbers[j] + k)), w, kg) for h, slug, kind, label, w, kg in devices],
            )
            for k in range(group.count)
        ]
        fit_now = int(pack["fit_now"][row, pos])
        new = int(pack["new"][row, pos])
        per_rack = int(pack["per_rack"][row, pos])
        racks[-1].extend(blocks[:fit_now])
        taken = fit_now
        for _ in range(new):
            racks.append(blocks[taken : taken + per_rack])
            taken += per_rack
        if result.standby[row, j] > 0:
            server_w = float(result.standby_power[row, j])
            server_kg = float(result.standby_weight[row, j])
            standby = _Block(
                label=f"{group.name} standby OSS",
                group=group.template,
                devices=[
                    (
                        group.server.height_u,
                        group.server.slug,
                        "server",
                        f"{group.server.name} standby OSS ({group.name})",
                        server_w,
                        server_kg,
                    )
                ],
            )
            if pack["standby_new"][row, pos]:
                racks.append([])
            racks[-1].append(standby)
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
