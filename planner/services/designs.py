"""Saved designs: create, update with optimistic locking, share, re-price, evaluate, compare."""

from __future__ import annotations

import secrets

from django.contrib.auth import get_user_model
from django.db import transaction
from django.db.models import F, Q, QuerySet
from django.utils import timezone

from planner import engine
from planner.models import Design
from planner.spec import SpecError, normalise_spec

from .catalogue import catalogue_snapshot
from .evaluation import design_evaluate, design_resolve, price_list_snapshot


class VersionConflict(Exception):
    """An update based on a version that is no longer current; nothing was changed."""

    def __init__(self, current: Design):
        super().__init__(f"design {current.pk} is at version {current.version}")
        self.current = current


class DesignNotFound(Exception):
    """No such design visible to this user (also raised for other users' designs: ids do not leak)."""


def designs_visible_to(user) -> QuerySet:
    """Designs a user may read: their own and those shared with them."""
    if user is None or not user.is_authenticated:
        return Design.objects.none()
    return Design.objects.filter(Q(owner=user) | Q(shared_with=user)).distinct()


def _check_spec(spec: dict, prices: dict | None = None, user=None) -> dict:
    """Normalise and resolve (raises SpecError); return the normalised spec."""
    normalised = normalise_spec(spec)
    try:
        design_resolve(spec=normalised, prices=prices, user=user)
    except SpecError as exc:
        raise exc.nested("spec") from None
    return normalised


def design_create(*, owner, name: str, spec: dict) -> Design:
    """Save a new design for `owner`, freezing the prices of the list it names."""
    normalised = _check_spec(spec, user=owner)
    name = name or normalised.get("name") or "Untitled design"
    return Design.objects.create(
        owner=owner,
        name=name,
        spec={**normalised, "name": name},  # one name: the evaluation, the sheet and the list all show the design's
        prices=price_list_snapshot(slug=normalised["price_list"]),
        priced_at=timezone.now(),
    )


@transaction.atomic
def design_update(*, design: Design, based_on_version: int, name: str | None = None, spec: dict | None = None) -> Design:
    """Change a design's name and/or spec if it is still at `based_on_version`; else VersionConflict.

    Prices stay frozen unless the spec names a different price list (then that list is frozen).
    """
    fields: dict = {"version": F("version") + 1, "updated_at": timezone.now()}
    if name is not None:
        fields["name"] = name
        fields["spec"] = {**design.spec, "name": name}  # the spec carries the design's name
    if spec is not None:
        normalised = normalise_spec(spec)
        frozen = design.prices if design.prices.get("slug") == normalised["price_list"] else None
        _check_spec(normalised, prices=frozen, user=design.owner)
        fields["spec"] = {**normalised, "name": name if name is not None else design.name}
        if frozen is None:
            fields["prices"] = price_list_snapshot(slug=normalised["price_list"])
            fields["priced_at"] = timezone.now()
    changed = Design.objects.filter(pk=design.pk, version=based_on_version).update(**fields)
    current = Design.objects.get(pk=design.pk)
    if not changed:
        raise VersionConflict(current)
    return current


@transaction.atomic
def design_reprice(*, design: Design, based_on_version: int | None = None) -> Design:
    """Freeze the current prices of the design's price list (a new version)."""
    snap = price_list_snapshot(slug=design.spec["price_list"])
    if snap is None:
        raise SpecError({"price_list": [f"price list '{design.spec['price_list']}' no longer exists"]})
    query = Design.objects.filter(pk=design.pk)
    if based_on_version is not None:
        query = query.filter(version=based_on_version)
    changed = query.update(prices=snap, priced_at=timezone.now(), version=F("version") + 1, updated_at=timezone.now())
    current = Design.objects.get(pk=design.pk)
    if not changed:
        raise VersionConflict(current)
    return current


def design_delete(*, design: Design) -> None:
    design.delete()


def share_with(obj, *, usernames: list[str] | None = None, link: bool | None = None):
    """Share a saved design or plan read-only with these users (replacing the list; its owner is left
    out) and/or switch its secret link on or off. An unknown username is a SpecError naming it."""
    if usernames is not None:
        users = list(get_user_model().objects.filter(username__in=usernames))
        missing = sorted(set(usernames) - {u.username for u in users})
        if missing:
            raise SpecError({"users": [f"unknown user '{name}'" for name in missing]})
        obj.shared_with.set([u for u in users if u.pk != obj.owner_id])
    if link is True and not obj.share_token:
        obj.share_token = secrets.token_urlsafe(24)
        obj.save(update_fields=["share_token"])
    elif link is False and obj.share_token:
        obj.share_token = None
        obj.save(update_fields=["share_token"])
    return obj


def design_share(*, design: Design, usernames: list[str] | None = None, link: bool | None = None) -> Design:
    """Share read-only with these users (replacing the list) and/or switch the secret link on or off."""
    return share_with(design, usernames=usernames, link=link)


def design_evaluation(*, design: Design) -> engine.Evaluation:
    """Evaluate a saved design with its frozen prices; warn when the price list has changed since."""
    try:
        evaluation = design_evaluate(spec=design.spec, prices=design.prices or None, user=design.owner)
    except SpecError as exc:
        raise exc.nested("spec") from None
    current = price_list_snapshot(slug=design.spec["price_list"])
    if current is not None and design.prices and current != design.prices:
        evaluation.warnings.append(
            f"Prices are frozen from {design.priced_at:%Y-%m-%d %H:%M} UTC; the price list '{current['slug']}' has changed since. "
            "Re-price the design to use the current prices."
        )
    return evaluation


def design_compare(*, entries: list[tuple], reference: int = 0, user=None) -> dict:
    """Compare 2-8 designs side by side. `entries` are (label, spec, frozen prices or None[, the user whose
    calibrations the spec may name]); `user` is that user for entries that do not say.

    Each row: usable PiB, read/write GB/s, price, relative price to the reference row, price per
    usable PiB and per read GB/s, racks, rack units, power. Raises SpecError naming the entry.
    """
    evaluations = []
    errors: list[dict] = [{} for _ in entries]  # as DRF lists a list's errors: one object per entry, {} where fine
    snapshots: dict = {}  # one catalogue load per user whose templates the entries use
    for i, entry in enumerate(entries):
        label, spec, prices = entry[:3]
        owner = entry[3] if len(entry) > 3 else user
        key = getattr(owner, "pk", None)
        if key not in snapshots:
            snapshots[key] = catalogue_snapshot(user=owner)
        try:
            evaluations.append((label, design_evaluate(spec=spec, prices=prices, user=owner, snapshot=snapshots[key])))
        except SpecError as exc:
            errors[i] = exc.errors
    if any(errors):
        raise SpecError({"designs": errors})
    reference_total = evaluations[reference][1].price["total"]
    currencies = {ev.price["currency"] for _, ev in evaluations}
    rows = []
    for i, (label, ev) in enumerate(evaluations):
        total = ev.price["total"]
        rows.append(
            {
                "index": i,
                "label": label,
                "name": ev.name,
                "usable_pib": round(ev.usable_pib, 4),
                "raw_tb": round(ev.raw_tb, 1),
                "read_gbps": round(ev.read_gbps, 2),
                "write_gbps": round(ev.write_gbps, 2),
                "bottleneck": ev.bottleneck,
                "price_total": total,
                "currency": ev.price["currency"],
                "relative_price": round(engine.cost.relative_price(total, reference_total), 4) if reference_total > 0 else None,
                "price_per_usable_pib": ev.price["per_usable_pib"],
                "price_per_read_gbps": ev.price["per_read_gbps"],
                "rack_count": ev.rack_count,
                "units_used": ev.units_used,
                "power_w": round(ev.power_w, 1),
                "weight_kg": round(ev.weight_kg, 1),
                "loss_probability": ev.reliability["annual_loss_probability"] if ev.reliability else None,
                "rebuild_hours": ev.reliability["rebuild_hours_max"] if ev.reliability else None,
                "warnings": ev.warnings,
            }
        )
    warnings = []
    if len(currencies) > 1:
        warnings.append("The designs are priced in different currencies; relative prices compare numbers, not money.")
    return {"reference": reference, "rows": rows, "warnings": warnings}


def design_reference(*, reference: str, user) -> tuple | None:
    """A reference design for relative prices: 'ex:<example slug>' or the id of a saved design `user` may
    read. Returns (name, spec, frozen prices or None, the user whose templates and calibrations it may
    name) or None when there is no such design visible to `user`."""
    from .examples import example_design

    reference = (reference or "").strip()
    if reference.startswith("ex:"):
        example = example_design(slug=reference[3:])
        return (example["name"], example["spec"], None, user) if example else None
    if reference.isdigit():
        ref = designs_visible_to(user).select_related("owner").filter(pk=int(reference)).first()
        return (ref.name, ref.spec, ref.prices or None, ref.owner) if ref else None
    return None


def design_reference_price(*, reference: str, user) -> dict:
    """The reference's name and price total (SpecError naming `reference` when it is unknown or no longer
    evaluates)."""
    ref = design_reference(reference=reference, user=user)
    if ref is None:
        raise SpecError(
            {"reference": [f"no reference design '{str(reference)[:40]}' visible to you; use 'ex:<example slug>' or a saved design id"]}
        )
    name, spec, prices, owner = ref
    try:
        ev = design_evaluate(spec=spec, prices=prices, user=owner)
    except SpecError:
        raise SpecError({"reference": [f"the reference design '{name}' can no longer be evaluated"]}) from None
    return {"token": reference, "name": name, "price_total": ev.price["total"], "currency": ev.price["currency"]}


def relative_to(*, price_total: float, currency: str, reference: dict | None) -> dict | None:
    """This price against a reference (from `design_reference_price`): the ratio through the engine, and
    whether the currencies differ (then the ratio compares numbers, not money)."""
    if reference is None:
        return None
    ratio = engine.cost.relative_price(price_total, reference["price_total"])
    return {
        **reference,
        "relative_price": round(ratio, 4) if ratio is not None else None,
        "currency_differs": currency != reference["currency"],
    }


DESIGN_TABLE_SORTS = ("name", "usable_pib", "read_gbps", "write_gbps", "price_total", "rack_count", "relative_price", "updated_at")


def designs_table(*, designs, reference: str = "", user=None, sort: str = "-updated_at") -> dict:
    """Rows for the "My designs" list: usable PiB, read/write GB/s, price, racks and the price relative to
    `reference` of each design, evaluated in one engine batch (one catalogue snapshot per owner).
    A design that no longer evaluates gets a row with its error. Sorted by `sort` (a column of
    DESIGN_TABLE_SORTS, '-' for descending; rows without the figure last)."""
    designs = list(designs)
    snapshots: dict = {}
    inputs, rows = [], []
    for d in designs:
        if d.owner_id not in snapshots:
            snapshots[d.owner_id] = catalogue_snapshot(user=d.owner)
        row = {"design": d, "id": d.id, "name": d.name, "updated_at": d.updated_at, "error": None}
        try:
            inputs.append((row, design_resolve(spec=d.spec, prices=d.prices or None, user=d.owner, snapshot=snapshots[d.owner_id])))
        except SpecError:
            row["error"] = "a part it names has changed since it was saved: open it to fix it"
        rows.append(row)
    evaluations = engine.evaluate_many([i for _, i in inputs]) if inputs else []
    ref, errors = None, []
    if reference:
        try:
            ref = design_reference_price(reference=reference, user=user)
        except SpecError as exc:
            errors += exc.errors["reference"]
    for (row, _), ev in zip(inputs, evaluations, strict=True):
        row.update(
            usable_pib=ev.usable_pib,
            read_gbps=ev.read_gbps,
            write_gbps=ev.write_gbps,
            price_total=ev.price["total"],
            currency=ev.price["currency"],
            rack_count=ev.rack_count,
        )
        rel = relative_to(price_total=ev.price["total"], currency=ev.price["currency"], reference=ref)
        row["relative_price"] = rel["relative_price"] if rel else None
    key = sort.lstrip("-")
    if key not in DESIGN_TABLE_SORTS:
        key, sort = "updated_at", "-updated_at"
    descending = sort.startswith("-")
    present = [r for r in rows if r.get(key) is not None]
    missing = [r for r in rows if r.get(key) is None]
    present.sort(key=lambda r: r[key].lower() if isinstance(r[key], str) else r[key], reverse=descending)
    return {"rows": present + missing, "reference": ref, "errors": errors, "sort": sort}


def _names(spec: dict, kind: str) -> set:
    """The catalogue slugs of one kind that a DesignSpec names."""
    bricks = [b for b in (spec or {}).get("bricks", []) if isinstance(b, dict)]
    metadata = (spec or {}).get("metadata") or {}
    clients = (spec or {}).get("clients") or {}
    mdt = metadata.get("mdt") or {} if isinstance(metadata, dict) else {}
    found = {
        "brick-templates": {b.get("template") for b in bricks},
        "disks": {b.get("disk") for b in bricks} | {mdt.get("disk") if isinstance(mdt, dict) else None},
        "adapters": {b.get("adapter") for b in bricks} | {clients.get("adapter") if isinstance(clients, dict) else None},
        "racks": {spec.get("rack")},
        "tuning-profiles": {spec.get("tuning")},
        "metadata-cells": {metadata.get("cell") if isinstance(metadata, dict) else None},
        "price-lists": {spec.get("price_list")},
    }.get(kind, set())
    return found - {None}


def designs_naming(*, kind: str, slug: str) -> list[tuple[int, str, str]]:
    """Saved designs (anyone's) whose spec names this catalogue record: (id, name, owner)."""
    from django.db.models import TextField
    from django.db.models.functions import Cast

    candidates = Design.objects.annotate(spec_text=Cast("spec", TextField())).filter(spec_text__contains=slug).select_related("owner")
    return [(d.id, d.name, d.owner.username) for d in candidates.order_by("id") if slug in _names(d.spec, kind)]
