"""Evaluation services: DesignSpec -> engine inputs (catalogue look-ups) -> Evaluation.

`design_resolve` turns a DesignSpec (validated JSON, see `planner.spec`) into engine inputs by
looking up the catalogue; `design_evaluate` evaluates it. Every front door (API, pages, PDF,
tasks) calls these functions; none computes a figure itself. A saved design passes its frozen
price snapshot (`prices=`) so that its quote does not move when the price list changes.
"""

from __future__ import annotations

from hardware_catalog import models as cat
from planner import engine
from planner.engine.units import link_payload_gbps
from planner.spec import SpecError, normalise_spec


def _disk(d: cat.Disk) -> engine.DiskParams:
    return engine.DiskParams(
        slug=d.slug,
        name=d.name,
        capacity_bytes=float(d.capacity_bytes),
        read_mbps=d.read_mbps,
        write_mbps=d.write_mbps,
        power_w=d.power_w,
        weight_kg=d.weight_kg,
    )


def _adapter(a: cat.Adapter | None) -> engine.AdapterParams | None:
    if a is None:
        return None
    return engine.AdapterParams(slug=a.slug, name=a.name, kind=a.kind, effective_gbps=a.effective_gbps, power_w=a.power_w)


def _enclosure(e: cat.Enclosure | None) -> engine.EnclosureParams | None:
    if e is None:
        return None
    return engine.EnclosureParams(
        slug=e.slug,
        name=e.name,
        kind=e.kind,
        height_u=e.height_u,
        drive_slots=e.drive_slots,
        controllers=e.controllers,
        controller_read_mbps=e.controller_read_mbps or 0.0,
        controller_write_mbps=e.controller_write_mbps or 0.0,
        controller_requests_per_s=e.controller_requests_per_s or 0.0,
        uplink_ports=e.uplink_ports,
        uplink_port_gbps=link_payload_gbps(e.uplink_lanes, e.uplink_lane_gbps, e.uplink_efficiency),
        max_expansions=e.max_expansions,
        power_w=e.power_w,
        weight_kg=e.weight_kg,
    )


def _part(obj, kind: str, power_w: float | None = None, weight_kg: float | None = None) -> engine.PartParams:
    return engine.PartParams(
        slug=obj.slug,
        name=obj.name,
        kind=kind,
        height_u=getattr(obj, "height_u", 0) or 0,
        power_w=obj.power_w if power_w is None else power_w,
        weight_kg=getattr(obj, "weight_kg", 0.0) if weight_kg is None else weight_kg,
    )


def _unknown(model, what: str, slug: str, queryset=None) -> str:
    """'unknown disk 'x'; known: a, b, c' (the choices listed when there are few)."""
    choices = list((queryset if queryset is not None else model.objects).order_by("slug").values_list("slug", flat=True)[:31])
    shown = slug if len(slug) <= 40 else slug[:40] + "…"
    known = f"; known: {', '.join(choices)}" if 0 < len(choices) <= 30 else ""
    return f"unknown {what} '{shown}'{known}"


def _get(model, slug: str, path: tuple, what: str, errors: dict, queryset=None):
    obj = (queryset if queryset is not None else model.objects).filter(slug=slug).first()
    if obj is None:
        _put(errors, path, _unknown(model, what, slug, queryset))
    return obj


def _network_adapter(slug: str, path: tuple, errors: dict) -> cat.Adapter | None:
    """A network adapter (InfiniBand HCA or Ethernet NIC); a SAS HBA is refused by name."""
    networks = cat.Adapter.objects.exclude(kind=cat.Adapter.Kind.SAS_HBA)
    adapter = cat.Adapter.objects.filter(slug=slug).first()
    if adapter is not None and adapter.kind == cat.Adapter.Kind.SAS_HBA:
        known = ", ".join(networks.order_by("slug").values_list("slug", flat=True))
        _put(errors, path, f"'{slug}' is a SAS HBA, not a network adapter; network adapters: {known}")
        return None
    if adapter is None:
        _put(errors, path, _unknown(cat.Adapter, "network adapter", slug, networks))
    return adapter


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


def _brick_group(entry: dict, index: int, errors: dict) -> engine.BrickGroup | None:
    path = ("bricks", index)
    template = (
        cat.BrickTemplate.objects.select_related("server", "hba", "network_adapter", "head", "expansion", "disk")
        .filter(slug=entry["template"])
        .first()
    )
    if template is None:
        _put(errors, path + ("template",), _unknown(cat.BrickTemplate, "brick template", entry["template"]))
        return None
    disk = template.disk
    if entry.get("disk"):
        disk = _get(cat.Disk, entry["disk"], path + ("disk",), "disk", errors)
    adapter = template.network_adapter
    if entry.get("adapter"):
        adapter = _network_adapter(entry["adapter"], path + ("adapter",), errors)
    expansions = template.expansions if entry.get("expansions") is None else entry["expansions"]
    if expansions > template.head.max_expansions:
        _put(
            errors,
            path + ("expansions",),
            f"the {template.head.name} takes no expansion enclosures"
            if template.head.max_expansions == 0
            else f"the {template.head.name} supports at most {template.head.max_expansions} expansion enclosures, not {expansions}",
        )
    elif expansions > 0 and template.expansion is None:
        _put(errors, path + ("expansions",), f"the brick template '{template.slug}' has no expansion enclosure model")
    if disk is not None:
        slots = template.groups_per_enclosure * template.group_size + template.spares_per_enclosure
        if slots > template.head.drive_slots:
            _put(errors, path + ("template",), "the template's RAID layout needs more slots than its head has")
        if disk.form_factor == "3.5" and template.head.drive_form_factor == "2.5":
            _put(errors, path + ("disk",), f"a 3.5 inch disk does not fit the {template.head.name}'s 2.5 inch bays")
    if disk is None or adapter is None or errors:
        return None
    sources = dict(template.sources)
    return engine.BrickGroup(
        template=template.slug,
        name=template.name,
        role=template.role,
        count=entry["count"],
        server=_part(template.server, "server"),
        servers_per_brick=template.servers_per_brick,
        hba=_adapter(template.hba),
        hba_count=template.hba_count if template.hba else 0,
        network=_adapter(adapter),
        network_count=template.network_adapter_count,
        head=_enclosure(template.head),
        expansion=_enclosure(template.expansion),
        expansions=expansions,
        disk=_disk(disk),
        raid_level=template.raid_level,
        raid_data_disks=template.raid_data_disks,
        raid_parity_disks=template.raid_parity_disks,
        segment_kib=template.segment_kib,
        groups_per_enclosure=template.groups_per_enclosure,
        spares_per_enclosure=template.spares_per_enclosure,
        host_ports=template.host_ports,
        fs_overhead_fraction=template.fs_overhead_fraction,
        software_raid_read_mbps=template.software_raid_read_mbps or 0.0,
        software_raid_write_mbps=template.software_raid_write_mbps or 0.0,
        sources={
            "raid_controller": f"catalogue: {template.head.slug} ({template.head.sources.get('controller_read_mbps', 'data sheet')})",
            "disks": f"catalogue: {disk.slug} ({disk.sources.get('read_mbps', 'data sheet')})",
            "network": f"catalogue: {adapter.slug} ({adapter.sources.get('pcie_effective_gbps', 'data sheet')})",
            **{k: v for k, v in sources.items() if k in ("host_ports", "fs_overhead_fraction")},
        },
    )


def _metadata(slug: str, errors: dict) -> engine.MetadataParams | None:
    cell = cat.MetadataCell.objects.filter(slug=slug).prefetch_related("items").first()
    if cell is None:
        _put(errors, ("metadata", "cell"), _unknown(cat.MetadataCell, "metadata cell", slug))
        return None
    models_by_kind = {"server": cat.Server, "enclosure": cat.Enclosure, "disk": cat.Disk, "adapter": cat.Adapter, "switch": cat.Switch}
    lines = []
    for item in cell.items.all():
        obj = models_by_kind[item.kind].objects.filter(slug=item.item_slug).first()
        if obj is None:
            _put(errors, ("metadata", "cell"), f"metadata cell '{slug}' names an unknown {item.kind} '{item.item_slug}'")
            continue
        lines.append(engine.inputs.MetadataLine(kind=item.kind, part=_part(obj, item.kind), count=item.count, role=item.role))
    return engine.MetadataParams(slug=cell.slug, name=cell.name, lines=tuple(lines))


def _rack(slug: str, errors: dict) -> engine.RackParams | None:
    rack = cat.Rack.objects.filter(slug=slug).prefetch_related("rack_switches__switch").first()
    if rack is None:
        _put(errors, ("rack",), _unknown(cat.Rack, "rack", slug))
        return None
    switches = tuple((_part(rs.switch, "switch"), rs.count) for rs in rack.rack_switches.all())
    return engine.RackParams(
        slug=rack.slug,
        name=rack.name,
        units=rack.units,
        power_budget_w=rack.power_budget_w,
        max_load_kg=rack.max_load_kg,
        weight_kg=rack.weight_kg,
        switches=switches,
    )


def price_list_snapshot(*, slug: str) -> dict | None:
    """The price list as plain JSON (to freeze in a saved design), or None if unknown."""
    price_list = cat.PriceList.objects.filter(slug=slug).prefetch_related("items").first()
    if price_list is None:
        return None
    return {
        "slug": price_list.slug,
        "name": price_list.name,
        "currency": price_list.currency,
        "illustrative": price_list.illustrative,
        "effective_date": price_list.effective_date.isoformat(),
        "service_years": price_list.service_years,
        "energy_price_per_kwh": float(price_list.energy_price_per_kwh),
        "pue": price_list.pue,
        "items": [[item.kind, item.item_slug, float(item.unit_price)] for item in price_list.items.all()],
    }


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


def _prices(slug: str, errors: dict, snapshot: dict | None = None) -> engine.PriceParams | None:
    if snapshot and snapshot.get("slug") == slug:
        return _prices_from_snapshot(snapshot)
    snap = price_list_snapshot(slug=slug)
    if snap is None:
        _put(errors, ("price_list",), _unknown(cat.PriceList, "price list", slug))
        return None
    return _prices_from_snapshot(snap)


def _tuning(slug: str, errors: dict) -> engine.TuningParams | None:
    t = cat.TuningProfile.objects.filter(slug=slug).first()
    if t is None:
        _put(errors, ("tuning",), _unknown(cat.TuningProfile, "tuning profile", slug))
        return None
    return engine.TuningParams(
        slug=t.slug,
        name=t.name,
        request_kib=t.request_kib,
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


def _apply_calibration(groups: list, cal, tuning: engine.TuningParams) -> tuple[list, dict]:
    import dataclasses

    from .calibrations import calibration_figures

    applied = calibration_figures(cal, tuning.software_read_efficiency, tuning.software_write_efficiency)
    out, used = [], []
    for group in groups:
        if group.template == cal.brick_template:
            group = dataclasses.replace(group, **applied["figures"], sources={**group.sources, **applied["sources"]})
            used.append(group.template)
        out.append(group)
    measured = sorted(applied["sources"])
    info = {
        "id": cal.id,
        "name": cal.name,
        "brick_template": cal.brick_template,
        "applied_to": used,
        "from_calibration": measured,
        "from_data_sheets": ["disks", "expansion_link", "raid_controller", "host_links", "server", "network"]
        + [f"software_efficiency_{op}" for op in ("read", "write") if f"software_efficiency_{op}" not in measured],
        "sources": applied["sources"],
    }
    return out, info


def design_resolve(*, spec: dict, prices: dict | None = None, user=None) -> engine.DesignInput:
    """Build engine inputs from a DesignSpec; raise SpecError with field-level messages.

    `prices` is a frozen price-list snapshot (see `price_list_snapshot`) used instead of the
    current list when it is the list the spec names."""
    spec = normalise_spec(spec)
    errors: dict = {}
    groups = [_brick_group(entry, i, errors) for i, entry in enumerate(spec["bricks"])]
    rack = _rack(spec["rack"], errors)
    tuning = _tuning(spec["tuning"], errors)
    price_params = _prices(spec["price_list"], errors, prices)
    calibration = _calibration(spec, user, errors)
    metadata = _metadata(spec["metadata"]["cell"], errors) if spec["metadata"]["placement"] != "none" else None
    clients = None
    if spec.get("clients"):
        adapter = _network_adapter(spec["clients"]["adapter"], ("clients", "adapter"), errors)
        if adapter is not None:
            clients = engine.ClientParams(count=spec["clients"]["count"], adapter=_adapter(adapter))
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
    calibration_info = None
    if calibration is not None:
        groups, calibration_info = _apply_calibration(groups, calibration, tuning)
    return engine.DesignInput(
        name=spec.get("name") or "Untitled design",
        bricks=tuple(groups),
        calibration=calibration_info,
        rack=rack,
        tuning=tuning,
        failover=spec["failover"],
        placement=spec["metadata"]["placement"],
        metadata=metadata,
        clients=clients,
        prices=price_params,
    )


def design_evaluate(*, spec: dict, prices: dict | None = None, user=None) -> engine.Evaluation:
    """Evaluate a DesignSpec: usable PiB, GB/s and bottleneck, price, racks (see the v1 contract).
    `user` may name one of their calibrations in the spec."""
    return engine.evaluate(design_resolve(spec=spec, prices=prices, user=user))


def brick_template_summaries(*, tuning: str = "large-io") -> list[dict]:
    """Key figures of one brick of each template (default disk, no failover, no metadata):
    OSTs, raw TB, usable TiB, read/write GB/s with the limiting stage, height U, power W."""
    summaries = []
    for template in cat.BrickTemplate.objects.select_related("server", "head", "expansion", "disk", "network_adapter").order_by(
        "role", "slug"
    ):
        spec = {
            "bricks": [{"template": template.slug, "count": 1}],
            "metadata": {"placement": "none"},
            "failover": "none",
            "tuning": tuning,
        }
        try:
            evaluation = design_evaluate(spec=spec)
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
