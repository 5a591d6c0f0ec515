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

from .inputs import BTU_PER_H_PER_W, PARTS, DesignInput


def pack_racks(
    *,
    heights,
    counts,
    weights,
    standby,
    standby_height,
    usable_units,
    first_rack_reserved,
    separate_metadata,
    block=None,
    work=None,
    flags=None,
) -> dict:
    """Racks needed per design, and how each line is spread over them (vectorised over designs).

    Arrays are design last (see `batch`): heights, counts, weights, standby, standby_height (G, N);
    usable_units, first_rack_reserved, separate_metadata (N,). Any of them but the counts and the
    standby servers may have a single design column shared by all (N = 1): the order lines are
    packed in is then found once. Returns arrays: `racks` (N,), `fits` (N,) False where an item is
    taller than a rack, `order` (G, N) lines heaviest first, and per position in that order (G, N):
    `fit_now` bricks into the rack open when the line starts, `new` racks opened for the line,
    `per_rack` bricks in each full new rack, `last` in the last one, `standby_new` whether the
    standby server opened a rack of its own. `block`, `work` and `flags` (`batch._Block`s) give the
    memory for the results, the scratch arrays and the boolean ones.
    """
    from .batch import _Block

    counts = np.asarray(counts, dtype=float)
    standby = np.asarray(standby, dtype=float)
    heights = np.asarray(heights, dtype=float)
    standby_height = np.asarray(standby_height, dtype=float)
    n_groups, n_designs = counts.shape
    block = block if block is not None else _Block((5 * n_groups + 1) * n_designs)
    work = work if work is not None else _Block(4 * n_designs)
    flags = flags if flags is not None else _Block((n_groups + 3) * n_designs, dtype=bool)
    order = np.argsort(-np.asarray(weights, dtype=float), axis=0, kind="stable")
    shared_order = order.shape[1] == 1
    cols = np.arange(n_designs)

    def line(a, j):
        """Row j of the packing order: a row view when every design shares the order."""
        if a.shape[1] == 1 or shared_order:
            return a[order[j, 0]] if shared_order else a[order[j], 0]
        return a[order[j], cols]

    cap = np.asarray(usable_units, dtype=float)
    free = work.take(n_designs)
    free[...] = cap - np.asarray(first_rack_reserved, dtype=float)
    racks = block.take(n_designs)
    racks.fill(1.0)
    fits = flags.take(n_designs)
    np.greater_equal(free, 0, out=fits)
    out = {name: block.take(n_groups, n_designs) for name in ("fit_now", "new", "per_rack", "last")}
    out["standby_new"] = flags.take(n_groups, n_designs)
    tmp, tmp2 = work.take(n_designs), work.take(n_designs)
    flag = flags.take(n_designs)
    for j in range(n_groups):
        h = line(heights, j)
        c = line(counts, j)
        too_tall = h > cap
        if too_tall.any():
            fits &= ~((c > 0) & too_tall)
        h_safe = np.where(h > 0, h, 1.0)
        per_rack = np.maximum(np.floor(cap / h_safe), 1.0)
        fit_now, new, last = out["fit_now"][j], out["new"][j], out["last"][j]
        out["per_rack"][j] = per_rack
        # bricks into the open rack: min(c, floor(max(free, 0) / h))
        np.maximum(free, 0, out=tmp)
        np.divide(tmp, h_safe, out=tmp)
        np.minimum(c, np.floor(tmp, out=tmp), out=fit_now)
        remaining = np.subtract(c, fit_now, out=tmp2)
        np.ceil(np.divide(remaining, per_rack, out=new), out=new)
        # in the last new rack: remaining - max(new - 1, 0) x per_rack
        np.subtract(new, 1, out=last)
        np.maximum(last, 0, out=last)
        np.multiply(last, per_rack, out=last)
        np.subtract(remaining, last, out=last)
        # free units: a new rack's after its last bricks, else the open rack's after fit_now
        np.subtract(cap, np.multiply(last, h, out=tmp), out=tmp)
        free -= np.multiply(fit_now, h, out=tmp2)
        np.copyto(free, tmp, where=np.greater(new, 0, out=flag))
        racks += new
        s = line(standby, j) > 0
        sh = line(standby_height, j)
        need_new = out["standby_new"][j]
        np.logical_and(s, np.less(free, sh, out=need_new), out=need_new)
        racks += need_new
        np.copyto(free, np.subtract(free, sh, out=tmp), where=s)
        np.copyto(free, cap - sh, where=need_new)
    racks += np.asarray(separate_metadata, dtype=float)
    out.update(racks=racks, fits=fits, order=order)
    return out


@dataclass(slots=True)
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
    role: str = "oss"
    """What it is, for colours and legends: oss, mds, mgs, management, raid_head, expansion, jbod,
    san_array, internal, switch, pdu, metadata."""
    pair: str | None = None
    """Shared by the devices of two bricks that form an HA pair (and a standby server), e.g. "HA 3"."""
    face: str = "front"
    """front for rack-mounted devices; rear for 0U PDUs at the back."""

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
            "role": self.role,
            "pair": self.pair,
            "face": self.face,
        }


@dataclass
class RackLayout:
    """One rack of a design: its devices, units used, power and weight."""

    index: int
    rack: str
    units_total: int
    items: list[RackItem] = field(default_factory=list)
    weight_empty_kg: float = 0.0
    """The cabinet, its uplink cables and the blanking panels over its free units."""
    blanking_units: int = 0

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
    devices: list[tuple[int, str, str, str, float, float, str]]  # (height, slug, kind, label, power, weight, role)
    pair: str | None = None

    @property
    def weight(self) -> float:
        return sum(dev[5] for dev in self.devices)


_PART_INDEX = {part: k for k, part in enumerate(PARTS)}


HEAD_ROLES = {"raid_head": "raid_head", "jbod": "jbod", "iscsi_array": "san_array", "fc_array": "san_array", "internal": "internal"}


def _brick_devices(design: DesignInput, parts: dict, row: int, j: int) -> list[tuple]:
    """The devices of one brick of line j with their power and weight, from the batch's per-part
    figures (a device carries its rail kit, a server its adapters and their cables); labels hold
    `{n}` for the brick's number. Tuples: (height, slug, kind, label, W, kg, role)."""
    group = design.bricks[j]
    figures = {name: parts[name][row, j].tolist() for name in ("power", "weight", "per_brick")}  # Python floats, by part
    u = lambda part, figure: figures[figure][_PART_INDEX[part]]  # noqa: E731
    per_enclosure = group.raid.disks
    rail_kg = u("rail_kit", "weight")
    disk_w, disk_kg = u("disk", "power") * per_enclosure, u("disk", "weight") * per_enclosure
    adapters = ("hba", "network", "storage_cable", "network_cable")
    spb = max(group.servers_per_brick, 1)  # one server's share of the brick's adapters and cables
    server_parts_w = sum(u(p, "power") * u(p, "per_brick") / spb for p in adapters)
    server_parts_kg = sum(u(p, "weight") * u(p, "per_brick") / spb for p in adapters)
    array_cable_kg = u("array_cable", "weight") * group.head.uplink_ports if group.head.is_san else 0.0
    head_w, head_kg = u("head", "power") + disk_w, u("head", "weight") + disk_kg
    devices = []
    internal = group.head.height_u == 0  # the server's own bays: disks draw power inside the server
    if not internal:
        devices.append(
            (
                group.head.height_u,
                group.head.slug,
                "enclosure",
                f"{group.head.name} #{{n}}",
                head_w,
                head_kg + rail_kg + array_cable_kg,
                HEAD_ROLES.get(group.head.kind, "raid_head"),
            )
        )
    if group.expansion is not None:
        exp_cable_kg = 0.0 if group.head.is_san else u("expansion_cable", "weight") * group.expansion.uplink_ports
        exp_w = u("expansion", "power") + disk_w
        exp_kg = u("expansion", "weight") + disk_kg + rail_kg + exp_cable_kg + array_cable_kg
        kind, role = ("enclosure", "san_array") if group.head.is_san else ("expansion", "expansion")
        for e in range(group.expansions):
            devices.append(
                (group.expansion.height_u, group.expansion.slug, kind, f"{group.expansion.name} #{{n}}.{e + 1}", exp_w, exp_kg, role)
            )
    server_w = u("server", "power") + server_parts_w + (head_w if internal else 0.0)
    server_kg = u("server", "weight") + server_parts_kg + rail_kg + (head_kg if internal else 0.0)
    for s in range(group.servers_per_brick):
        suffix = chr(97 + s) if group.servers_per_brick > 1 else ""
        devices.append(
            (group.server.height_u, group.server.slug, "server", f"{group.server.name} OSS #{{n}}{suffix}", server_w, server_kg, "oss")
        )
    return devices


METADATA_ROLES = {"mds": "mds", "mgs": "mgs", "management": "management"}


def _metadata_block(design: DesignInput) -> _Block | None:
    if design.metadata is None or design.placement not in ("in_rack", "separate_rack"):
        return None
    md = design.metadata
    lines = md.all_lines()
    rail_kg = design.rack.rail_kit.weight_kg if design.rack.rail_kit is not None else 0.0
    mounted = ("server", "enclosure", "switch")
    devices = [
        (
            line.part.height_u,
            line.part.slug,
            line.kind,
            f"{line.part.name} ({line.role})" + (f" {i + 1}" if line.count > 1 else ""),
            line.part.power_w,
            line.part.weight_kg + (rail_kg if line.kind in ("server", "enclosure") and line.part.height_u > 0 else 0.0),
            METADATA_ROLES.get(line.role.lower(), "metadata") if line.kind == "server" else "metadata",
        )
        for line in lines
        if line.kind in mounted
        for i in range(line.count)
    ]
    # parts without height add their power and weight to the devices holding them: the MDT disks to the
    # enclosures, adapters and their cables to the servers (shared evenly), else to the cell's first device
    for holder, kinds in (("enclosure", ("disk",)), ("server", None)):
        loose = [line for line in lines if line.kind not in mounted and (line.kind in kinds if kinds else line.kind != "disk")]
        if not loose or not devices:
            continue
        at = [k for k, dev in enumerate(devices) if dev[2] == holder] or [0]
        w = sum(line.part.power_w * line.count for line in loose) / len(at)
        kg = sum(line.part.weight_kg * line.count for line in loose) / len(at)
        for k in at:
            h, slug, kind, label, pw, dkg, role = devices[k]
            devices[k] = (h, slug, kind, label, pw + w, dkg + kg, role)
    return _Block(label=md.name, group="metadata", devices=devices)


def rack_layouts(design: DesignInput, batch, result, row: int = 0) -> list[RackLayout]:
    """The detailed rack layout of design `row` of a batch: U positions, labels, roles, HA pairs,
    power and weight, following the packing the batch computed (`result.pack`). Each rack also gets
    its switches at the top, its PDUs (0U, at the rear), and the weight of its uplink cables and of
    the blanking panels closing its free units."""
    rack = design.rack
    pack = result.pack
    paired = [design.paired(group) for group in design.bricks]
    racks: list[list[_Block]] = [[]]
    metadata_block = _metadata_block(design)
    if metadata_block is not None and design.placement == "in_rack":
        racks[0].append(metadata_block)
    numbers, pairs, counter, pair_counter = {}, {}, 1, 1
    for j, group in enumerate(design.bricks):
        numbers[j], pairs[j] = counter, pair_counter
        counter += group.count
        pair_counter += (group.count + 1) // 2 if paired[j] else 0
    parts = batch.parts
    for pos, j in enumerate(pack["order"][row].tolist()):
        if j >= len(design.bricks):
            continue
        group = design.bricks[j]
        devices = _brick_devices(design, parts, row, j)

        def tag(k: int, j: int = j) -> str | None:
            return f"HA {pairs[j] + k // 2}" if paired[j] else None

        blocks = [
            _Block(
                label=f"{group.name} #{numbers[j] + k}",
                group=group.template,
                devices=[
                    (h, slug, kind, label.replace("{n}", str(numbers[j] + k)), w, kg, role) for h, slug, kind, label, w, kg, role in devices
                ],
                pair=tag(k),
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
                        "oss",
                    )
                ],
                pair=tag(group.count - 1),
            )
            if pack["standby_new"][row, pos]:
                racks.append([])
            racks[-1].append(standby)
    if metadata_block is not None and design.placement == "separate_rack":
        racks.append([metadata_block])

    uplink_kg = rack.uplink_cable.weight_kg * rack.uplinks if rack.uplink_cable is not None else 0.0
    blank = rack.blanking_panel
    layouts = []
    for index, blocks in enumerate(racks, start=1):
        layout = RackLayout(index=index, rack=rack.slug, units_total=rack.units, weight_empty_kg=rack.weight_kg + uplink_kg)
        u = 1
        for block in sorted(blocks, key=lambda b: -b.weight):
            for height, slug, kind, label, power, weight, role in block.devices:
                layout.items.append(
                    RackItem(
                        u=u,
                        height=height,
                        item=slug,
                        kind=kind,
                        label=label,
                        group=block.group,
                        power_w=power,
                        weight_kg=weight,
                        role=role,
                        pair=block.pair,
                    )
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
                        role="switch",
                    )
                )
        if rack.pdu is not None:
            for k in range(rack.pdus):
                pdu = rack.pdu.part
                feed = "AB"[k] if rack.pdus == 2 else str(k + 1)
                layout.items.append(
                    RackItem(
                        u=0,
                        height=0,
                        item=pdu.slug,
                        kind="pdu",
                        label=f"{pdu.name} (feed {feed})",
                        group="power",
                        power_w=pdu.power_w,
                        weight_kg=pdu.weight_kg,
                        role="pdu",
                        face="rear",
                    )
                )
        if blank is not None:
            layout.blanking_units = max(layout.units_total - layout.units_used, 0)
            layout.weight_empty_kg += -(-layout.blanking_units // max(blank.height_u, 1)) * blank.weight_kg
        layouts.append(layout)
    return layouts


def heat_btu_per_h(power_w: float) -> float:
    """Heat a rack gives off, BTU/h, from the power it draws (W)."""
    return power_w * BTU_PER_H_PER_W
