"""The catalogue as engine inputs: each kind of part loaded once (one query per kind), then
resolution is pure. `catalogue_snapshot` is what every evaluation, solve and export resolves
against; it converts ORM records into the engine's dataclasses.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from django.db.models import Q

from hardware_catalog import models as cat
from planner import engine
from planner.engine.units import link_payload_gbps


def disk_params(d: cat.Disk) -> engine.DiskParams:
    return engine.DiskParams(
        slug=d.slug,
        name=d.name,
        capacity_bytes=float(d.capacity_bytes),
        read_mbps=d.read_mbps,
        write_mbps=d.write_mbps,
        inner_mbps=d.inner_mbps,
        power_w=d.power_w,
        weight_kg=d.weight_kg,
        form_factor=d.form_factor,
        interface=d.interface,
    )


def accessory_params(a: cat.Accessory | None) -> engine.PartParams | None:
    """An accessory (PDU, cable, rail kit, blanking panel) as a part, or None."""
    return part_params(a, "accessory") if a is not None else None


def adapter_params(a: cat.Adapter) -> engine.AdapterParams:
    port = a.port_gbps * a.encoding_efficiency * a.protocol_efficiency / 8.0
    return engine.AdapterParams(
        slug=a.slug,
        name=a.name,
        kind=a.kind,
        effective_gbps=a.effective_gbps,
        power_w=a.power_w,
        ports=a.ports,
        port_gbps=min(port, a.pcie_effective_gbps),
        cable=accessory_params(a.cable),
    )


def enclosure_params(e: cat.Enclosure) -> engine.EnclosureParams:
    return engine.EnclosureParams(
        slug=e.slug,
        name=e.name,
        kind=e.kind,
        height_u=e.height_u,
        drive_slots=e.drive_slots,
        drive_form_factor=e.drive_form_factor,
        controllers=e.controllers,
        controller_read_mbps=e.controller_read_mbps or 0.0,
        controller_write_mbps=e.controller_write_mbps or 0.0,
        controller_requests_per_s=e.controller_requests_per_s or 0.0,
        uplink_ports=e.uplink_ports,
        uplink_port_gbps=link_payload_gbps(e.uplink_lanes, e.uplink_lane_gbps, e.uplink_efficiency),
        max_expansions=e.max_expansions,
        power_w=e.power_w,
        weight_kg=e.weight_kg,
        cache_merge=e.cache_merge or 0.0,
        max_request_kib=e.max_request_kib or 0,
        cable=accessory_params(e.cable),
    )


def server_params(s: cat.Server) -> engine.ServerParams:
    return engine.ServerParams(
        slug=s.slug,
        name=s.name,
        height_u=s.height_u,
        power_w=s.power_w,
        weight_kg=s.weight_kg,
        pcie_slots=s.pcie_slots,
        internal_bays=s.internal_bays,
    )


def part_params(obj, kind: str) -> engine.PartParams:
    return engine.PartParams(
        slug=obj.slug,
        name=obj.name,
        kind=kind,
        height_u=getattr(obj, "height_u", 0) or 0,
        power_w=obj.power_w,
        weight_kg=getattr(obj, "weight_kg", 0.0) or 0.0,
    )


@dataclass
class CatalogueSnapshot:
    """Every kind of catalogue part keyed by slug, as ORM records (for names and sources) and
    engine parameters. Brick templates are those the user may use: the catalogue's, their own and
    those shared with them."""

    disks: dict
    servers: dict
    enclosures: dict
    adapters: dict
    templates: dict
    racks: dict
    tuning: dict
    cells: dict
    price_lists: dict = field(default_factory=dict)

    def choices(self, kind: str, keep=None) -> list[str]:
        return sorted(slug for slug, obj in getattr(self, kind).items() if keep is None or keep(obj))


def visible_templates(user):
    """Brick templates a user may use: the catalogue's, their own and those shared with them."""
    qs = cat.BrickTemplate.objects.all()
    if user is not None and getattr(user, "is_authenticated", False):
        return qs.filter(Q(owner__isnull=True) | Q(owner=user) | Q(shared_with=user)).distinct()
    return qs.filter(owner__isnull=True)


def catalogue_snapshot(*, user=None) -> CatalogueSnapshot:
    """Load the catalogue once: one query per kind (racks and cells with their lines)."""
    return CatalogueSnapshot(
        disks={d.slug: d for d in cat.Disk.objects.all()},
        servers={s.slug: s for s in cat.Server.objects.all()},
        enclosures={e.slug: e for e in cat.Enclosure.objects.select_related("cable")},
        adapters={a.slug: a for a in cat.Adapter.objects.select_related("cable")},
        templates={
            t.slug: t
            for t in visible_templates(user).select_related(
                "server", "hba__cable", "network_adapter__cable", "head__cable", "expansion__cable", "disk"
            )
        },
        racks={
            r.slug: r
            for r in cat.Rack.objects.select_related("pdu", "uplink_cable", "blanking_panel", "rail_kit").prefetch_related(
                "rack_switches__switch"
            )
        },
        tuning={t.slug: t for t in cat.TuningProfile.objects.all()},
        cells={c.slug: c for c in cat.MetadataCell.objects.select_related("mdt_enclosure", "mdt_disk").prefetch_related("items")},
    )
