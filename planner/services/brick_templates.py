"""Users' own brick templates: composed of catalogue parts, owned, shareable read-only like designs.

A user's template is a `BrickTemplate` row with an `owner`; the catalogue's have none. Its figures
all come from its parts (server, head, expansion enclosure, disk, adapters), so every figure the
engine reads from the template itself gets the source note "user template by <username>: composed
of catalogue parts", and the model's `full_clean` passes. What the parts cannot hold (more disks
than bays, a 3.5-inch disk in 2.5-inch bays, more adapters than PCIe slots, ZFS on a RAID
controller, ...) is refused naming the template's field. Every template is then resolved and
evaluated once as a one-brick design, so a template that saves is one that evaluates.
"""

from __future__ import annotations

from django.contrib.auth import get_user_model
from django.core.exceptions import ValidationError
from django.db import IntegrityError, transaction
from django.db.models import F, QuerySet, TextField
from django.db.models.functions import Cast

from hardware_catalog import models as cat
from planner.models import Design
from planner.spec import SpecError, raid_parity, raid_parity_problem

from .catalogue import catalogue_snapshot, visible_templates

Kind = cat.Enclosure.Kind
SAN_KINDS = (Kind.ISCSI_ARRAY, Kind.FC_ARRAY)
FIELDS = (
    "slug",
    "name",
    "description",
    "role",
    "server",
    "servers_per_brick",
    "hba",
    "hba_count",
    "network_adapter",
    "network_adapter_count",
    "head",
    "expansion",
    "expansions",
    "disk",
    "raid_level",
    "raid_data_disks",
    "raid_parity_disks",
    "segment_kib",
    "groups_per_enclosure",
    "spares_per_enclosure",
    "host_ports",
    "fs_overhead_fraction",
    "software_raid_read_mbps",
    "software_raid_write_mbps",
)
"""The fields a user sets (parts as model instances); `owner`, `sources` and `shared_with` are the service's."""

LDISKFS_OVERHEAD = 0.00032
"""Share of an ldiskfs OST that df does not show, as the catalogue's ldiskfs templates (fixtures/bricks.yaml)."""
ZFS_OVERHEAD = 0.002
"""Share of a ZFS OST holding its own metadata, as the catalogue's ZFS template (fixtures/bricks.yaml)."""


class TemplateInUse(Exception):
    """A template that saved designs still name; `designs` are (id, name, owner username)."""

    def __init__(self, slug: str, designs: list[tuple[int, str, str]]):
        super().__init__(f"brick template '{slug}' is used by {len(designs)} saved designs")
        self.slug = slug
        self.designs = designs


def source_note(username: str, extra: str = "") -> str:
    """The source note of a user's template figures."""
    note = f"user template by {username}: composed of catalogue parts"
    return f"{note}; {extra}" if extra else note


def brick_templates_visible_to(user) -> QuerySet:
    """Brick templates a user may read and use: the catalogue's, their own and those shared with them
    (anonymous: the catalogue's). The catalogue's come first, then by slug."""
    return (
        visible_templates(user)
        .select_related("owner", "server", "hba", "network_adapter", "head", "expansion", "disk")
        .prefetch_related("shared_with")
        .order_by(F("owner").asc(nulls_first=True), "slug")
    )


def suggested_slug(*, username: str, slug: str) -> str:
    """`<username>-<slug>`, or with -2, -3, ... when that is taken too (at most 80 characters)."""
    base = slug if slug.startswith(f"{username}-") else f"{username}-{slug}"
    base = base[:76].strip("-")
    candidate, n = base, 1
    while cat.BrickTemplate.objects.filter(slug__iexact=candidate).exists():
        n += 1
        candidate = f"{base}-{n}"
    return candidate


def _parity_for(level: str, data: int) -> int:
    return raid_parity(level, data)


def _default_host_ports(t: cat.BrickTemplate) -> int:
    if t.hba_id and t.hba_count:
        ports = t.hba.ports * t.hba_count
        return min(ports, t.head.uplink_ports) if t.head.uplink_ports else ports
    return t.head.uplink_ports or 1


def _fill_defaults(t: cat.BrickTemplate, given: set[str]) -> None:
    """Derive what the user left out from the parts: parity from the level, RAID groups that fit the
    head, host ports from the HBAs, file-system overhead from the file system, the role from the head."""
    if "hba_count" not in given and t.hba_id and not t.hba_count:
        t.hba_count = 1
    if "raid_parity_disks" not in given and t.raid_level and t.raid_data_disks:
        t.raid_parity_disks = _parity_for(t.raid_level, t.raid_data_disks)
    if t.head_id is None:
        return
    if "groups_per_enclosure" not in given and t.raid_data_disks and t._state.adding:
        size = t.raid_data_disks + (t.raid_parity_disks or 0)
        t.groups_per_enclosure = max(1, (t.head.drive_slots - (t.spares_per_enclosure or 0)) // max(size, 1))
    if "host_ports" not in given and t._state.adding:
        t.host_ports = _default_host_ports(t)
    if "fs_overhead_fraction" not in given and t._state.adding:
        t.fs_overhead_fraction = ZFS_OVERHEAD if (t.raid_level or "").startswith("raidz") else LDISKFS_OVERHEAD
    if "role" not in given and t._state.adding:
        kind = t.head.kind
        t.role = {
            Kind.INTERNAL: "internal",
            Kind.JBOD: "jbod",
            Kind.ISCSI_ARRAY: "iscsi",
            Kind.FC_ARRAY: "san",
        }.get(kind, "capacity" if t.expansions else "performance")


def _put(errors: dict, field: str, message: str) -> None:
    errors.setdefault(field, []).append(message)


def _check_raid(t: cat.BrickTemplate, errors: dict) -> None:
    level, data, parity = t.raid_level, t.raid_data_disks, t.raid_parity_disks
    if problem := raid_parity_problem(level, data, parity):
        _put(errors, "raid_parity_disks", problem)
    if level.startswith("raidz") and t.head.controllers > 0:
        _put(
            errors,
            "raid_level",
            f"{level} is ZFS software RAID and needs disks the server sees directly (a JBOD); "
            f"the {t.head.name}'s controllers do raid5, raid6 or raid10",
        )


def _check_bays(t: cat.BrickTemplate, errors: dict) -> None:
    head, server = t.head, t.server
    disks = t.groups_per_enclosure * (t.raid_data_disks + t.raid_parity_disks) + t.spares_per_enclosure
    layout = f"{t.groups_per_enclosure} x {t.raid_data_disks}+{t.raid_parity_disks}" + (
        f" + {t.spares_per_enclosure} spares" if t.spares_per_enclosure else ""
    )
    slots, holder = head.drive_slots, f"the {head.name}"
    if head.kind == Kind.INTERNAL:
        if not server.internal_bays:
            _put(errors, "server", f"the {server.name} has no data bays; a brick on internal bays needs a server with data bays")
        else:
            slots, holder = min(slots, server.internal_bays), f"the {server.name}"
    if disks > slots:
        _put(errors, "groups_per_enclosure", f"{holder} holds {slots} drives; this layout needs {disks} ({layout})")
    elif t.expansion_id and t.expansions and disks > t.expansion.drive_slots:
        _put(errors, "groups_per_enclosure", f"each {t.expansion.name} holds {t.expansion.drive_slots} drives; this layout needs {disks}")
    if t.disk.form_factor == "3.5":
        for enclosure in (head,) + ((t.expansion,) if t.expansion_id and t.expansions else ()):
            if enclosure.drive_form_factor == "2.5":
                where = holder if enclosure is head else f"the {enclosure.name}"
                _put(errors, "disk", f"a 3.5-inch disk ({t.disk.name}) does not fit {where}'s 2.5-inch bays")
                break


def _check_enclosures(t: cat.BrickTemplate, errors: dict) -> None:
    head = t.head
    if head.kind == Kind.EXPANSION:
        _put(
            errors,
            "head",
            f"the {head.name} is an expansion enclosure; a brick's head is a RAID head, a JBOD, a SAN array or a server's internal bays",
        )
        return
    if t.expansion_id and t.expansion.kind != Kind.EXPANSION:
        _put(
            errors,
            "expansion",
            f"the {t.expansion.name} is a {t.expansion.get_kind_display().lower()}, not an expansion enclosure",
        )
    elif t.expansion_id and head.kind in SAN_KINDS:
        _put(errors, "expansion", f"a SAN array grows by further members of its own model ({head.name}): leave the expansion empty")
    if t.expansions > head.max_expansions:
        _put(
            errors,
            "expansions",
            f"the {head.name} takes no expansion enclosures"
            if head.max_expansions == 0
            else f"the {head.name} supports at most {head.max_expansions} "
            f"{'further members' if head.kind in SAN_KINDS else 'expansion enclosures'}, not {t.expansions}",
        )
    elif t.expansions and not t.expansion_id and head.kind not in SAN_KINDS:
        _put(errors, "expansion", f"choose the expansion enclosure model for the {t.expansions} expansion enclosures")


def _check_adapters(t: cat.BrickTemplate, errors: dict) -> None:
    head, server = t.head, t.server
    if t.network_adapter.kind == cat.Adapter.Kind.SAS_HBA:
        _put(
            errors, "network_adapter", f"the {t.network_adapter.name} is a SAS HBA, not a network adapter (InfiniBand HCA or Ethernet NIC)"
        )
    if t.hba_id and not t.hba_count:
        _put(errors, "hba_count", f"how many {t.hba.name} per server? at least 1")
    if t.hba_count and not t.hba_id:
        _put(errors, "hba", f"{t.hba_count} storage adapters per server: choose their model")
    if t.hba_id and head.kind in (Kind.RAID_HEAD, Kind.JBOD) and t.hba.kind != cat.Adapter.Kind.SAS_HBA:
        _put(errors, "hba", f"the {head.name} is cabled to SAS HBAs; the {t.hba.name} is not one")
    if t.hba_id and head.kind == Kind.ISCSI_ARRAY and t.hba.kind != cat.Adapter.Kind.ETH_NIC:
        _put(errors, "hba", f"the {head.name} is reached over iSCSI: the storage adapter is an Ethernet NIC, not the {t.hba.name}")
    if not t.hba_id and head.kind in (Kind.RAID_HEAD, Kind.JBOD, *SAN_KINDS):
        what = "an Ethernet NIC for iSCSI" if head.kind == Kind.ISCSI_ARRAY else "SAS HBAs" if head.kind != Kind.FC_ARRAY else "FC HBAs"
        _put(errors, "hba", f"the server reaches the {head.name} through {what}: choose the storage adapter")
    hbas = t.hba_count if t.hba_id else 0
    used = hbas + t.network_adapter_count
    if used > server.pcie_slots:
        message = (
            f"the {server.name} has {server.pcie_slots} PCIe slots; {hbas} storage adapter{'s' if hbas != 1 else ''} "
            f"+ {t.network_adapter_count} network adapter{'s' if t.network_adapter_count != 1 else ''} need {used}"
        )
        # either count can give way: the message is on both fields it names
        for name in ("hba_count", "network_adapter_count") if hbas else ("network_adapter_count",):
            _put(errors, name, message)
    if t.hba_id and t.hba_count:
        most, what = t.hba.ports * t.hba_count, f"{t.hba_count} x {t.hba.name} ({t.hba.ports} ports each)"
    else:
        most, what = head.uplink_ports, f"the {head.name}'s {head.uplink_ports} ports"
    if most and t.host_ports > most:
        _put(errors, "host_ports", f"at most {most} storage ports per server with {what}, not {t.host_ports}")
    if t.host_ports < 1:
        _put(errors, "host_ports", "at least 1 storage port per server")


SPEC_TO_FIELD = {
    "template": "head",
    "disk": "disk",
    "expansions": "expansions",
    "adapter": "network_adapter",
    "adapters_per_server": "network_adapter_count",
    "storage_ports": "host_ports",
    "raid": "groups_per_enclosure",
    "level": "raid_level",
    "data": "raid_data_disks",
    "parity": "raid_parity_disks",
    "groups": "groups_per_enclosure",
    "spares": "spares_per_enclosure",
}


def _flatten(node, path=()) -> list[tuple[tuple, str]]:
    if isinstance(node, str):
        return [(path, node)]
    if isinstance(node, dict):
        return [item for key, child in node.items() for item in _flatten(child, path + (key,))]
    if isinstance(node, list):
        return [item for i, child in enumerate(node) for item in _flatten(child, path + (i,))]
    return []


def _check_evaluates(t: cat.BrickTemplate, errors: dict) -> None:
    """Resolve and evaluate one brick of the template (no failover, no metadata): what the engine
    refuses is reported on the template field it concerns."""
    from .evaluation import design_evaluate

    snap = catalogue_snapshot()
    snap.templates = {t.slug: t}
    spec = {"bricks": [{"template": t.slug, "count": 1}], "failover": "none", "metadata": {"placement": "none"}}
    try:
        design_evaluate(spec=spec, snapshot=snap)
    except SpecError as exc:
        for path, message in _flatten(exc.errors):
            names = [p for p in path if isinstance(p, str)]
            field = next((SPEC_TO_FIELD[p] for p in reversed(names) if p in SPEC_TO_FIELD), "head")
            if message not in errors.get(field, []):
                _put(errors, field, message)


REQUIRED = ("slug", "name", "server", "network_adapter", "head", "disk", "raid_data_disks")


def _validate(t: cat.BrickTemplate, username: str, note_extra: dict | None = None) -> None:
    """Refuse what the parts cannot hold (SpecError naming the template's fields), then full_clean."""
    missing = [
        f for f in REQUIRED if getattr(t, f"{f}_id" if f in ("server", "network_adapter", "head", "disk") else f, None) in (None, "")
    ]
    if missing:
        raise SpecError({f: ["this field is required"] for f in missing})
    t.sources = {
        field: source_note(username, (note_extra or {}).get(field, ""))
        for field in cat.BrickTemplate.SOURCED_FIELDS
        if getattr(t, field, None) not in (None, "")
    }
    errors: dict = {}
    _check_enclosures(t, errors)
    if not errors.get("head"):
        _check_raid(t, errors)
        _check_bays(t, errors)
        _check_adapters(t, errors)
    try:
        t.full_clean(exclude=["owner", "shared_with"], validate_unique=False)
    except ValidationError as exc:
        for field, messages in exc.message_dict.items():
            if field not in errors:  # the checks above already said it in the parts' words
                errors[field] = list(messages)
    if not errors:
        _check_evaluates(t, errors)
    if errors:
        raise SpecError(errors)


def _check_slug(slug: str, username: str) -> None:
    """A slug is taken when one differing only in case is: 'MD3460-performance' beside the catalogue's
    'md3460-performance' would be two templates people cannot tell apart in a list or a spec."""
    taken = cat.BrickTemplate.objects.filter(slug__iexact=slug).values_list("slug", flat=True).first()
    if taken is not None:
        same = "" if taken == slug else f" (as '{taken}': slugs differing only in case are the same slug)"
        raise SpecError(
            {
                "slug": [
                    f"the slug '{slug}' is taken{same} (slugs are shared by everyone's templates); "
                    f"try '{suggested_slug(username=username, slug=slug.lower())}'"
                ]
            }
        )


def _save_new(t: cat.BrickTemplate, username: str) -> cat.BrickTemplate:
    try:
        with transaction.atomic():
            t.save()
    except IntegrityError as exc:  # taken meanwhile by a concurrent request
        _check_slug(t.slug, username)
        raise exc
    return t


def brick_template_create(*, owner, fields: dict) -> cat.BrickTemplate:
    """A new template of `owner`'s from `fields` (see FIELDS; parts as catalogue records). What is
    left out is derived from the parts; what the parts cannot hold raises SpecError by field."""
    unknown = set(fields) - set(FIELDS)
    if unknown:
        raise SpecError({key: ["unknown field"] for key in sorted(unknown)})
    _check_slug(fields["slug"], owner.username)
    t = cat.BrickTemplate(owner=owner, **fields)
    _fill_defaults(t, set(fields))
    _validate(t, owner.username)
    return _save_new(t, owner.username)


def brick_template_update(*, template: cat.BrickTemplate, fields: dict) -> cat.BrickTemplate:
    """Change a user's template (its slug stays: designs name it). Saved designs using it see the change."""
    if template.owner_id is None:
        raise SpecError({"detail": ["the catalogue's templates are edited by staff in the catalogue"]})
    if "slug" in fields and fields["slug"] != template.slug:
        raise SpecError({"slug": [f"a template's slug does not change (designs name it); copy '{template.slug}' to a new slug instead"]})
    unknown = set(fields) - set(FIELDS)
    if unknown:
        raise SpecError({key: ["unknown field"] for key in sorted(unknown)})
    t = cat.BrickTemplate.objects.select_related("owner").get(pk=template.pk)
    for key, value in fields.items():
        setattr(t, key, value)
    if "raid_level" in fields and "raid_parity_disks" not in fields:
        t.raid_parity_disks = _parity_for(t.raid_level, t.raid_data_disks)
    elif "raid_data_disks" in fields and "raid_parity_disks" not in fields and t.raid_level == "raid10":
        t.raid_parity_disks = t.raid_data_disks
    zfs_changed = template.raid_level.startswith("raidz") != t.raid_level.startswith("raidz")
    if zfs_changed and "fs_overhead_fraction" not in fields:
        t.fs_overhead_fraction = ZFS_OVERHEAD if t.raid_level.startswith("raidz") else LDISKFS_OVERHEAD
    _validate(t, t.owner.username)
    t.save()
    return t


def line_fields(*, template: cat.BrickTemplate, overrides: dict, parts: dict) -> dict:
    """A template's fields with a design line's overrides over them (DesignSpec vocabulary: disk,
    expansions, adapter, adapters_per_server, storage_ports, raid), as `brick_template_create` takes.
    `parts` holds the overriding records: {"disk": Disk, "adapter": Adapter} when given."""
    fields = {name: getattr(template, name) for name in FIELDS if name not in ("slug", "name", "description")}
    fields["description"] = template.description
    if parts.get("disk") is not None:
        fields["disk"] = parts["disk"]
    if parts.get("adapter") is not None:
        fields["network_adapter"] = parts["adapter"]
    for key, name in (("expansions", "expansions"), ("adapters_per_server", "network_adapter_count"), ("storage_ports", "host_ports")):
        if overrides.get(key) is not None:
            fields[name] = overrides[key]
    raid = overrides.get("raid") or {}
    level = raid.get("level") or template.raid_level
    data = raid.get("data") or template.raid_data_disks
    fields["raid_level"], fields["raid_data_disks"] = level, data
    if raid.get("parity") is not None:
        fields["raid_parity_disks"] = raid["parity"]
    elif level != template.raid_level or raid.get("data"):
        fields["raid_parity_disks"] = _parity_for(level, data)
    for key, name in (("groups", "groups_per_enclosure"), ("spares", "spares_per_enclosure"), ("segment_kib", "segment_kib")):
        if raid.get(key) is not None:
            fields[name] = raid[key]
    if level != template.raid_level and template.raid_level.startswith("raidz") != level.startswith("raidz"):
        fields["fs_overhead_fraction"] = ZFS_OVERHEAD if level.startswith("raidz") else LDISKFS_OVERHEAD
    return fields


def brick_template_copy(
    *,
    template: cat.BrickTemplate,
    owner,
    slug: str | None = None,
    name: str | None = None,
    description: str | None = None,
    overrides: dict | None = None,
    parts: dict | None = None,
) -> cat.BrickTemplate:
    """Copy a template `owner` may read (a catalogue preset included) into a new one of theirs, with a
    design line's overrides (see `line_fields`). The slug defaults to `<username>-<slug>`."""
    fields = line_fields(template=template, overrides=overrides or {}, parts=parts or {})
    fields["slug"] = slug or suggested_slug(username=owner.username, slug=template.slug)
    fields["name"] = name or f"{template.name} ({owner.username})"[:160]
    fields["role"] = template.role
    if description is not None:
        fields["description"] = description
    _check_slug(fields["slug"], owner.username)
    t = cat.BrickTemplate(owner=owner, **fields)
    extra = {f: f"copied from '{template.slug}': {note}" for f, note in (template.sources or {}).items() if f in fields}
    _validate(t, owner.username, note_extra=extra)
    return _save_new(t, owner.username)


def brick_template_share(*, template: cat.BrickTemplate, usernames: list[str]) -> cat.BrickTemplate:
    """Share read-only (they may use it in their designs, not change it) with these users, replacing the list."""
    users = list(get_user_model().objects.filter(username__in=usernames))
    missing = sorted(set(usernames) - {u.username for u in users})
    if missing:
        raise SpecError({"users": [f"unknown user '{name[:40]}'" for name in missing]})
    template.shared_with.set([u for u in users if u.pk != template.owner_id])
    return template


def designs_using(*, slug: str) -> list[tuple[int, str, str]]:
    """Saved designs (anyone's) with a brick line of this template: (id, name, owner username)."""
    candidates = (
        Design.objects.annotate(spec_text=Cast("spec", TextField())).filter(spec_text__contains=slug).select_related("owner").order_by("id")
    )
    return [
        (d.id, d.name, d.owner.username)
        for d in candidates
        if any(isinstance(b, dict) and b.get("template") == slug for b in (d.spec or {}).get("bricks", []))
    ]


def brick_template_delete(*, template: cat.BrickTemplate) -> None:
    """Delete a user's template; TemplateInUse while a saved design (anyone's) names it."""
    if template.owner_id is None:
        raise SpecError({"detail": ["the catalogue's templates are edited by staff in the catalogue"]})
    with transaction.atomic():
        using = designs_using(slug=template.slug)
        if using:
            raise TemplateInUse(template.slug, using)
        template.delete()


__all__ = [
    "TemplateInUse",
    "brick_template_copy",
    "brick_template_create",
    "brick_template_delete",
    "brick_template_share",
    "brick_template_update",
    "brick_templates_visible_to",
    "designs_using",
    "suggested_slug",
]
