"""Evaluation services: DesignSpec -> engine inputs (catalogue look-ups) -> Evaluation.

`design_resolve` turns a DesignSpec (validated JSON, see `planner.spec`) into engine inputs by
looking up the catalogue; `design_evaluate` evaluates it. Every front door (API, pages, PDF,
tasks) calls these functions; none computes a figure itself. A saved design passes its frozen
price snapshot (`prices=`) so that its quote does not move when the price list changes.
"""

from __future__ import annotations

import copy

from hardware_catalog import models as cat
from planner import engine
from planner.spec import SpecError, normalise_spec, raid_parity, raid_parity_problem

from .catalogue import (
    CatalogueSnapshot,
    accessory_params,
    adapter_in_slot,
    adapter_params,
    catalogue_snapshot,
    disk_params,
    enclosure_params,
    part_params,
    server_params,
)


def _put(errors: dict, path: tuple, message: str) -> None:
    """Record a message at a nested field path, e.g. ("bricks", 0, "disk")."""
    node = errors
    for i, key in enumerate(path[:-1]):
        nxt = path[i + 1]
        if isinstance(key, int):
            while len(node) <= key:
                node.append({})
            node = node[key]
        else:
            node = node.setdefault(key, [] if isinstance(nxt, int) else {})
    last = path[-1]
    node.setdefault(last, []).append(message)


def _unknown(what: str, slug: str, choices: list[str]) -> str:
    """'unknown disk 'x'; known: a, b, c' (the choices listed when there are few)."""
    shown = slug if len(slug) <= 40 else slug[:40] + "…"
    known = f"; known: {', '.join(choices)}" if 0 < len(choices) <= 30 else ""
    return f"unknown {what} '{shown}'{known}"


def _refuse_incomplete(parts, path: tuple, errors: dict) -> bool:
    """Put a message for each part imported without the figures the planner needs (their stored
    values are placeholders that must not reach the engine); True when there was one."""
    refused = False
    for part, what in parts:
        if part is not None and getattr(part, "missing_figures", None):
            _put(errors, path, part.incomplete_message(what))
            refused = True
    return refused


def _network_adapter(snap: CatalogueSnapshot, slug: str, path: tuple, errors: dict):
    """A network adapter (InfiniBand HCA or Ethernet NIC); a SAS HBA is refused by name."""
    adapter = snap.adapters.get(slug)
    networks = snap.choices("adapters", lambda a: a.kind != cat.Adapter.Kind.SAS_HBA)
    if adapter is not None and adapter.kind == cat.Adapter.Kind.SAS_HBA:
        _put(errors, path, f"'{slug}' is a SAS HBA, not a network adapter; network adapters: {', '.join(networks)}")
        return None
    if adapter is None:
        _put(errors, path, _unknown("network adapter", slug, networks))
    return adapter


def _raid(entry: dict, template, head, path: tuple, errors: dict) -> engine.RaidLayout | None:
    """The line's RAID layout: the template's, with the spec's `raid` fields over it."""
    given = entry.get("raid") or {}
    level = given.get("level") or template.raid_level
    data = given.get("data") or template.raid_data_disks
    if "parity" in given and given["parity"] is not None:
        parity = given["parity"]
    elif level == template.raid_level and "data" not in given:
        parity = template.raid_parity_disks
    else:
        parity = raid_parity(level, data)
    groups = given.get("groups") or template.groups_per_enclosure
    spares = given["spares"] if given.get("spares") is not None else template.spares_per_enclosure
    segment = given.get("segment_kib") or template.segment_kib
    ok = True
    if problem := raid_parity_problem(level, data, parity):
        _put(errors, path + ("raid", "parity"), problem)
        ok = False
    if level.startswith("raidz") and head.controllers > 0:
        _put(
            errors,
            path + ("raid", "level"),
            f"{level} is ZFS software RAID and needs disks the server sees directly (a JBOD); the {head.name}'s controllers do raid5, raid6 or raid10",
        )
        ok = False
    declustered = bool(given.get("declustered", False))
    if declustered and level == "raid10":
        _put(
            errors,
            path + ("raid", "declustered"),
            "declustered layouts spread parity stripes over a pool; raid10 mirrors, choose a parity level",
        )
        ok = False
    if not ok:
        return None
    return engine.RaidLayout(
        level=level, data=data, parity=parity, groups=groups, spares=spares, segment_kib=segment, declustered=declustered
    )


def _part(snap: CatalogueSnapshot, obj, params):
    """A catalogue part's engine parameters (`params(obj)`), kept in the snapshot by kind and slug:
    the same for every template and request while the snapshot lives."""
    return _resolved(snap, (params.__name__, obj.slug), lambda _errors: params(obj), {})


def _in_slot(snap: CatalogueSnapshot, adapter, server):
    """An adapter's engine parameters as it works in `server`'s PCIe slots (see `adapter_in_slot`),
    kept in the snapshot by adapter and server."""
    return _resolved(snap, ("adapter_in_slot", adapter.slug, server.slug), lambda _errors: adapter_in_slot(adapter, server), {})


def _form_factor(value: str) -> str:
    return f"{value}-inch"


def _brick_group(snap: CatalogueSnapshot, entry: dict, index: int, refuse_paired: bool, errors: dict) -> engine.BrickGroup | None:
    """A brick line's engine inputs, its errors put in `errors`; with `refuse_paired` (failover `paired`
    asked for a design no line of which can pair) a line of internal bays is refused."""
    path = ("bricks", index)
    template = snap.templates.get(entry["template"])
    if template is None:
        _put(errors, path + ("template",), _unknown("brick template", entry["template"], snap.choices("templates")))
        return None
    n_errors = len(str(errors))
    head, server = template.head, template.server
    used_expansion = template.expansion if (template.expansions if entry.get("expansions") is None else entry["expansions"]) else None
    if _refuse_incomplete(((server, "server"), (head, "enclosure"), (used_expansion, "enclosure")), path + ("template",), errors):
        return None
    disk = template.disk
    if entry.get("disk"):
        disk = snap.disks.get(entry["disk"])
        if disk is None:
            _put(errors, path + ("disk",), _unknown("disk", entry["disk"], snap.choices("disks")))
    adapter = template.network_adapter
    if entry.get("adapter"):
        adapter = _network_adapter(snap, entry["adapter"], path + ("adapter",), errors)
    san = head.kind in (cat.Enclosure.Kind.ISCSI_ARRAY, cat.Enclosure.Kind.FC_ARRAY)
    internal = head.kind == cat.Enclosure.Kind.INTERNAL
    expansion = head if san else template.expansion
    expansions = template.expansions if entry.get("expansions") is None else entry["expansions"]
    if expansions > head.max_expansions:
        _put(
            errors,
            path + ("expansions",),
            f"the {head.name} takes no expansion enclosures"
            if head.max_expansions == 0
            else f"the {head.name} supports at most {head.max_expansions} {'further members' if san else 'expansion enclosures'}, not {expansions}",
        )
    elif expansions > 0 and expansion is None:
        _put(errors, path + ("expansions",), f"the brick template '{template.slug}' has no expansion enclosure model")
    raid = _raid(entry, template, head, path, errors)
    if raid is not None and disk is not None:
        ff = head.drive_form_factor
        holder = f"the {server.name}" if internal else f"the {head.name}"
        if raid.disks > head.drive_slots:
            _put(
                errors,
                path + ("raid",),
                f"{holder} holds {head.drive_slots} x {_form_factor(ff)} drives, this line asks for {raid.disks} "
                f"({raid.groups} x {raid.data}+{raid.parity}" + (f" + {raid.spares} spares" if raid.spares else "") + ")",
            )
        elif expansion is not None and expansions and raid.disks > expansion.drive_slots:
            _put(errors, path + ("raid",), f"each {expansion.name} holds {expansion.drive_slots} drives, this line asks for {raid.disks}")
        if disk.form_factor == "3.5" and ff == "2.5":
            _put(errors, path + ("disk",), f"a 3.5-inch disk does not fit {holder}'s 2.5-inch bays")
    adapters_per_server = entry.get("adapters_per_server") or template.network_adapter_count
    hba_count = template.hba_count if template.hba else 0
    if hba_count + adapters_per_server > server.pcie_slots:
        _put(
            errors,
            path + ("adapters_per_server",),
            f"the {server.name} has {server.pcie_slots} PCIe slots; {hba_count} storage adapter{'s' if hba_count != 1 else ''} "
            f"+ {adapters_per_server} network adapter{'s' if adapters_per_server != 1 else ''} need {hba_count + adapters_per_server}",
        )
    storage_ports = entry.get("storage_ports") or template.host_ports
    if template.hba is not None:
        most = template.hba.ports * hba_count
        what = f"{hba_count} x {template.hba.name} ({template.hba.ports} ports each)"
    else:
        most = head.uplink_ports
        what = f"the {head.name}'s {head.uplink_ports} ports"
    if storage_ports > most:
        _put(errors, path + ("storage_ports",), f"at most {most} storage ports per server with {what}, not {storage_ports}")
    if refuse_paired and internal:
        _put(
            errors,
            ("failover",),
            f"bricks[{index}] ({template.name}) keeps its disks inside its server: no failover partner can reach them, so 'paired' "
            "cannot protect it; use failover 'none' (or a template with shared storage)",
        )
    if disk is None or adapter is None or raid is None or len(str(errors)) != n_errors:
        return None
    sources = dict(template.sources)
    return engine.BrickGroup(
        template=template.slug,
        name=template.name,
        role=template.role,
        count=entry["count"],
        server=_part(snap, server, server_params),
        servers_per_brick=template.servers_per_brick,
        hba=_in_slot(snap, template.hba, server) if template.hba else None,
        hba_count=hba_count,
        network=_in_slot(snap, adapter, server),
        network_count=adapters_per_server,
        head=_part(snap, head, enclosure_params),
        expansion=_part(snap, expansion, enclosure_params) if expansion is not None else None,
        expansions=expansions,
        disk=_part(snap, disk, disk_params),
        raid=raid,
        storage_ports=storage_ports,
        fs_overhead_fraction=template.fs_overhead_fraction,
        software_raid_read_mbps=template.software_raid_read_mbps or 0.0,
        software_raid_write_mbps=template.software_raid_write_mbps or 0.0,
        sources={
            "raid_controller": f"catalogue: {head.slug} ({head.sources.get('controller_read_mbps', 'data sheet')})",
            "disks": f"catalogue: {disk.slug} ({disk.sources.get('read_mbps', 'data sheet')}; inner zone: {disk.sources.get('inner_mbps', 'none')})",
            "network": f"catalogue: {adapter.slug} ({adapter.sources.get('protocol_efficiency', 'data sheet')})",
            **{k: v for k, v in sources.items() if k in ("host_ports", "fs_overhead_fraction", "raid_level")},
        },
    )


def _metadata(snap: CatalogueSnapshot, slug: str, errors: dict, override: dict | None = None) -> engine.MetadataParams | None:
    """A metadata cell: its parts, and its MDT storage (the cell's, or composed by `override`:
    disk, disks, raid, mdts, bytes_per_inode)."""
    cell = snap.cells.get(slug)
    if cell is None:
        _put(errors, ("metadata", "cell"), _unknown("metadata cell", slug, snap.choices("cells")))
        return None
    kinds = {"server": snap.servers, "enclosure": snap.enclosures, "disk": snap.disks, "adapter": snap.adapters}
    lines = []
    for item in cell.items.all():
        obj = kinds.get(item.kind, {}).get(item.item_slug)
        if obj is None and item.kind == "switch":
            obj = cat.Switch.objects.filter(slug=item.item_slug).first()
        if obj is None:
            _put(errors, ("metadata", "cell"), f"metadata cell '{slug}' names an unknown {item.kind} '{item.item_slug}'")
            continue
        if _refuse_incomplete(((obj, item.kind),), ("metadata", "cell"), errors):
            continue
        lines.append(engine.inputs.MetadataLine(kind=item.kind, part=part_params(obj, item.kind), count=item.count, role=item.role))
        if item.kind == "adapter" and obj.cable is not None:  # a cable per adapter port, as for the bricks' adapters
            lines.append(
                engine.inputs.MetadataLine(
                    kind="accessory", part=accessory_params(obj.cable), count=item.count * obj.ports, role=f"{item.role} cables"
                )
            )
    given = override or {}
    disk = cell.mdt_disk
    if given.get("disk"):
        disk = snap.disks.get(given["disk"])
        if disk is None:
            _put(errors, ("metadata", "mdt", "disk"), _unknown("disk", given["disk"], snap.choices("disks")))
            return None
    if disk is None:
        if given:
            _put(errors, ("metadata", "mdt"), f"metadata cell '{slug}' has no MDT storage to compose; name a `disk` too")
        return engine.MetadataParams(slug=cell.slug, name=cell.name, lines=tuple(lines), mdt=None)
    raid_given = given.get("raid") or {}
    level = raid_given.get("level") or cell.mdt_raid_level
    data = raid_given.get("data") or cell.mdt_raid_data
    parity = raid_given.get("parity")
    if parity is None:
        parity = raid_parity(level, data) if raid_given else cell.mdt_raid_parity
    groups = raid_given.get("groups") or cell.mdt_raid_groups
    disks = given.get("disks") or (cell.mdt_disk_count if not raid_given else groups * (data + parity))
    mdts = given.get("mdts") or (cell.mdt_count if not raid_given else groups)
    needed = groups * (data + parity)
    if level.startswith("raidz"):
        _put(errors, ("metadata", "mdt", "raid", "level"), "ldiskfs MDTs sit on hardware or md RAID: raid5, raid6 or raid10")
    elif problem := raid_parity_problem(level, data, parity):
        _put(errors, ("metadata", "mdt", "raid", "parity"), problem)
    if disks < needed:
        _put(errors, ("metadata", "mdt", "disks"), f"{groups} x {data}+{parity} needs {needed} disks, not {disks}")
    enclosure = cell.mdt_enclosure
    if _refuse_incomplete(((enclosure, "enclosure"),), ("metadata", "cell"), errors):
        return None
    if enclosure is not None and disk.form_factor == "3.5" and enclosure.drive_form_factor == "2.5":
        _put(errors, ("metadata", "mdt", "disk"), f"a 3.5-inch disk does not fit the {enclosure.name}'s 2.5-inch bays")
    mdt = engine.MdtStorage(
        disk=disk_params(disk),
        disks=disks,
        raid=engine.RaidLayout(level=level, data=data, parity=parity, groups=groups, spares=max(disks - needed, 0)),
        mdts=mdts,
        bytes_per_inode=given.get("bytes_per_inode") or cell.bytes_per_inode,
        enclosure=part_params(enclosure, "enclosure") if enclosure else None,
        enclosure_slots=enclosure.drive_slots if enclosure else 0,
    )
    return engine.MetadataParams(slug=cell.slug, name=cell.name, lines=tuple(lines), mdt=mdt)


def _rack(snap: CatalogueSnapshot, slug: str, errors: dict) -> engine.RackParams | None:
    rack = snap.racks.get(slug)
    if rack is None:
        _put(errors, ("rack",), _unknown("rack", slug, snap.choices("racks")))
        return None
    if _refuse_incomplete(((rs.switch, "switch") for rs in rack.rack_switches.all()), ("rack",), errors):
        return None
    switches = tuple((part_params(rs.switch, "switch"), rs.count) for rs in rack.rack_switches.all())
    pdu = None
    if rack.pdu is not None and rack.pdu.pdu_capacity_w:
        pdu = engine.inputs.PduParams(
            part=accessory_params(rack.pdu), capacity_w=rack.pdu.pdu_capacity_w, phases=rack.pdu.pdu_phases or 1, inlet=rack.pdu.pdu_inlet
        )
    return engine.RackParams(
        slug=rack.slug,
        name=rack.name,
        units=rack.units,
        power_budget_w=rack.power_budget_w,
        max_load_kg=rack.max_load_kg,
        weight_kg=rack.weight_kg,
        switches=switches,
        pdu=pdu,
        pdus=rack.pdus if pdu is not None else 0,
        uplink_cable=accessory_params(rack.uplink_cable),
        uplinks=rack.uplinks,
        blanking_panel=accessory_params(rack.blanking_panel),
        rail_kit=accessory_params(rack.rail_kit),
        data_switches=tuple(
            ("ib_hca" if rs.switch.kind == cat.Switch.Kind.INFINIBAND else "eth_nic", rs.switch.ports * rs.count, rs.switch.port_gbps)
            for rs in rack.rack_switches.all()
            if rs.switch.kind == cat.Switch.Kind.INFINIBAND or rs.switch.port_gbps >= DATA_ETHERNET_GBPS
        ),
        uplink_kind={"infiniband": "ib_hca", "ethernet": "eth_nic"}.get(rack.uplink_cable.cable_type if rack.uplink_cable else "", ""),
    )


def price_list_snapshot(*, slug: str) -> dict | None:
    """The price list as plain JSON (to freeze in a saved design), or None if unknown."""
    snap = catalogue_snapshot().price_lists.get(slug)
    return copy.deepcopy(snap) if snap is not None else None


def _prices_from_snapshot(snap: dict) -> engine.PriceParams:
    unit_prices, support = {}, 0.0
    for kind, slug, price in snap["items"]:
        if kind == cat.PriceItem.Kind.SERVICE:
            support += price
        else:
            unit_prices[(kind, slug)] = price
    return engine.PriceParams(
        slug=snap["slug"],
        name=snap["name"],
        currency=snap["currency"],
        illustrative=snap["illustrative"],
        effective_date=snap["effective_date"],
        service_years=snap["service_years"],
        energy_price_per_kwh=snap["energy_price_per_kwh"],
        pue=snap["pue"],
        unit_prices=unit_prices,
        support_per_server_year=support,
    )


def _prices(catalogue: CatalogueSnapshot, slug: str, errors: dict, snapshot: dict | None = None) -> engine.PriceParams | None:
    if snapshot and snapshot.get("slug") == slug:
        return _prices_from_snapshot(snapshot)
    snap = catalogue.price_lists.get(slug)  # the snapshot holds every price list
    if snap is None:
        _put(errors, ("price_list",), _unknown("price list", slug, sorted(catalogue.price_lists)))
        return None
    return _prices_from_snapshot(snap)


def _tuning(snap: CatalogueSnapshot, slug: str, errors: dict) -> engine.TuningParams | None:
    t = snap.tuning.get(slug)
    if t is None:
        _put(errors, ("tuning",), _unknown("tuning profile", slug, snap.choices("tuning")))
        return None
    return engine.TuningParams(
        slug=t.slug,
        name=t.name,
        rpc_kib=t.rpc_kib,
        max_sectors_kib=t.max_sectors_kib or 0,
        sg_entries=t.sg_entries or 0,
        rpcs_in_flight=t.rpcs_in_flight,
        software_read_efficiency=t.software_read_efficiency,
        software_write_efficiency=t.software_write_efficiency,
    )


def _calibration(spec: dict, user, errors: dict):
    from planner.models import Calibration

    cal_id = spec.get("calibration")
    if cal_id is None:
        return None
    cal = None
    if user is not None and getattr(user, "is_authenticated", False):
        cal = Calibration.objects.filter(pk=cal_id, owner=user).first()
    if cal is None:
        _put(errors, ("calibration",), f"no calibration #{cal_id} of yours (calibrations are private: sign in as their owner)")
    return cal


def _apply_calibration(groups: list, cal, tuning: engine.TuningParams, snap: CatalogueSnapshot | None = None) -> tuple[list, dict]:
    """Give the calibration's figures to the lines of its template whose parts behind the OSS are those it
    measured; a line that differs (its own disk, RAID layout, expansions...) keeps its data sheets' figures
    and is listed in `not_applied` with what differs."""
    import dataclasses

    from .calibrations import brick_hardware, calibration_figures, calibration_measured_brick, calibration_refused, hardware_differences

    applied = calibration_figures(cal, tuning.software_read_efficiency, tuning.software_write_efficiency)
    default = None
    if not cal.fit.get("brick") and snap is not None and cal.brick_template in snap.templates:
        entry = {"template": cal.brick_template, "count": 1}
        default = _brick_group(snap, entry, 0, False, {})
    measured_brick = calibration_measured_brick(cal, default)
    out, used, not_applied = [], [], []
    for i, group in enumerate(groups):
        if group.template == cal.brick_template:
            differs = hardware_differences(measured_brick, brick_hardware(group)) if measured_brick else []
            if differs:
                not_applied.append({"line": i + 1, "template": group.template, "differs": differs})
            else:
                group = dataclasses.replace(group, **applied["figures"], sources={**group.sources, **applied["sources"]})
                if group.template not in used:
                    used.append(group.template)
        out.append(group)
    measured = sorted(applied["sources"])
    replaced = {op for op in ("read", "write") if f"measured_backend_{op}" in applied["sources"]}
    sheet_stages = ["disks", "expansion_link", "raid_controller", "host_links", "server"]
    info = {
        "id": cal.id,
        "name": cal.name,
        "brick_template": cal.brick_template,
        "applied_to": used,
        "from_calibration": measured,
        "from_data_sheets": [f"{stage}_{op}" for op in ("read", "write") if op not in replaced for stage in sheet_stages]
        + ["network"]
        + [f"software_efficiency_{op}" for op in ("read", "write") if f"software_efficiency_{op}" not in measured],
        "stages": applied["stages"],
        "unmeasured": [op for op in ("read", "write") if "all stages" in applied["stages"].get(op, {})],
        "refused": {op: why for op, why in calibration_refused(cal).items() if "all stages" in applied["stages"].get(op, {})},
        "not_applied": not_applied,
        "sources": applied["sources"],
    }
    return out, info


def _failover(snap: CatalogueSnapshot, spec: dict) -> str:
    """The spec's failover, or by default `paired` where a line's storage can be reached by a partner:
    `none` only when every line keeps its disks inside its servers. Under `paired` the engine pairs
    each line that can be paired and leaves lines of internal bays unpaired."""
    if spec.get("failover"):
        return spec["failover"]
    for entry in spec["bricks"]:
        template = snap.templates.get(entry.get("template"))
        if template is None or template.head.kind != cat.Enclosure.Kind.INTERNAL:
            return "paired"
    return "none"


def _clients(snap: CatalogueSnapshot, spec: dict, errors: dict) -> engine.ClientParams | None:
    c = spec.get("clients")
    if not c:
        return None
    adapter = _network_adapter(snap, c["adapter"], ("clients", "adapter"), errors)
    if adapter is None:
        return None
    return engine.ClientParams(
        count=c["count"],
        adapter=adapter_params(adapter),
        rpc_round_trip_ms=c.get("rpc_round_trip_ms") or 0.0,
        streams=c.get("streams") or 1,
    )


def _fabric(spec: dict, errors: dict) -> engine.FabricParams | None:
    f = spec.get("fabric")
    if not f:
        return None
    oversub = f.get("oversubscription") or 1.0
    if oversub > 1.0 and not spec.get("clients"):
        _put(
            errors,
            ("fabric", "oversubscription"),
            "an oversubscribed edge limits the clients' traffic: give `clients` (count and adapter) too",
        )
    return engine.FabricParams(oversubscription=oversub, core_gbps=f.get("core_gbps"))


def _resolved(snap: CatalogueSnapshot, key: tuple, build, errors: dict):
    """`build(errors)`, kept in the snapshot under `key` once it has resolved without adding an error (a
    refusal is worked out again each time, so its messages always reach `errors`)."""
    hit = snap.resolved.get(key)
    if hit is not None:
        return hit
    n_errors = len(str(errors))
    value = build(errors)
    if value is not None and len(str(errors)) == n_errors:
        snap.resolved[key] = value
    return value


def design_resolve(*, spec: dict, prices: dict | None = None, user=None, snapshot: CatalogueSnapshot | None = None) -> engine.DesignInput:
    """Build engine inputs from a DesignSpec; raise SpecError with field-level messages.

    `prices` is a frozen price-list snapshot (see `price_list_snapshot`) used instead of the
    current list when it is the list the spec names; `snapshot` a catalogue already loaded for
    this request (one query per kind), loaded here when not given."""
    spec = normalise_spec(spec)
    snap = snapshot or catalogue_snapshot(user=user)
    errors: dict = {}
    failover = _failover(snap, spec)
    # `paired` asked for a design none of whose lines can pair is refused; lines of internal bays
    # beside lines that can pair are left unpaired (and said so)
    refuse_paired = spec.get("failover") == "paired" and _failover(snap, {"bricks": spec["bricks"]}) == "none"
    groups = [_brick_group(snap, entry, i, refuse_paired, errors) for i, entry in enumerate(spec["bricks"])]
    rack = _resolved(snap, ("rack", spec["rack"]), lambda e: _rack(snap, spec["rack"], e), errors)
    tuning = _resolved(snap, ("tuning", spec["tuning"]), lambda e: _tuning(snap, spec["tuning"], e), errors)
    if prices and prices.get("slug") == spec["price_list"]:  # a saved design's frozen list
        price_params = _prices(snap, spec["price_list"], errors, prices)
    else:
        price_params = _resolved(snap, ("price_list", spec["price_list"]), lambda e: _prices(snap, spec["price_list"], e), errors)
    calibration = _calibration(spec, user, errors)
    metadata = None
    if spec["metadata"]["placement"] != "none":
        cell, mdt = spec["metadata"]["cell"], spec["metadata"].get("mdt")
        if mdt:
            metadata = _metadata(snap, cell, errors, mdt)
        else:
            metadata = _resolved(snap, ("metadata", cell), lambda e: _metadata(snap, cell, e, None), errors)
    clients = _clients(snap, spec, errors)
    fabric = _fabric(spec, errors)
    if rack is not None:
        for i, group in enumerate(groups):
            if group is not None and group.height_u > rack.usable_units:
                _put(
                    errors,
                    ("bricks", i, "template"),
                    f"one brick is {group.height_u}U and does not fit in a {rack.name} ({rack.usable_units}U under its switches)",
                )
        if metadata is not None and spec["metadata"]["placement"] == "in_rack" and metadata.height_u > rack.usable_units:
            _put(errors, ("metadata", "cell"), f"the metadata cell ({metadata.height_u}U) does not fit in a {rack.name}")
    if errors:
        raise SpecError(errors)
    notes = _link_notes(snap, spec["rack"], groups)
    if failover == "paired":
        alone = [g.name for g in groups if g.head.is_internal]
        if alone:
            notes = (
                f"{', '.join(dict.fromkeys(alone))}: the disks sit inside the servers, so no partner can take over; these bricks are not "
                "paired (a server down takes its OSTs offline), the design's other lines are.",
            ) + notes
    calibration_info = None
    if calibration is not None:
        groups, calibration_info = _apply_calibration(groups, calibration, tuning, snap)
    return engine.DesignInput(
        name=spec.get("name") or "Untitled design",
        bricks=tuple(groups),
        calibration=calibration_info,
        rack=rack,
        tuning=tuning,
        failover=failover,
        placement=spec["metadata"]["placement"],
        metadata=metadata,
        clients=clients,
        fabric=fabric,
        prices=price_params,
        notes=notes,
    )


def _link_notes(snap: CatalogueSnapshot, rack_slug: str, groups: list) -> tuple[str, ...]:
    """Warnings about the links of the lines' adapters, each once per design:

    - an adapter of a newer PCIe generation than its server's slots: its figures are capped at the
      slot's rate (see `adapter_in_slot`), and the warning says so;
    - a network adapter with no switch of its kind in the rack model (Ethernet adapters and a rack with
      only InfiniBand and 1 GbE management switches, say): the bill of materials buys no switch for
      them, so the price is short of one; the warning names rack models that have one;
    - an InfiniBand adapter faster than the rack model's fastest InfiniBand switch: such a link trains
      down to the switch's rate. The figures are not capped: a rack model's leaf switch stands for the
      site's network, and a site with EDR adapters has EDR switches; the warning says what the network
      stage would be at the switch's rate, so the architect can pick a rack model whose switch
      matches, or check that the site's does."""
    notes, seen = [], set()
    for group in groups:
        server = snap.servers.get(group.server.slug)
        for role, params in (("storage adapter", group.hba), ("network adapter", group.network)):
            adapter = snap.adapters.get(params.slug) if params is not None else None
            if adapter is None or server is None or (adapter.slug, server.slug) in seen:
                continue
            seen.add((adapter.slug, server.slug))
            if params.effective_gbps < adapter.effective_gbps - 1e-9:
                notes.append(
                    f"{adapter.name} is a PCIe {adapter.pcie_gen}.0 x{adapter.pcie_lanes} card; in the {server.name}'s PCIe {server.pcie_gen}.0 "
                    f"slots it moves at most {params.effective_gbps:.1f} GB/s, not {adapter.effective_gbps:.1f}: the {group.name}'s "
                    f"{'server' if role == 'storage adapter' else 'network'} stage is taken at that."
                )
    rack = snap.racks.get(rack_slug)
    if rack is None:
        return tuple(notes)
    switches = [rs.switch for rs in rack.rack_switches.all()]
    done = set()
    for group in groups:
        adapter = snap.adapters.get(group.network.slug)
        if adapter is None or adapter.slug in done:
            continue
        done.add(adapter.slug)
        fabric = _fabric_of(adapter)
        if fabric is None:
            continue
        if not _serves(switches, fabric, adapter):
            others = [r.name for r in snap.racks.values() if _serves([rs.switch for rs in r.rack_switches.all()], fabric, adapter)]
            names = sorted({sw.name for sw in switches})
            have = "only the " + " and the ".join(names) if names else "no switches"
            notes.append(
                f"{adapter.name} needs {'an InfiniBand' if fabric == cat.Switch.Kind.INFINIBAND else 'an Ethernet'} switch"
                + (
                    f" for data, of at least {max(adapter.port_gbps, DATA_ETHERNET_GBPS):g} Gb/s a port"
                    if fabric == cat.Switch.Kind.ETHERNET
                    else ""
                )
                + f", and the {rack.name} carries {have}: the bill of materials buys no switch for these adapters and the price leaves "
                "it out. "
                + (
                    f"Choose a rack model with one ({', '.join(others)}) or add the site's switches."
                    if others
                    else "Add the site's switches to the price."
                )
            )
            continue
        if fabric != cat.Switch.Kind.INFINIBAND:
            continue
        switch = max((sw for sw in switches if sw.kind == fabric), key=lambda sw: sw.port_gbps)
        if adapter.port_gbps <= switch.port_gbps * 1.02:  # same generation (FDR card 56.25, FDR switch 56 Gb/s)
            continue
        trained = min(adapter.link_gbps_at(switch.port_gbps), group.network.effective_gbps)
        notes.append(
            f"{adapter.name} ({adapter.port_gbps:g} Gb/s a port) is faster than the {switch.name} ({switch.port_gbps:g} Gb/s ports) of the {rack.name}: "
            f"through that switch the links train down to {switch.port_gbps:g} Gb/s, {trained:.1f} GB/s an adapter instead of "
            f"{group.network.effective_gbps:.1f}. The figures assume switches as fast as the adapters; choose a rack model with such a switch, "
            "or read the network stage at the lower rate."
        )
    return tuple(notes)


def _fabric_of(adapter) -> str | None:
    """The kind of switch a network adapter plugs into (None: not a network adapter)."""
    if adapter.kind == cat.Adapter.Kind.IB_HCA:
        return cat.Switch.Kind.INFINIBAND
    if adapter.kind == cat.Adapter.Kind.ETH_NIC:
        return cat.Switch.Kind.ETHERNET
    return None


DATA_ETHERNET_GBPS = 10
"""An Ethernet switch with slower ports is taken for the rack's management network, not for data
(the catalogue's racks carry a 1 GbE N2048 to manage servers and enclosures)."""


def _serves(switches, fabric: str, adapter) -> bool:
    """Whether one of `switches` takes `adapter`'s links: any InfiniBand switch for an HCA (a faster or
    slower generation trains to the common rate, warned about separately); for a NIC, a data Ethernet
    switch (10 GbE ports or faster) at least as fast as the adapter (a faster port takes slower links
    through breakout cables or port adapters)."""
    if fabric == cat.Switch.Kind.INFINIBAND:
        return any(sw.kind == fabric for sw in switches)
    return any(sw.kind == fabric and sw.port_gbps >= max(adapter.port_gbps, DATA_ETHERNET_GBPS) for sw in switches)


def design_evaluate(*, spec: dict, prices: dict | None = None, user=None, snapshot: CatalogueSnapshot | None = None) -> engine.Evaluation:
    """Evaluate a DesignSpec: usable PiB, GB/s and bottleneck, price, racks (see the v1 contract).
    `user` may use their own brick templates and name one of their calibrations in the spec."""
    return engine.evaluate(design_resolve(spec=spec, prices=prices, user=user, snapshot=snapshot))


def brick_template_summaries(*, tuning: str = "large-io") -> list[dict]:
    """Key figures of one brick of each template (default disk, no failover, no metadata):
    OSTs, raw TB, usable TiB, read/write GB/s with the limiting stage, height U, power W."""
    summaries = []
    snap = catalogue_snapshot()
    for template in sorted(snap.templates.values(), key=lambda t: (t.role, t.slug)):
        spec = {
            "bricks": [{"template": template.slug, "count": 1}],
            "metadata": {"placement": "none"},
            "failover": "none",
            "tuning": tuning,
        }
        try:
            evaluation = design_evaluate(spec=spec, snapshot=snap)
        except SpecError as exc:
            summaries.append({"template": template, "error": exc.errors})
            continue
        brick = evaluation.bricks[0]
        summaries.append(
            {
                "template": template,
                "osts": brick["osts_per_brick"],
                "disks": evaluation.counts["disks"],
                "raw_tb": evaluation.raw_tb,
                "usable_tib": evaluation.usable_tib,
                "read_gbps": brick["read_gbps_per_brick"],
                "write_gbps": brick["write_gbps_per_brick"],
                "bottleneck": brick["bottleneck"],
                "height_u": brick["height_u"],
                "power_w": evaluation.power_w
                - sum(item["power_w"] for rack in evaluation.racks for item in rack["items"] if item["kind"] == "switch"),
            }
        )
    return summaries


def metadata_cell_summaries() -> list[dict]:
    """Each catalogue metadata cell with its composed MDT storage: enclosures, disks, RAID layout,
    MDT count, usable capacity (TiB) and inodes at its bytes per inode."""
    from planner.engine.capacity import mdt_figures
    from planner.engine.units import TIB

    snap = catalogue_snapshot()
    out = []
    for slug in snap.choices("cells"):
        cell = snap.cells[slug]
        md = _metadata(snap, slug, {})
        mdt = None
        if md is not None and md.mdt is not None:
            figures = mdt_figures(md.mdt)
            raid = md.mdt.raid
            mdt = {
                "enclosures": md.mdt_enclosures,
                "enclosure": md.mdt.enclosure.name if md.mdt.enclosure else "",
                "disks": md.mdt.disks,
                "disk": md.mdt.disk.name,
                "raid": f"{raid.level.upper().replace('RAID', 'RAID ')} {raid.groups} x {raid.data}+{raid.parity}"
                + (f" + {raid.spares} spares" if raid.spares else ""),
                "mdts": md.mdt.mdts,
                "usable_tib": figures["usable_bytes"] / TIB,
                "usable_bytes": figures["usable_bytes"],
                "inodes_billion": figures["inodes"] / 1e9,
                "bytes_per_inode": md.mdt.bytes_per_inode,
                "capped": figures["capped"],
            }
        out.append({"cell": cell, "mdt": mdt})
    return out
