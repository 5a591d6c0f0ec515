"""Serializers for users' brick templates (/api/v1/brick-templates/): read (the catalogue's and
users' alike), write (a user's own, parts named by slug), share and copy."""

from __future__ import annotations

from rest_framework import serializers

from hardware_catalog import models as cat
from planner import spec as spec_rules

from .serializers import BrickTemplateSerializer, RaidSerializer, StrictFieldsMixin


class BrickTemplateReadSerializer(BrickTemplateSerializer):
    """A brick template as the API shows it: parts by slug, RAID layout, key counts, and whose it is."""

    owner = serializers.SerializerMethodField(help_text="The owner's username; null for the catalogue's templates.")
    catalogue = serializers.SerializerMethodField(help_text="True for the catalogue's own templates (the presets).")
    is_owner = serializers.SerializerMethodField()
    shared_with = serializers.SerializerMethodField(help_text="Usernames it is shared with (owner only).")
    drive_slots = serializers.IntegerField(source="head.drive_slots", read_only=True, help_text="Drive slots of the head.")
    head_kind = serializers.CharField(source="head.kind", read_only=True)

    class Meta(BrickTemplateSerializer.Meta):
        fields = BrickTemplateSerializer.Meta.fields + ("drive_slots", "head_kind", "owner", "catalogue", "is_owner", "shared_with")
        read_only_fields = fields

    def _user(self):
        request = self.context.get("request")
        return request.user if request is not None and request.user.is_authenticated else None

    def get_owner(self, obj) -> str | None:
        return obj.owner.username if obj.owner_id else None

    def get_catalogue(self, obj) -> bool:
        return obj.owner_id is None

    def get_is_owner(self, obj) -> bool:
        user = self._user()
        return bool(user and obj.owner_id == user.id)

    def get_shared_with(self, obj) -> list[str] | None:
        if not self.get_is_owner(obj):
            return None
        return sorted(u.username for u in obj.shared_with.all())


def _part(model, what: str, **kwargs):
    return serializers.SlugRelatedField(
        slug_field="slug",
        queryset=model.objects.all(),
        error_messages={"does_not_exist": f"unknown {what} '{{value}}'", "invalid": f"give the {what}'s slug"},
        **kwargs,
    )


class BrickTemplateWriteSerializer(StrictFieldsMixin, serializers.Serializer):
    """A user's template, composed of catalogue parts named by slug. Left out: parity follows the
    RAID level, groups fill the head, storage ports follow the HBAs, the role follows the head."""

    slug = serializers.SlugField(max_length=80, help_text="Unique among everyone's templates; e.g. '<your username>-r730xd-6tb'.")
    name = serializers.CharField(max_length=160)
    description = serializers.CharField(required=False, allow_blank=True, max_length=2000)
    role = serializers.SlugField(required=False, max_length=32, help_text="For grouping: performance, capacity, internal, jbod, iscsi, ...")
    server = _part(cat.Server, "server", help_text="The OSS server model.")
    servers_per_brick = serializers.IntegerField(required=False, min_value=1, max_value=2)
    hba = _part(
        cat.Adapter,
        "adapter",
        required=False,
        allow_null=True,
        help_text="Storage adapter: a SAS HBA for a RAID head or JBOD, an Ethernet NIC for iSCSI; none for internal bays.",
    )
    hba_count = serializers.IntegerField(required=False, min_value=0, max_value=8, help_text="Storage adapters per server.")
    network_adapter = _part(cat.Adapter, "network adapter", help_text="Towards the clients: an InfiniBand HCA or Ethernet NIC.")
    network_adapter_count = serializers.IntegerField(
        required=False, min_value=1, max_value=spec_rules.MAX_ADAPTERS_PER_SERVER, help_text="Network adapters per server."
    )
    head = _part(cat.Enclosure, "enclosure", help_text="RAID head, JBOD, SAN array or a server's internal bays.")
    expansion = _part(cat.Enclosure, "enclosure", required=False, allow_null=True, help_text="Expansion enclosure model behind the head.")
    expansions = serializers.IntegerField(required=False, min_value=0, max_value=spec_rules.MAX_EXPANSIONS)
    disk = _part(cat.Disk, "disk", help_text="Default disk model.")
    raid_level = serializers.ChoiceField(choices=list(spec_rules.RAID_LEVELS), required=False)
    raid_data_disks = serializers.IntegerField(min_value=1, max_value=spec_rules.MAX_RAID_DISKS)
    raid_parity_disks = serializers.IntegerField(
        required=False,
        min_value=0,
        max_value=spec_rules.MAX_RAID_DISKS,
        help_text="Left out: 1/2/3 for raid5/6 and raidz1-3, data for raid10.",
    )
    segment_kib = serializers.IntegerField(required=False, min_value=4, max_value=4096)
    groups_per_enclosure = serializers.IntegerField(
        required=False,
        min_value=1,
        max_value=spec_rules.MAX_RAID_GROUPS,
        help_text="RAID groups (OSTs) per enclosure; left out: as many as fit.",
    )
    spares_per_enclosure = serializers.IntegerField(required=False, min_value=0, max_value=spec_rules.MAX_RAID_DISKS)
    host_ports = serializers.IntegerField(
        required=False, min_value=1, max_value=spec_rules.MAX_STORAGE_PORTS, help_text="Storage ports cabled per server."
    )
    fs_overhead_fraction = serializers.FloatField(required=False, min_value=0.0, max_value=0.5)
    software_raid_read_mbps = serializers.FloatField(required=False, allow_null=True, min_value=1.0, max_value=1_000_000.0)
    software_raid_write_mbps = serializers.FloatField(required=False, allow_null=True, min_value=1.0, max_value=1_000_000.0)


class TemplateShareSerializer(serializers.Serializer):
    """Who may use a brick template of yours: usernames (replacing the list)."""

    users = serializers.ListField(
        child=serializers.CharField(max_length=150), max_length=100, help_text="Usernames who may use it (replaces the list)."
    )


class TemplateCopySerializer(StrictFieldsMixin, serializers.Serializer):
    """Copy into a template of your own, optionally with a design line's overrides over it."""

    slug = serializers.SlugField(required=False, max_length=80, help_text="Left out: '<your username>-<slug>'.")
    name = serializers.CharField(required=False, max_length=160)
    description = serializers.CharField(required=False, allow_blank=True, max_length=2000)
    disk = _part(cat.Disk, "disk", required=False, allow_null=True)
    expansions = serializers.IntegerField(required=False, allow_null=True, min_value=0, max_value=spec_rules.MAX_EXPANSIONS)
    adapter = _part(cat.Adapter, "network adapter", required=False, allow_null=True)
    adapters_per_server = serializers.IntegerField(
        required=False, allow_null=True, min_value=1, max_value=spec_rules.MAX_ADAPTERS_PER_SERVER
    )
    storage_ports = serializers.IntegerField(required=False, allow_null=True, min_value=1, max_value=spec_rules.MAX_STORAGE_PORTS)
    raid = RaidSerializer(required=False, allow_null=True)
