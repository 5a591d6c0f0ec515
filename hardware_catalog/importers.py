"""Load the catalogue from the YAML files in `fixtures/` (one file per kind), keyed by slug.

By default only records that do not exist yet are created, so `make run` never overwrites what
an administrator edited; `update=True` (`load_catalogue --update`) rewrites shipped records.
Every record is validated with `full_clean()`, so a fixture without source notes fails loudly.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from decimal import Decimal
from pathlib import Path

import yaml
from django.core.exceptions import ValidationError
from django.db import models as dj_models
from django.db import transaction

from . import models

FIXTURES_DIR = Path(__file__).resolve().parent.parent / "fixtures"

# File name -> model, in dependency order.
SIMPLE_KINDS: list[tuple[str, type]] = [
    ("accessories.yaml", models.Accessory),
    ("disks.yaml", models.Disk),
    ("servers.yaml", models.Server),
    ("enclosures.yaml", models.Enclosure),
    ("adapters.yaml", models.Adapter),
    ("switches.yaml", models.Switch),
    ("tuning.yaml", models.TuningProfile),
]

ACCESSORY_KEYS = {
    models.Adapter: ("cable",),
    models.Enclosure: ("cable",),
    models.Rack: ("pdu", "uplink_cable", "blanking_panel", "rail_kit"),
}
"""Fields naming an accessory by slug, per model."""

BRICK_FOREIGN_KEYS = {
    "server": models.Server,
    "hba": models.Adapter,
    "network_adapter": models.Adapter,
    "head": models.Enclosure,
    "expansion": models.Enclosure,
    "disk": models.Disk,
}


class CatalogueLoadError(Exception):
    """A fixture file is malformed or a record does not validate."""


@dataclass
class LoadReport:
    """What a load did, per kind: slugs created, updated and left as they were."""

    created: dict[str, list[str]] = field(default_factory=dict)
    updated: dict[str, list[str]] = field(default_factory=dict)
    kept: dict[str, list[str]] = field(default_factory=dict)

    def add(self, bucket: str, kind: str, slug: str) -> None:
        getattr(self, bucket).setdefault(kind, []).append(slug)

    def summary(self) -> str:
        kinds = sorted(set(self.created) | set(self.updated) | set(self.kept))
        parts = []
        for kind in kinds:
            parts.append(
                f"{kind}: {len(self.created.get(kind, []))} created, "
                f"{len(self.updated.get(kind, []))} updated, {len(self.kept.get(kind, []))} kept"
            )
        return "; ".join(parts)


def read_fixture(path: Path) -> list[dict]:
    """Read one fixture file: a YAML mapping with a `records` list."""
    try:
        data = yaml.safe_load(path.read_text())
    except yaml.YAMLError as exc:
        raise CatalogueLoadError(f"{path.name}: not valid YAML: {exc}") from exc
    if not isinstance(data, dict) or not isinstance(data.get("records"), list):
        raise CatalogueLoadError(f"{path.name}: expected a mapping with a 'records' list")
    return data["records"]


def _resolve(model: type, slug: str | None, context: str):
    if slug in (None, ""):
        return None
    try:
        return model.objects.get(slug=slug)
    except model.DoesNotExist as exc:
        raise CatalogueLoadError(f"{context}: unknown {model.__name__} slug {slug!r}") from exc


def _coerce(model: type, key: str, value):
    """YAML floats become Decimals (via their text) for decimal fields, so 0.3 stays 0.3."""
    try:
        field_obj = model._meta.get_field(key)
    except Exception:
        return value
    if isinstance(field_obj, dj_models.DecimalField) and isinstance(value, (int, float)):
        return Decimal(str(value))
    return value


def _save(model: type, record: dict, report: LoadReport, update: bool, kind: str):
    """Create (or, with update, overwrite) one record; return the instance."""
    record = dict(record)
    slug = record.get("slug")
    if not slug:
        raise CatalogueLoadError(f"{kind}: a record has no slug")
    instance = model.objects.filter(slug=slug).first()
    if instance is not None and not update:
        report.add("kept", kind, slug)
        return instance, False
    bucket = "updated" if instance is not None else "created"
    instance = instance or model(slug=slug)
    for key, value in record.items():
        setattr(instance, key, _coerce(model, key, value))
    try:
        instance.full_clean(validate_unique=False)
    except ValidationError as exc:
        raise CatalogueLoadError(f"{kind} {slug}: {exc.message_dict}") from exc
    instance.save()
    report.add(bucket, kind, slug)
    return instance, True


@transaction.atomic
def load_catalogue(directory: Path = FIXTURES_DIR, *, update: bool = False) -> LoadReport:
    """Load every fixture file in `directory`; all or nothing."""
    report = LoadReport()
    for filename, model in SIMPLE_KINDS:
        for record in read_fixture(directory / filename):
            record = dict(record)
            for key in ACCESSORY_KEYS.get(model, ()):
                record[key] = _resolve(models.Accessory, record.get(key), f"{model.__name__} {record.get('slug')}")
            _save(model, record, report, update, model.__name__)

    for record in read_fixture(directory / "racks.yaml"):
        record = dict(record)
        switches = record.pop("switches", [])
        for key in ACCESSORY_KEYS[models.Rack]:
            record[key] = _resolve(models.Accessory, record.get(key), f"rack {record.get('slug')}")
        rack, written = _save(models.Rack, record, report, update, "Rack")
        if written:
            rack.rack_switches.all().delete()
            for entry in switches:
                switch = _resolve(models.Switch, entry["switch"], f"rack {rack.slug}")
                models.RackSwitch.objects.create(rack=rack, switch=switch, count=entry.get("count", 1))

    for record in read_fixture(directory / "bricks.yaml"):
        record = dict(record)
        for key, model in BRICK_FOREIGN_KEYS.items():
            record[key] = _resolve(model, record.get(key), f"brick template {record.get('slug')}")
        _save(models.BrickTemplate, record, report, update, "BrickTemplate")

    for record in read_fixture(directory / "metadata.yaml"):
        record = dict(record)
        items = record.pop("items", [])
        record["mdt_enclosure"] = _resolve(models.Enclosure, record.get("mdt_enclosure"), f"metadata cell {record.get('slug')}")
        record["mdt_disk"] = _resolve(models.Disk, record.get("mdt_disk"), f"metadata cell {record.get('slug')}")
        cell, written = _save(models.MetadataCell, record, report, update, "MetadataCell")
        if written:
            cell.items.all().delete()
            for item in items:
                _check_part(item["kind"], item["item_slug"], f"metadata cell {cell.slug}")
                models.MetadataCellItem.objects.create(cell=cell, **item)

    for record in read_fixture(directory / "prices.yaml"):
        record = dict(record)
        items = record.pop("items", [])
        slug = record.get("slug")
        price_list = models.PriceList.objects.filter(slug=slug).first()
        if price_list is not None and not update:
            report.add("kept", "PriceList", slug)
            continue
        report.add("updated" if price_list else "created", "PriceList", slug)
        price_list = price_list or models.PriceList(slug=slug)
        for key, value in record.items():
            setattr(price_list, key, _coerce(models.PriceList, key, value))
        price_list.full_clean(validate_unique=False)
        price_list.save()
        price_list.items.all().delete()
        for item in items:
            if item["kind"] != models.PriceItem.Kind.SERVICE:
                _check_part(item["kind"], item["item_slug"], f"price list {slug}")
            models.PriceItem.objects.create(price_list=price_list, **item)
    return report


PART_MODELS = {
    "accessory": models.Accessory,
    "disk": models.Disk,
    "server": models.Server,
    "enclosure": models.Enclosure,
    "adapter": models.Adapter,
    "switch": models.Switch,
    "rack": models.Rack,
}


def _check_part(kind: str, slug: str, context: str) -> None:
    model = PART_MODELS.get(kind)
    if model is None:
        raise CatalogueLoadError(f"{context}: unknown part kind {kind!r}")
    _resolve(model, slug, context)
