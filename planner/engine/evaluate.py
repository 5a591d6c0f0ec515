"""Evaluate one design in full: the batch of one, plus layout, bill of materials and stage tables."""

from __future__ import annotations

from .batch import BatchInput, evaluate_batch
from .cost import bill_of_materials
from .inputs import STAGES, DesignInput
from .layout import layout_design
from .results import Evaluation
from .units import PIB, TB, TIB


def _r(value: float, digits: int = 3) -> float:
    return round(float(value), digits)


def evaluate(design: DesignInput) -> Evaluation:
    """Usable capacity, throughput with its bottleneck, price, rack fit and warnings of one design."""
    batch = BatchInput.from_designs([design])
    res = evaluate_batch(batch)
    warnings: list[str] = []

    stages_out, bricks_out = [], []
    for j, group in enumerate(design.bricks):
        per_brick = res.brick_gbps[0, j]
        lim = res.limiting[0, j]
        for s, stage in enumerate(STAGES):
            r, w = res.stages[0, j, s]
            if r == float("inf") and w == float("inf"):
                continue  # a stage this brick does not have (no expansion enclosure, no HBA)
            stages_out.append(
                {
                    "brick": group.template,
                    "stage": stage,
                    "read_gbps": _r(r),
                    "write_gbps": _r(w),
                    "limiting": {"read": bool(lim[0] == s), "write": bool(lim[1] == s)},
                }
            )
        osts = group.enclosures * group.groups_per_enclosure
        bricks_out.append(
            {
                "template": group.template,
                "name": group.name,
                "role": group.role,
                "count": group.count,
                "disk": group.disk.slug,
                "expansions": group.expansions,
                "adapter": group.network.slug,
                "height_u": group.height_u,
                "osts_per_brick": osts,
                "read_gbps_per_brick": _r(per_brick[0]),
                "write_gbps_per_brick": _r(per_brick[1]),
                "read_gbps": _r(per_brick[0] * group.count),
                "write_gbps": _r(per_brick[1] * group.count),
                "bottleneck": {"read": STAGES[lim[0]], "write": STAGES[lim[1]]},
                "software_efficiency": {
                    "read": group.efficiency_read if group.efficiency_read is not None else design.tuning.software_read_efficiency,
                    "write": group.efficiency_write if group.efficiency_write is not None else design.tuning.software_write_efficiency,
                },
                "standby_servers": int(res.standby[0, j]),
                "sources": dict(group.sources),
            }
        )
        if design.failover == "paired" and group.count % 2 == 1:
            warnings.append(
                f"{group.name}: an odd number of bricks ({group.count}); one standby server was added so that every OSS has a failover partner."
            )
        if group.height_u > design.rack.usable_units:
            warnings.append(
                f"{group.name}: one brick is {group.height_u}U and does not fit in a {design.rack.name} ({design.rack.usable_units}U free under its switches)."
            )

    bottleneck = res.bottleneck_names()[0]
    if design.clients is not None and res.clients_limited[0].any():
        warnings.append(
            (f"The {design.clients.count} clients" if design.clients.count != 1 else "The one client")
            + f" ({design.clients.gbps:.1f} GB/s with {design.clients.adapter.name}) limit"
            + ("s" if design.clients.count == 1 else "")
            + " throughput below what the storage delivers."
        )

    layouts = layout_design(design)
    rack_count = int(res.rack_count[0])
    assert len(layouts) == rack_count, "detailed layout and vectorised rack count disagree"
    racks_out = []
    for layout in layouts:
        racks_out.append(
            {
                "index": layout.index,
                "rack": layout.rack,
                "units_total": layout.units_total,
                "units_used": layout.units_used,
                "power_w": round(layout.power_w, 1),
                "weight_kg": round(layout.weight_kg, 1),
                "power_budget_w": design.rack.power_budget_w,
                "max_load_kg": design.rack.max_load_kg,
                "items": [item.as_dict() for item in sorted(layout.items, key=lambda it: it.u)],
            }
        )
        if layout.units_used > layout.units_total:
            warnings.append(f"Rack {layout.index} is over-full: {layout.units_used}U in a {layout.units_total}U rack.")
        if layout.power_w > design.rack.power_budget_w:
            warnings.append(
                f"Rack {layout.index} draws {layout.power_w / 1000:.1f} kW, over the {design.rack.name} power budget of {design.rack.power_budget_w / 1000:.1f} kW."
            )
        if layout.weight_kg > design.rack.max_load_kg:
            warnings.append(
                f"Rack {layout.index} weighs {layout.weight_kg:.0f} kg, over the {design.rack.name} load rating of {design.rack.max_load_kg:.0f} kg."
            )

    lines, price_warnings = bill_of_materials(design, res.quantities, rack_count)
    warnings.extend(price_warnings)
    prices = design.prices
    hardware = sum(line.total for line in lines if line.kind != "service")
    support = sum(line.total for line in lines if line.kind == "service")
    opex = float(res.opex[0])
    price = {
        "total": round(hardware + support + opex, 2),
        "currency": prices.currency,
        "capex": round(hardware + support, 2),
        "hardware": round(hardware, 2),
        "support": round(support, 2),
        "opex": round(opex, 2),
        "price_list": prices.slug,
        "price_list_name": prices.name,
        "price_list_date": prices.effective_date,
        "illustrative": prices.illustrative,
        "years": prices.service_years,
        "energy_price_per_kwh": prices.energy_price_per_kwh,
        "pue": prices.pue,
        "lines": [line.as_dict() for line in lines],
    }
    usable = float(res.usable_bytes[0])
    per_pib = price["total"] / (usable / PIB) if usable > 0 else None
    read = float(res.read_gbps[0])
    price["per_usable_pib"] = round(per_pib, 2) if per_pib else None
    price["per_read_gbps"] = round(price["total"] / read, 2) if read > 0 else None

    if prices.illustrative:
        warnings.append(f"Prices come from '{prices.name}', an illustrative list: enter real quotes before using them in a purchase.")

    degraded_note = (
        "one OSS server down: its HA partner serves both bricks through one server and network adapter"
        if design.failover == "paired"
        else "one OSS server down without failover: its brick's OSTs are offline until it returns"
    )
    degraded = {"read_gbps": _r(res.degraded_gbps[0, 0], 2), "write_gbps": _r(res.degraded_gbps[0, 1], 2), "scenario": degraded_note}

    counts = {
        "bricks": int(sum(g.count for g in design.bricks)),
        "servers": int(res.servers[0]),
        "enclosures": int(res.enclosures[0]),
        "disks": int(res.disks[0]),
        "osts": int(res.osts[0]),
    }
    assumptions = [
        "Usable capacity is the file systems' size as df shows it, in binary units (TiB = 2^40 B, PiB = 2^50 B), after the file-system overhead of each brick template; ldiskfs's default 5% root reserve is not subtracted.",
        "Raw capacity is decimal (TB = 10^12 B), as disk vendors quote it.",
        "Throughput is GB/s (10^9 B/s) for large sequential file-per-process I/O spread evenly over all OSTs.",
        f"Tuning profile '{design.tuning.slug}': {design.tuning.request_kib} KiB requests at the RAID controllers; Lustre delivers {design.tuning.software_read_efficiency:.0%} (read) and {design.tuning.software_write_efficiency:.0%} (write) of the back end.",
        f"Energy: {prices.service_years} years at {prices.energy_price_per_kwh} {prices.currency}/kWh with PUE {prices.pue}.",
    ]
    sources = {"tuning": design.tuning.slug, "price_list": prices.slug}
    if design.calibration:
        sources["calibration"] = design.calibration
        if not design.calibration.get("applied_to"):
            warnings.append(
                f"Calibration '{design.calibration['name']}' is for {design.calibration['brick_template']} bricks; "
                "no brick of this design uses that template, so nothing was changed."
            )
    return Evaluation(
        name=design.name,
        usable_pib=usable / PIB,
        usable_tib=usable / TIB,
        raw_tb=float(res.raw_bytes[0]) / TB,
        read_gbps=read,
        write_gbps=float(res.write_gbps[0]),
        bottleneck={"read": bottleneck[0], "write": bottleneck[1]},
        stages=stages_out,
        bricks=bricks_out,
        degraded=degraded,
        price=price,
        rack_count=rack_count,
        racks=racks_out,
        units_used=int(res.units_used[0]),
        power_w=float(res.power_w[0]),
        weight_kg=float(res.weight_kg[0]),
        counts=counts,
        warnings=warnings,
        assumptions=assumptions,
        sources=sources,
    )
