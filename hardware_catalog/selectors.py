"""Read queries over the catalogue, with the joins each kind needs (constant query counts)."""

from __future__ import annotations

from django.db.models import QuerySet

from . import models

CATALOGUE_KINDS = (
    "disks",
    "servers",
    "enclosures",
    "adapters",
    "switches",
    "accessories",
    "racks",
    "tuning-profiles",
    "brick-templates",
    "metadata-cells",
    "price-lists",
)


def catalogue_queryset(kind: str) -> QuerySet:
    """All records of one catalogue kind (API name, e.g. 'brick-templates'), ordered by slug."""
    if kind == "disks":
        return models.Disk.objects.order_by("capacity_tb", "slug")
    if kind == "servers":
        return models.Server.objects.order_by("slug")
    if kind == "enclosures":
        return models.Enclosure.objects.order_by("kind", "slug")
    if kind == "adapters":
        return models.Adapter.objects.order_by("kind", "slug")
    if kind == "switches":
        return models.Switch.objects.order_by("slug")
    if kind == "accessories":
        return models.Accessory.objects.order_by("kind", "slug")
    if kind == "racks":
        return (
            models.Rack.objects.select_related("pdu", "uplink_cable", "blanking_panel", "rail_kit")
            .prefetch_related("rack_switches__switch")
            .order_by("units", "slug")
        )
    if kind == "tuning-profiles":
        return models.TuningProfile.objects.order_by("slug")
    if kind == "brick-templates":
        return (
            models.BrickTemplate.objects.filter(owner__isnull=True)
            .select_related("server", "hba", "network_adapter", "head", "expansion", "disk")
            .order_by("slug")
        )
    if kind == "metadata-cells":
        return models.MetadataCell.objects.select_related("mdt_enclosure", "mdt_disk").prefetch_related("items").order_by("slug")
    if kind == "price-lists":
        return models.PriceList.objects.prefetch_related("items").order_by("slug")
    raise KeyError(kind)
