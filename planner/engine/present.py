"""Presentation of engine results: one design's row of a batch as the public Evaluation, with
rounding, warning texts and the assumptions stated in words. Computes no figure of its own: every
number comes from `BatchResult` (or, for the metadata cell, `capacity.mdt_figures`)."""

from __future__ import annotations

import math

from .capacity import mdt_figures
from .cost import bill_of_materials
from .inputs import STAGES, DesignInput, stage_label
from .layout import heat_btu_per_h, rack_layouts
from .reliability import design_reliability, ost_balance
from .results import Evaluation
from .units import PIB, TB, TIB


def _r(value: float, digits: int = 3) -> float:
    return round(float(value), digits)


def _stage_value(value: float) -> float | None:
    """A stage figure for JSON: None where the stage does not limit this direction (not measured)."""
    return round(float(value), 3) if value != float("inf") else None


def _stage_rows(design: DesignInput, res, row: int) -> list[dict]:
    out = []
    stages = res.stages[:, :, row, :].tolist()  # [stage][read, write][line], Python floats
    limiting = res.limiting[:, row, :].tolist()  # [read, write][line]
    for j, group in enumerate(design.bricks):
        for s, stage in enumerate(STAGES):
            r, w = stages[s][0][j], stages[s][1][j]
            if r == float("inf") and w == float("inf"):
                continue  # a stage this brick does not have (no expansion enclosure, no HBA, not measured)
            out.append(
                {
                    "brick": group.template,
                    "stage": stage,
                    "label": stage_label(stage, group.head.kind, group.head.controllers),
                    "read_gbps": _stage_value(r),
                    "write_gbps": _stage_value(w),
                    "limiting": {"read": limiting[0][j] == s, "write": limiting[1][j] == s},
                }
            )
    return out


def _design_stage_label(design: DesignInput, stage: str) -> str:
    """The design's limiting stage in words: the RAID stage is named for what does the RAID when every line's
    bricks do it the same way (software RAID on JBODs, array controllers), else generically."""
    labels = {stage_label(stage, g.head.kind, g.head.controllers) for g in design.bricks}
    return labels.pop() if len(labels) == 1 else stage_label(stage)


def _brick_rows(design: DesignInput, batch, res, row: int) -> list[dict]:
    out = []
    g = batch.groups
    for j, group in enumerate(design.bricks):
        per = res.brick_gbps[:, row, j]
        lim = res.limiting[:, row, j]
        out.append(
            {
                "template": group.template,
                "name": group.name,
                "role": group.role,
                "kind": group.head.kind,
                "count": group.count,
                "disk": group.disk.slug,
                "expansions": group.expansions,
                "adapter": group.network.slug,
                "adapters_per_server": group.network_count,
                "storage_ports": group.storage_ports,
                "raid": {
                    "level": group.raid.level,
                    "data": group.raid.data,
                    "parity": group.raid.parity,
                    "groups": group.raid.groups,
                    "spares": group.raid.spares,
                    "segment_kib": group.raid.segment_kib,
                },
                "disks_per_brick": group.disks,
                "height_u": group.height_u,
                "osts_per_brick": group.osts,
                "disk_sustained_mbps": _r(g["disk_read_mbps"][row, j], 1),
                "backend_gbps_per_brick": {"read": _r(res.backend_gbps[0, row, j]), "write": _r(res.backend_gbps[1, row, j])},
                "read_gbps_per_brick": _r(per[0]),
                "write_gbps_per_brick": _r(per[1]),
                "read_gbps": _r(per[0] * group.count),
                "write_gbps": _r(per[1] * group.count),
                "bottleneck": {
                    "read": STAGES[lim[0]],
                    "write": STAGES[lim[1]],
                    "read_label": stage_label(STAGES[lim[0]], group.head.kind, group.head.controllers),
                    "write_label": stage_label(STAGES[lim[1]], group.head.kind, group.head.controllers),
                },
                "software_efficiency": {"read": float(g["eff_read"][row, j]), "write": float(g["eff_write"][row, j])},
                "standby_servers": int(res.standby[row, j]),
                "sources": dict(group.sources),
            }
        )
    return out


def _rack_rows(design: DesignInput, layouts, warnings: list[str]) -> list[dict]:
    out = []
    rack = design.rack
    pdu = rack.pdu
    pdu_row = (
        {
            "item": pdu.part.slug,
            "name": pdu.part.name,
            "count": rack.pdus,
            "capacity_w_each": round(pdu.capacity_w),
            "phases": pdu.phases,
            "inlet": pdu.inlet,
        }
        if pdu is not None
        else None
    )
    for layout in layouts:
        used, power, weight = layout.units_used, layout.power_w, layout.weight_kg  # each a sum over the items
        out.append(
            {
                "index": layout.index,
                "rack": layout.rack,
                "units_total": layout.units_total,
                "units_used": used,
                "power_w": round(power, 1),
                "heat_btu_per_h": round(heat_btu_per_h(power)),
                "weight_kg": round(weight, 1),
                "blanking_units": layout.blanking_units,
                "pdu": dict(pdu_row) if pdu_row is not None else None,
                "power_budget_w": rack.power_budget_w,
                "max_load_kg": rack.max_load_kg,
                "items": [item.as_dict() for item in sorted(layout.items, key=lambda it: (it.face != "front", it.u))],
            }
        )
        if used > layout.units_total:
            warnings.append(f"Rack {layout.index} is over-full: {used}U in a {layout.units_total}U rack.")
        if power > rack.power_budget_w:
            warnings.append(
                f"Rack {layout.index} draws {power / 1000:.1f} kW, over the {rack.name} power budget of {rack.power_budget_w / 1000:.1f} kW."
            )
        if pdu is not None and rack.pdus:
            if power > pdu.capacity_w * rack.pdus:
                warnings.append(
                    f"Rack {layout.index} draws {power / 1000:.1f} kW, more than its {rack.pdus} PDUs deliver "
                    f"({rack.pdus} x {pdu.capacity_w / 1000:.1f} kW)."
                )
            elif rack.pdus >= 2 and power > pdu.capacity_w * (rack.pdus - 1):
                warnings.append(
                    f"Rack {layout.index} draws {power / 1000:.1f} kW: with one of its feeds down the other PDU "
                    f"({pdu.capacity_w / 1000:.1f} kW) cannot carry it, so the rack loses its power redundancy."
                )
        if weight > rack.max_load_kg:
            warnings.append(f"Rack {layout.index} weighs {weight:.0f} kg, over the {rack.name} load rating of {rack.max_load_kg:.0f} kg.")
    _switch_ports(design, layouts, warnings)
    racks_of: dict[str, list[int]] = {}
    for layout in layouts:
        for item in layout.items:
            if item.pair is not None and layout.index not in racks_of.setdefault(item.pair, []):
                racks_of[item.pair].append(layout.index)
    split = [(pair, where) for pair, where in racks_of.items() if len(where) > 1]
    if split:
        shown = "; ".join(f"{pair} in racks {' and '.join(map(str, where))}" for pair, where in split[:4]) + (
            "; ..." if len(split) > 4 else ""
        )
        warnings.append(
            f"{len(split)} HA pair{'s' if len(split) != 1 else ''} span{'s' if len(split) == 1 else ''} two racks ({shown}): each server "
            "is cabled to its partner's enclosure, so those storage cables run between racks, longer than the bill's rack-local cables; "
            "price longer cables or place the partners in one rack."
        )
    return out


BREAKOUT = 4
"""A faster Ethernet port takes up to four slower links (a QSFP28 port as 4 x 25 or 4 x 10 GbE through a
breakout cable)."""


def _switch_ports(design: DesignInput, layouts, warnings: list[str]) -> None:
    """A warning per rack whose servers' network adapters and uplinks need more ports of a fabric than
    the rack's data switches of that fabric have: the bill buys one set of switches a rack. The
    metadata cell's adapters are not counted here."""
    rack = design.rack
    by_template = {g.template: g for g in design.bricks}
    for layout in layouts:
        need: dict[str, float] = {}
        for item in layout.items:
            group = by_template.get(item.group) if item.kind == "server" else None
            if group is None:
                continue
            adapter = group.network
            have = [(ports, gbps) for kind, ports, gbps in rack.data_switches if kind == adapter.kind]
            if not have:
                continue  # no switch of its kind at all: warned about with the design's links
            per_port = 1.0  # switch ports a link takes
            if adapter.kind == "eth_nic" and adapter.line_gbps > 0:
                per_port = 1.0 / max(1, min(BREAKOUT, int(max(g for _, g in have) // adapter.line_gbps)))
            need[adapter.kind] = need.get(adapter.kind, 0.0) + group.network_count * adapter.ports * per_port
        if rack.uplinks and rack.uplink_kind:
            need[rack.uplink_kind] = need.get(rack.uplink_kind, 0.0) + rack.uplinks
        for kind, ports in need.items():
            have = sum(p for k, p, _ in rack.data_switches if k == kind)
            if have and ports > have + 1e-9:
                what = "InfiniBand" if kind == "ib_hca" else "Ethernet"
                warnings.append(
                    f"Rack {layout.index} needs {math.ceil(ports)} {what} switch ports (its servers' network adapters and {rack.uplinks} uplinks) "
                    f"and its switches have {have}: the bill buys one switch a rack; add a switch (and its rack unit) for the rest."
                )


KIND_LABELS = {
    "disk": "Disks",
    "server": "Servers",
    "enclosure": "Enclosures",
    "adapter": "Adapters",
    "switch": "Switches",
    "rack": "Racks",
    "accessory": "Rack accessories",
    "service": "Support",
    "energy": "Energy",
}


def _price_by_kind(lines, energy: float, total: float) -> list[dict]:
    """Where the money goes: the bill of materials' totals per kind of part, and the energy over
    the years of service, largest first, each with its share of the design's total."""
    sums: dict[str, float] = {}
    for line in lines:
        sums[line.kind] = sums.get(line.kind, 0.0) + line.total
    sums["energy"] = energy
    out = [
        {
            "kind": kind,
            "label": KIND_LABELS.get(kind, kind),
            "total": round(value, 2),
            "share": round(value / total, 4) if total > 0 else 0.0,
        }
        for kind, value in sums.items()
        if value > 0
    ]
    return sorted(out, key=lambda row: -row["total"])


def _price(design: DesignInput, batch, res, row: int, warnings: list[str]) -> dict:
    lines = bill_of_materials(design, batch, res, row)
    for kind, slug in dict.fromkeys(batch.keys[row][2]):
        warnings.append(f"No price for {kind} '{slug}' in price list '{design.prices.slug}'; counted as 0.")
    prices = design.prices
    price = {
        "total": round(float(res.total[row]), 2),
        "currency": prices.currency,
        "capex": round(float(res.capex[row]), 2),
        "hardware": round(float(res.hardware[row]), 2),
        "support": round(float(res.support[row]), 2),
        "opex": round(float(res.opex[row]), 2),
        "price_list": prices.slug,
        "price_list_name": prices.name,
        "price_list_date": prices.effective_date,
        "illustrative": prices.illustrative,
        "years": prices.service_years,
        "energy_price_per_kwh": prices.energy_price_per_kwh,
        "pue": prices.pue,
        "lines": [line.as_dict() for line in lines],
    }
    price["by_kind"] = _price_by_kind(lines, float(res.opex[row]), float(res.total[row]))
    usable = float(res.usable_bytes[row])
    read = float(res.read_gbps[row])
    price["per_usable_pib"] = round(price["total"] / (usable / PIB), 2) if usable > 0 else None
    price["per_read_gbps"] = round(price["total"] / read, 2) if read > 0 else None
    if prices.illustrative:
        warnings.append(f"Prices come from '{prices.name}', an illustrative list: enter real quotes before using them in a purchase.")
    return price


def _metadata(design: DesignInput) -> dict | None:
    md = design.metadata
    if md is None:
        return None
    out = {"cell": md.slug, "name": md.name, "placement": design.placement, "servers": md.servers}
    if md.mdt is not None:
        figures = mdt_figures(md.mdt)
        out.update(
            {
                "mdt_count": md.mdt.mdts,
                "mdt_disk": md.mdt.disk.slug,
                "mdt_disks": md.mdt.disks,
                "mdt_raid": {
                    "level": md.mdt.raid.level,
                    "data": md.mdt.raid.data,
                    "parity": md.mdt.raid.parity,
                    "groups": md.mdt.raid.groups,
                },
                "mdt_usable_tib": round(figures["usable_bytes"] / TIB, 2),
                "mdt_usable_tib_each": round(figures["usable_bytes"] / max(md.mdt.mdts, 1) / TIB, 2),
                "bytes_per_inode": md.mdt.bytes_per_inode,
                "inodes": int(figures["inodes"]),
                "inodes_capped_by_ldiskfs": bool(figures["capped"]),
            }
        )
    return out


def _assumptions(design: DesignInput, batch, row: int) -> list[str]:
    tuning = design.tuning
    disks = []
    for j, group in enumerate(design.bricks):
        d = group.disk
        if d.sustained_factor < 1.0:
            disks.append(
                f"{d.name}: {d.read_mbps:.0f} MB/s outer, {d.inner_mbps:.0f} MB/s inner zone, {batch.groups['disk_read_mbps'][row, j]:.0f} MB/s over the surface"
            )
    out = [
        "Usable capacity is the file systems' size as df shows it, in binary units (TiB = 2^40 B, PiB = 2^50 B): ldiskfs OSTs less their format overhead (the 5% root reserve is not subtracted); ZFS OSTs as ZFS reports a raidz vdev (padding of 128 KiB blocks), less the 1/32 slop space.",
        "Raw capacity is decimal (TB = 10^12 B), as disk vendors quote it.",
        "Throughput is GB/s (10^9 B/s) for large sequential file-per-process I/O spread evenly over all OSTs of a file system that fills the whole disk surface.",
        "Disks stream at the average of their outer- and inner-zone rates (a file system fills the whole surface)"
        + (": " + "; ".join(dict.fromkeys(disks)) if disks else "")
        + ".",
        f"Tuning profile '{tuning.slug}': {tuning.rpc_kib} KiB Lustre RPCs reach the RAID controllers as {tuning.request_kib} KiB requests"
        + " (less where a controller or SAN protocol takes smaller ones)"
        + f"; Lustre delivers {tuning.software_read_efficiency:.0%} (read) and {tuning.software_write_efficiency:.0%} (write) of the back end. The network stage is the adapters' protocol goodput and is not reduced again.",
        f"Failover: {design.failover}.",
        f"Energy: {design.prices.service_years} years at {design.prices.energy_price_per_kwh} {design.prices.currency}/kWh with PUE {design.prices.pue}.",
    ]
    if design.clients is not None and design.clients.rpc_round_trip_ms > 0:
        c = design.clients
        out.append(
            f"Each client keeps {c.streams} OSC(s) busy with {tuning.rpcs_in_flight} RPCs of {tuning.rpc_kib} KiB in flight and a {c.rpc_round_trip_ms} ms RPC round trip."
        )
    return out


def evaluation(design: DesignInput, batch, res, row: int = 0) -> Evaluation:
    """The Evaluation of design `row` of an evaluated batch."""
    warnings: list[str] = list(design.notes)
    for j, group in enumerate(design.bricks):
        if res.standby[row, j] > 0:
            warnings.append(
                f"{group.name}: an odd number of bricks ({group.count}); one standby server was added so that every OSS has a failover partner."
            )
        if group.height_u > design.rack.usable_units:
            warnings.append(
                f"{group.name}: one brick is {group.height_u}U and does not fit in a {design.rack.name} ({design.rack.usable_units}U free under its switches)."
            )
    bottleneck = res.bottleneck_names([row])[0]
    if design.clients is not None and "clients" in bottleneck:
        c = design.clients
        warnings.append(
            (f"The {c.count} clients" if c.count != 1 else "The one client")
            + f" ({c.adapter.name}) limit"
            + ("s" if c.count == 1 else "")
            + " throughput below what the storage delivers."
        )
    if "fabric" in bottleneck:
        warnings.append("The fabric's core limits throughput below what the storage delivers.")

    layouts = rack_layouts(design, batch, res, row)
    racks_out = _rack_rows(design, layouts, warnings)
    price = _price(design, batch, res, row, warnings)

    if design.failover != "paired":
        degraded_note = "one OSS server down without failover: its brick's OSTs are offline until it returns"
    elif not all(design.paired(g) for g in design.bricks):
        degraded_note = (
            "one OSS server down, the worst case over the lines: on a paired line its HA partner serves both bricks through one "
            "server and network adapter; on a line of internal bays its brick's OSTs are offline until it returns"
        )
    else:
        degraded_note = "one OSS server down: its HA partner serves both bricks through one server and network adapter"
    sources = {"tuning": design.tuning.slug, "price_list": design.prices.slug}
    if design.calibration:
        sources["calibration"] = design.calibration
        name = design.calibration["name"]
        not_applied = design.calibration.get("not_applied", [])
        if not design.calibration.get("applied_to") and not not_applied:
            warnings.append(
                f"Calibration '{name}' is for {design.calibration['brick_template']} bricks; "
                "no brick of this design uses that template, so nothing was changed."
            )
        for line in not_applied:
            warnings.append(
                f"Calibration '{name}' is not used for line {line['line']} ({line['template']}): its parts behind the OSS differ from "
                f"the brick the calibration measured ({'; '.join(line['differs'])}), so that line keeps its data sheets' figures."
            )
        refused = design.calibration.get("refused", {})
        for op in design.calibration.get("unmeasured", []) if design.calibration.get("applied_to") else []:
            if op in refused:
                warnings.append(
                    f"Calibration '{name}' measured {op}s but they were refused, so {op}s use the data sheets' figures: {refused[op]}"
                )
            else:
                warnings.append(f"Calibration '{name}' measured no {op}s: {op}s use the data sheets' figures.")
    usable = float(res.usable_bytes[row])
    n_lines = len(design.bricks)
    sustained = [float(batch.groups["disk_read_mbps"][row, j]) for j in range(n_lines)]
    per_brick = res.brick_gbps[:, row, :].tolist()  # [read, write][line]
    reliability = design_reliability(design, sustained, per_brick[0][:n_lines], per_brick[1][:n_lines])
    balance = ost_balance(
        design,
        [per_brick[0][j] * g.count for j, g in enumerate(design.bricks)],
        [per_brick[1][j] * g.count for j, g in enumerate(design.bricks)],
        float(res.read_gbps[row]),
        float(res.write_gbps[row]),
    )
    if balance is not None and balance["uneven"]:
        warnings.append(
            f"OST sizes differ by {balance['spread']:.0%} ({balance['ost_tib_smallest']:g} to {balance['ost_tib_largest']:g} TiB): "
            "Lustre's allocator weights new objects by free space, so the bigger OSTs receive more and the smaller ones fill first; "
            f"once they are full, only the {', '.join(balance['largest_lines'])} bricks take new data, at {balance['write_gbps_once_smaller_full']:,.1f} GB/s "
            f"write and {balance['read_gbps_once_smaller_full']:,.1f} GB/s read instead of {float(res.write_gbps[row]):,.1f} and "
            f"{float(res.read_gbps[row]):,.1f} GB/s."
        )
    return Evaluation(
        name=design.name,
        usable_pib=usable / PIB,
        usable_tib=usable / TIB,
        raw_tb=float(res.raw_bytes[row]) / TB,
        read_gbps=float(res.read_gbps[row]),
        write_gbps=float(res.write_gbps[row]),
        bottleneck={
            "read": bottleneck[0],
            "write": bottleneck[1],
            "read_label": _design_stage_label(design, bottleneck[0]),
            "write_label": _design_stage_label(design, bottleneck[1]),
        },
        stages=_stage_rows(design, res, row),
        bricks=_brick_rows(design, batch, res, row),
        degraded={
            "read_gbps": _r(res.degraded_gbps[0, row], 2),
            "write_gbps": _r(res.degraded_gbps[1, row], 2),
            "failover": design.failover,
            "scenario": degraded_note,
        },
        price=price,
        rack_count=int(res.rack_count[row]),
        racks=racks_out,
        units_used=int(res.units_used[row]),
        power_w=float(res.power_w[row]),
        heat_btu_per_h=heat_btu_per_h(float(res.power_w[row])),
        weight_kg=float(res.weight_kg[row]),
        counts={
            "bricks": int(sum(g.count for g in design.bricks)),
            "servers": int(res.servers[row]),
            "enclosures": int(res.enclosures[row]),
            "disks": int(res.disks[row]),
            "osts": int(res.osts[row]),
        },
        warnings=warnings,
        assumptions=_assumptions(design, batch, row),
        sources=sources,
        metadata=_metadata(design),
        reliability=reliability,
        ost_balance=balance,
    )
