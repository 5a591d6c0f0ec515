"""The catalogue as engine inputs: each kind of part loaded once (one query per kind), then
resolution is pure. `catalogue_snapshot` is what every evaluation, solve and export resolves
against; it converts ORM records into the engine's dataclasses.

The shared part of the catalogue (every record without an owner, and the price lists) is kept in
memory per process and reused by every request until the catalogue changes: a change anywhere in
the catalogue app (save, delete, many-to-many change) bumps a version key in Django's cache (Redis
in production, so every gunicorn and Celery process sees it) at once and again when the
transaction commits; each request compares its process's copy with that key (one cache read, no
SQL). `CATALOGUE_SNAPSHOT_MAX_AGE` seconds (default 300) bounds how old a copy can get should a
change bypass the signals (raw SQL) or the cache be unreachable. Users' own brick templates are
read per request (one query, signed-in users only). The records in a shared snapshot are read by
many requests at once: never modify them.
"""

from __future__ import annotations

import dataclasses
import logging
import threading
import time
import uuid
from dataclasses import dataclass, field

from django.conf import settings
from django.core.cache import cache
from django.db import transaction
from django.db.models import Q

from hardware_catalog import models as cat
from planner import engine
from planner.engine.units import link_payload_gbps, pcie_slot_gbps


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
        afr_percent=d.afr_percent or 0.0,
        ure_per_bit=d.ure_per_bit or 0.0,
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
        line_gbps=a.port_gbps,
        cable=accessory_params(a.cable),
    )


def adapter_in_slot(a: cat.Adapter, server: cat.Server) -> engine.AdapterParams:
    """An adapter as it works in `server`'s PCIe slots: a card of a newer PCIe generation than the
    server's runs at the server's (a PCIe 4.0 HDR card in a PCIe 3.0 slot moves about half its own
    PCIe payload), so its payload and each port's are capped there."""
    params = adapter_params(a)
    slot = pcie_slot_gbps(a.pcie_effective_gbps, a.pcie_gen, server.pcie_gen)
    if slot >= a.pcie_effective_gbps:
        return params
    return dataclasses.replace(params, effective_gbps=min(params.effective_gbps, slot), port_gbps=min(params.per_port_gbps, slot))


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
    resolved: dict = field(default_factory=dict, repr=False, compare=False)
    """Engine inputs resolved from this snapshot by slug alone (rack models, tuning profiles, price
    lists, metadata cells as the catalogue has them, catalogue parts' parameters), kept for the
    snapshot's life: they cannot change while it lives. A user's snapshot (their templates added) shares the dict, as these do not
    depend on templates. See `planner.services.evaluation._resolved`."""

    def choices(self, kind: str, keep=None) -> list[str]:
        return sorted(slug for slug, obj in getattr(self, kind).items() if keep is None or keep(obj))


def visible_templates(user):
    """Brick templates a user may use: the catalogue's, their own and those shared with them."""
    qs = cat.BrickTemplate.objects.all()
    if user is not None and getattr(user, "is_authenticated", False):
        return qs.filter(Q(owner__isnull=True) | Q(owner=user) | Q(shared_with=user)).distinct()
    return qs.filter(owner__isnull=True)


_TEMPLATE_RELATIONS = ("server", "hba__cable", "network_adapter__cable", "head__cable", "expansion__cable", "disk")


def _load_price_lists() -> dict:
    """Every price list as plain JSON (see `planner.services.evaluation.price_list_snapshot`)."""
    lists = {}
    for price_list in cat.PriceList.objects.prefetch_related("items"):
        lists[price_list.slug] = {
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
    return lists


def load_catalogue_snapshot(*, user=None) -> CatalogueSnapshot:
    """Load the catalogue from the database: one query per kind (racks and cells with their lines)."""
    return CatalogueSnapshot(
        disks={d.slug: d for d in cat.Disk.objects.all()},
        servers={s.slug: s for s in cat.Server.objects.all()},
        enclosures={e.slug: e for e in cat.Enclosure.objects.select_related("cable")},
        adapters={a.slug: a for a in cat.Adapter.objects.select_related("cable")},
        templates={t.slug: t for t in visible_templates(user).select_related(*_TEMPLATE_RELATIONS)},
        racks={
            r.slug: r
            for r in cat.Rack.objects.select_related("pdu", "uplink_cable", "blanking_panel", "rail_kit").prefetch_related(
                "rack_switches__switch"
            )
        },
        tuning={t.slug: t for t in cat.TuningProfile.objects.all()},
        cells={c.slug: c for c in cat.MetadataCell.objects.select_related("mdt_enclosure", "mdt_disk").prefetch_related("items")},
        price_lists=_load_price_lists(),
    )


log = logging.getLogger(__name__)
VERSION_KEY = "planner:catalogue-version"
_lock = threading.Lock()
_shared: dict = {"version": None, "snapshot": None, "loaded": 0.0}
stats = {"loads": 0}  # how often this process loaded the catalogue from the database (tests, metrics)


def _current_version() -> str | None:
    """The catalogue's version as the cache knows it (set one when there is none); None when the cache
    cannot be reached (then the copy's age alone decides)."""
    try:
        version = cache.get(VERSION_KEY)
        if version is None:
            cache.add(VERSION_KEY, uuid.uuid4().hex, timeout=None)
            version = cache.get(VERSION_KEY)
        return version
    except Exception:  # noqa: BLE001 - a cache outage must not stop evaluations
        log.warning("catalogue version: cache unreachable; the in-memory catalogue ages out instead", exc_info=True)
        return None


def catalogue_changed(**_kwargs) -> None:
    """Mark the catalogue changed: every process reloads its copy on its next request. Called by the
    catalogue models' signals, at once and again when the transaction commits (so that no process
    keeps a copy read between the change and its commit)."""

    def bump():
        with _lock:
            _shared.update(version=None, snapshot=None, loaded=0.0)
        try:
            cache.set(VERSION_KEY, uuid.uuid4().hex, timeout=None)
        except Exception:  # noqa: BLE001
            log.warning("catalogue version: cache unreachable; other processes see the change within the snapshot's maximum age")

    bump()
    if transaction.get_connection().in_atomic_block:
        transaction.on_commit(bump)


def shared_snapshot() -> CatalogueSnapshot:
    """The catalogue without users' own templates, from this process's memory while it is current."""
    max_age = float(getattr(settings, "CATALOGUE_SNAPSHOT_MAX_AGE", 300))
    version = _current_version()
    snap = _shared["snapshot"]
    if snap is not None and version is not None and _shared["version"] == version and time.monotonic() - _shared["loaded"] < max_age:
        return snap
    if snap is not None and version is None and time.monotonic() - _shared["loaded"] < max_age:
        return snap
    snap = load_catalogue_snapshot()
    with _lock:
        _shared.update(version=version, snapshot=snap, loaded=time.monotonic())
        stats["loads"] += 1
    return snap


def catalogue_snapshot(*, user=None) -> CatalogueSnapshot:
    """The catalogue a request resolves against: the shared in-memory copy, plus (for a signed-in user)
    their own brick templates and those shared with them, read now (one query)."""
    snap = shared_snapshot()
    if user is None or not getattr(user, "is_authenticated", False):
        return snap
    own = (
        cat.BrickTemplate.objects.filter(owner__isnull=False)
        .filter(Q(owner=user) | Q(shared_with=user))
        .distinct()
        .select_related(*_TEMPLATE_RELATIONS)
    )
    return dataclasses.replace(snap, templates={**snap.templates, **{t.slug: t for t in own}})
