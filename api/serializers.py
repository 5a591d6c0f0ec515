"""API serializers: catalogue records (read-only), the DesignSpec (input) and the Evaluation (output)."""

from __future__ import annotations

from django.core.exceptions import ValidationError as DjangoValidationError
from django.db import models as dj_models
from django.db import transaction
from rest_framework import serializers

from hardware_catalog import models as cat
from planner import spec as spec_rules
from planner.services.brick_templates import FIELDS as TEMPLATE_FIELDS

from .fields import FiniteFloatField

# ---------------------------------------------------------------- catalogue (read-only)

COMMON = ("slug", "name", "vendor", "model", "description", "sources")


class FullCleanMixin:
    """Writable catalogue serializers validate through the model's full_clean (source notes included);
    their float fields must be finite."""

    serializer_field_mapping = {**serializers.ModelSerializer.serializer_field_mapping, dj_models.FloatField: FiniteFloatField}

    nested_fields: tuple[str, ...] = ()

    def validate(self, attrs):
        attrs = super().validate(attrs)
        plain = {k: v for k, v in attrs.items() if k not in self.nested_fields and not isinstance(v, list)}
        model = self.Meta.model
        if self.instance is not None:
            probe = model.objects.get(pk=self.instance.pk)
        else:
            probe = model()
        for key, value in plain.items():
            setattr(probe, key, value)
        try:
            probe.full_clean(exclude=[f.name for f in model._meta.many_to_many], validate_unique=self.instance is None)
        except DjangoValidationError as exc:
            raise serializers.ValidationError(exc.message_dict) from exc
        return attrs


class NestedListWriteMixin:
    """Create/update a record with one nested list of children (rows replaced when the list is given).

    Subclasses set `nested = (validated_data key, child model, child's parent field name)`.
    """

    nested: tuple[str, type, str]

    def _write_children(self, parent, rows) -> None:
        key, child_model, parent_field = self.nested
        for row in rows:
            child_model.objects.create(**{parent_field: parent}, **row)

    @transaction.atomic
    def create(self, validated_data):
        rows = validated_data.pop(self.nested[0], [])
        parent = self.Meta.model.objects.create(**validated_data)
        self._write_children(parent, rows)
        return parent

    @transaction.atomic
    def update(self, instance, validated_data):
        rows = validated_data.pop(self.nested[0], None)
        instance = super().update(instance, validated_data)
        if rows is not None:
            self.nested[1].objects.filter(**{self.nested[2]: instance}).delete()
            self._write_children(instance, rows)
        return instance


class DiskSerializer(FullCleanMixin, serializers.ModelSerializer):
    capacity_tb = FiniteFloatField()

    class Meta:
        model = cat.Disk
        fields = COMMON + (
            "interface",
            "form_factor",
            "rpm",
            "capacity_tb",
            "read_mbps",
            "write_mbps",
            "inner_mbps",
            "random_iops",
            "power_w",
            "weight_kg",
            "afr_percent",
        )


class ServerSerializer(FullCleanMixin, serializers.ModelSerializer):
    class Meta:
        model = cat.Server
        fields = COMMON + ("height_u", "pcie_slots", "pcie_gen", "internal_bays", "cpu", "memory_gb", "power_w", "max_power_w", "weight_kg")


class EnclosureSerializer(FullCleanMixin, serializers.ModelSerializer):
    class Meta:
        model = cat.Enclosure
        fields = COMMON + (
            "kind",
            "height_u",
            "drive_slots",
            "drive_form_factor",
            "controllers",
            "controller_read_mbps",
            "controller_write_mbps",
            "controller_requests_per_s",
            "uplink_ports",
            "uplink_lanes",
            "uplink_lane_gbps",
            "uplink_efficiency",
            "max_expansions",
            "cache_merge",
            "max_request_kib",
            "power_w",
            "weight_kg",
        )


class AdapterSerializer(FullCleanMixin, serializers.ModelSerializer):
    effective_gbps = serializers.FloatField(read_only=True, help_text="Effective payload bandwidth, GB/s (10^9 B/s).")

    class Meta:
        model = cat.Adapter
        fields = COMMON + (
            "kind",
            "ports",
            "port_gbps",
            "encoding_efficiency",
            "protocol_efficiency",
            "pcie_gen",
            "pcie_lanes",
            "pcie_effective_gbps",
            "effective_gbps",
            "power_w",
        )


class AccessorySerializer(FullCleanMixin, serializers.ModelSerializer):
    pdu_capacity_w = serializers.FloatField(read_only=True, allow_null=True, help_text="A PDU's continuous capacity, W.")

    class Meta:
        model = cat.Accessory
        fields = COMMON + (
            "kind",
            "height_u",
            "power_w",
            "weight_kg",
            "pdu_phases",
            "pdu_volts",
            "pdu_amps",
            "pdu_derating",
            "pdu_inlet",
            "pdu_capacity_w",
            "cable_type",
            "length_m",
        )


class SwitchSerializer(FullCleanMixin, serializers.ModelSerializer):
    class Meta:
        model = cat.Switch
        fields = COMMON + ("kind", "ports", "port_gbps", "height_u", "power_w", "weight_kg")


class RackSwitchSerializer(serializers.Serializer):
    switch = serializers.SlugRelatedField(slug_field="slug", queryset=cat.Switch.objects.all())
    count = serializers.IntegerField(min_value=1, max_value=8)


class RackSerializer(NestedListWriteMixin, FullCleanMixin, serializers.ModelSerializer):
    switches = RackSwitchSerializer(source="rack_switches", many=True, required=False, help_text="Switches at the top of every rack.")
    nested_fields = ("rack_switches",)
    nested = ("rack_switches", cat.RackSwitch, "rack")

    pdu = serializers.SlugRelatedField(
        slug_field="slug", queryset=cat.Accessory.objects.filter(kind="pdu"), required=False, allow_null=True
    )
    uplink_cable = serializers.SlugRelatedField(
        slug_field="slug", queryset=cat.Accessory.objects.filter(kind="cable"), required=False, allow_null=True
    )
    blanking_panel = serializers.SlugRelatedField(
        slug_field="slug", queryset=cat.Accessory.objects.filter(kind="blanking_panel"), required=False, allow_null=True
    )
    rail_kit = serializers.SlugRelatedField(
        slug_field="slug", queryset=cat.Accessory.objects.filter(kind="rail_kit"), required=False, allow_null=True
    )

    class Meta:
        model = cat.Rack
        fields = COMMON + (
            "units",
            "power_budget_w",
            "max_load_kg",
            "weight_kg",
            "switches",
            "pdu",
            "pdus",
            "uplink_cable",
            "uplinks",
            "blanking_panel",
            "rail_kit",
        )


class TuningProfileSerializer(FullCleanMixin, serializers.ModelSerializer):
    request_kib = serializers.IntegerField(
        read_only=True, help_text="The request reaching the block device: the RPC split by max_sectors_kib and sg_entries x 4 KiB."
    )

    class Meta:
        model = cat.TuningProfile
        fields = COMMON + (
            "rpc_kib",
            "max_sectors_kib",
            "sg_entries",
            "rpcs_in_flight",
            "request_kib",
            "software_read_efficiency",
            "software_write_efficiency",
            "recipe",
        )


class BrickTemplateSerializer(FullCleanMixin, serializers.ModelSerializer):
    server = serializers.SlugRelatedField(slug_field="slug", queryset=cat.Server.objects.all())
    hba = serializers.SlugRelatedField(
        slug_field="slug", queryset=cat.Adapter.objects.filter(kind="sas_hba"), required=False, allow_null=True
    )
    network_adapter = serializers.SlugRelatedField(slug_field="slug", queryset=cat.Adapter.objects.all())
    head = serializers.SlugRelatedField(slug_field="slug", queryset=cat.Enclosure.objects.all())
    expansion = serializers.SlugRelatedField(
        slug_field="slug", queryset=cat.Enclosure.objects.filter(kind="expansion"), required=False, allow_null=True
    )
    disk = serializers.SlugRelatedField(slug_field="slug", queryset=cat.Disk.objects.all())
    height_u = serializers.SerializerMethodField(help_text="Rack units of one brick with its default expansions.")
    max_expansions = serializers.IntegerField(source="head.max_expansions", read_only=True)

    class Meta:
        model = cat.BrickTemplate
        # the parts a template is composed of: one list, shared with the user-template service
        fields = COMMON + tuple(f for f in TEMPLATE_FIELDS if f not in COMMON) + ("max_expansions", "height_u")

    def get_height_u(self, obj) -> int:
        exp = obj.expansion.height_u * obj.expansions if obj.expansion else 0
        return obj.servers_per_brick * obj.server.height_u + obj.head.height_u + exp


class MetadataCellItemSerializer(serializers.ModelSerializer):
    class Meta:
        model = cat.MetadataCellItem
        fields = ("kind", "item_slug", "count", "role", "source")

    def validate(self, attrs):
        from hardware_catalog.importers import PART_MODELS

        model = PART_MODELS.get(attrs["kind"])
        if model is None or not model.objects.filter(slug=attrs["item_slug"]).exists():
            raise serializers.ValidationError({"item_slug": [f"unknown {attrs['kind']} '{attrs['item_slug']}'"]})
        return attrs


class MetadataCellSerializer(NestedListWriteMixin, FullCleanMixin, serializers.ModelSerializer):
    items = MetadataCellItemSerializer(many=True, required=False)
    nested_fields = ("items",)
    nested = ("items", cat.MetadataCellItem, "cell")

    mdt_enclosure = serializers.SlugRelatedField(slug_field="slug", queryset=cat.Enclosure.objects.all(), required=False, allow_null=True)
    mdt_disk = serializers.SlugRelatedField(slug_field="slug", queryset=cat.Disk.objects.all(), required=False, allow_null=True)

    class Meta:
        model = cat.MetadataCell
        fields = COMMON + (
            "mdt_count",
            "mdt_enclosure",
            "mdt_disk",
            "mdt_disk_count",
            "mdt_raid_level",
            "mdt_raid_data",
            "mdt_raid_parity",
            "mdt_raid_groups",
            "bytes_per_inode",
            "items",
        )


class PriceItemSerializer(serializers.ModelSerializer):
    unit_price = serializers.DecimalField(max_digits=12, decimal_places=2, min_value=0, coerce_to_string=False)

    class Meta:
        model = cat.PriceItem
        fields = ("kind", "item_slug", "unit_price", "note")


class PriceListSerializer(NestedListWriteMixin, serializers.ModelSerializer):
    items = PriceItemSerializer(many=True, required=False, help_text="Unit prices; on update, the whole list is replaced when given.")
    nested = ("items", cat.PriceItem, "price_list")
    energy_price_per_kwh = serializers.DecimalField(max_digits=8, decimal_places=4, min_value=0, coerce_to_string=False, required=False)
    pue = FiniteFloatField(min_value=1.0, max_value=3.0, required=False)
    service_years = serializers.IntegerField(min_value=1, max_value=30, required=False)

    class Meta:
        model = cat.PriceList
        fields = (
            "slug",
            "name",
            "currency",
            "effective_date",
            "illustrative",
            "service_years",
            "energy_price_per_kwh",
            "pue",
            "notes",
            "items",
        )

    def validate_items(self, items):
        seen = set()
        for item in items:
            key = (item["kind"], item["item_slug"])
            if key in seen:
                raise serializers.ValidationError(f"{item['kind']} '{item['item_slug']}' is priced twice")
            seen.add(key)
        return items


# ---------------------------------------------------------------- DesignSpec (input)


class StrictFieldsMixin:
    """Refuse fields the serializer does not know (a typo such as `expansion` must not be ignored)."""

    def to_internal_value(self, data):
        if isinstance(data, dict):
            unknown = sorted(set(data) - set(self.fields))
            if unknown:
                raise serializers.ValidationError({key: [f"unknown field; expected one of: {', '.join(self.fields)}"] for key in unknown})
        return super().to_internal_value(data)


def _slug(**kwargs):
    return serializers.SlugField(max_length=80, **kwargs)


class RaidSerializer(StrictFieldsMixin, serializers.Serializer):
    """Per enclosure: `groups` RAID groups of `data` + `parity` disks plus `spares`; each group is an OST."""

    level = serializers.ChoiceField(
        choices=list(spec_rules.RAID_LEVELS), required=False, help_text="raid5, raid6, raid10 (parity = data), raidz1-3 (ZFS)."
    )
    data = serializers.IntegerField(required=False, min_value=1, max_value=spec_rules.MAX_RAID_DISKS)
    parity = serializers.IntegerField(required=False, allow_null=True, min_value=0, max_value=spec_rules.MAX_RAID_DISKS)
    groups = serializers.IntegerField(required=False, min_value=1, max_value=spec_rules.MAX_RAID_GROUPS)
    spares = serializers.IntegerField(required=False, min_value=0, max_value=spec_rules.MAX_RAID_DISKS)
    segment_kib = serializers.IntegerField(required=False, min_value=4, max_value=4096)


class BrickEntrySerializer(StrictFieldsMixin, serializers.Serializer):
    """One line of a design: so many bricks of a template, with optional overrides."""

    template = _slug(help_text="Brick template slug, e.g. md3460-performance.")
    count = serializers.IntegerField(
        min_value=1,
        max_value=spec_rules.MAX_BRICKS_PER_ENTRY,
        error_messages={
            "min_value": f"must be between 1 and {spec_rules.MAX_BRICKS_PER_ENTRY}",
            "max_value": f"must be between 1 and {spec_rules.MAX_BRICKS_PER_ENTRY}",
        },
    )
    disk = _slug(required=False, allow_null=True, help_text="Disk slug overriding the template's, e.g. nl-sas-6tb.")
    expansions = serializers.IntegerField(
        required=False,
        allow_null=True,
        min_value=0,
        max_value=spec_rules.MAX_EXPANSIONS,
        help_text="Expansion enclosures behind each head.",
    )
    adapter = _slug(required=False, allow_null=True, help_text="Network adapter slug overriding the template's.")
    adapters_per_server = serializers.IntegerField(
        required=False,
        allow_null=True,
        min_value=1,
        max_value=spec_rules.MAX_ADAPTERS_PER_SERVER,
        help_text="Network adapters per server (limited by the server's PCIe slots).",
    )
    storage_ports = serializers.IntegerField(
        required=False,
        allow_null=True,
        min_value=1,
        max_value=spec_rules.MAX_STORAGE_PORTS,
        help_text="Storage ports cabled per server: SAS wide ports to the head or JBOD, or iSCSI/FC ports to the SAN.",
    )
    raid = RaidSerializer(required=False, allow_null=True, help_text="RAID layout per enclosure, over the template's.")


class MdtSerializer(StrictFieldsMixin, serializers.Serializer):
    """The metadata cell's MDT storage, over the cell's own: disk, count, RAID layout, MDT count."""

    disk = _slug(required=False, help_text="MDT disk slug, e.g. ssd-sas-3-84tb.")
    disks = serializers.IntegerField(
        required=False, min_value=1, max_value=spec_rules.MAX_MDT_DISKS, help_text="MDT disks, spares included."
    )
    raid = RaidSerializer(required=False, help_text="RAID layout of the MDT disks, e.g. raid10 5+5 x 4 groups.")
    mdts = serializers.IntegerField(required=False, min_value=1, max_value=spec_rules.MAX_MDTS, help_text="MDTs (Lustre DNE).")
    bytes_per_inode = serializers.IntegerField(
        required=False, min_value=1024, max_value=2**20, help_text="ldiskfs format: one inode per so many bytes."
    )


class MetadataSerializer(StrictFieldsMixin, serializers.Serializer):
    cell = _slug(required=False, default=spec_rules.SPEC_DEFAULTS["metadata"]["cell"])
    placement = serializers.ChoiceField(
        choices=list(spec_rules.PLACEMENT_CHOICES), required=False, default=spec_rules.SPEC_DEFAULTS["metadata"]["placement"]
    )
    mdt = MdtSerializer(required=False, allow_null=True, help_text="Compose the cell's MDT storage: disk, count, RAID layout, MDT count.")


class ClientsSerializer(StrictFieldsMixin, serializers.Serializer):
    count = serializers.IntegerField(min_value=1, max_value=spec_rules.MAX_CLIENTS)
    adapter = _slug(help_text="Each client's network adapter slug, e.g. ib-fdr.")
    rpc_round_trip_ms = FiniteFloatField(
        required=False,
        min_value=0.0,
        max_value=spec_rules.MAX_RPC_ROUND_TRIP_MS,
        help_text="Time one bulk RPC takes from send to reply, ms: with RPCs in flight and RPC size it sets Lustre's per-client limit (0: only the link).",
    )
    streams = serializers.IntegerField(
        required=False, min_value=1, max_value=4096, help_text="OSTs one client keeps busy at once (default 1)."
    )


class FabricSerializer(StrictFieldsMixin, serializers.Serializer):
    oversubscription = FiniteFloatField(
        required=False,
        min_value=1.0,
        max_value=spec_rules.MAX_OVERSUBSCRIPTION,
        help_text="Edge switches' downlinks : uplinks to the core.",
    )
    core_gbps = FiniteFloatField(
        required=False,
        allow_null=True,
        min_value=0.001,
        max_value=spec_rules.MAX_CORE_GBPS,
        help_text="The core's bisection bandwidth, GB/s.",
    )


class DesignSpecSerializer(StrictFieldsMixin, serializers.Serializer):
    """A DesignSpec (contract v1). Everything but `bricks` has a default."""

    name = serializers.CharField(required=False, max_length=200, default=spec_rules.SPEC_DEFAULTS["name"])
    bricks = BrickEntrySerializer(
        many=True,
        allow_empty=False,
        max_length=spec_rules.MAX_BRICK_ENTRIES,
        error_messages={"max_length": f"at most {spec_rules.MAX_BRICK_ENTRIES} brick lines in one design"},
    )
    metadata = MetadataSerializer(required=False)
    rack = _slug(required=False, default=spec_rules.SPEC_DEFAULTS["rack"])
    tuning = _slug(required=False, default=spec_rules.SPEC_DEFAULTS["tuning"])
    failover = serializers.ChoiceField(
        choices=list(spec_rules.FAILOVER_CHOICES),
        required=False,
        allow_null=True,
        help_text="paired (OSS servers in HA pairs) or none; left out: paired unless a brick keeps its disks inside its server.",
    )
    clients = ClientsSerializer(required=False, allow_null=True)
    fabric = FabricSerializer(required=False, allow_null=True, help_text="The client fabric: oversubscription and core bandwidth.")
    price_list = _slug(required=False, default=spec_rules.SPEC_DEFAULTS["price_list"])
    calibration = serializers.IntegerField(
        required=False,
        allow_null=True,
        min_value=1,
        help_text="Id of one of your calibrations: its measured figures replace the data sheets' for its brick template.",
    )

    def validate_bricks(self, value):
        if len(value) > spec_rules.MAX_BRICK_ENTRIES:
            raise serializers.ValidationError(f"at most {spec_rules.MAX_BRICK_ENTRIES} brick lines in one design")
        total = sum(entry["count"] for entry in value)
        if total > spec_rules.MAX_TOTAL_BRICKS:
            raise serializers.ValidationError(
                f"{total} bricks in all is too large to evaluate quickly; at most {spec_rules.MAX_TOTAL_BRICKS} bricks per design"
            )
        return value


# ---------------------------------------------------------------- Evaluation (output, for the schema)


class StageSerializer(serializers.Serializer):
    brick = serializers.CharField()
    stage = serializers.CharField()
    read_gbps = serializers.FloatField(
        allow_null=True, help_text="GB/s; null where the stage does not limit reads (e.g. a calibration measured writes only)."
    )
    write_gbps = serializers.FloatField(allow_null=True, help_text="GB/s; null where the stage does not limit writes.")
    limiting = serializers.DictField(child=serializers.BooleanField())


class PriceLineSerializer(serializers.Serializer):
    kind = serializers.CharField()
    item = serializers.CharField()
    name = serializers.CharField()
    quantity = serializers.FloatField()
    unit_price = serializers.FloatField()
    total = serializers.FloatField()


class PriceByKindSerializer(serializers.Serializer):
    kind = serializers.CharField()
    label = serializers.CharField()
    total = serializers.FloatField()
    share = serializers.FloatField()


class PriceSerializer(serializers.Serializer):
    total = serializers.FloatField()
    currency = serializers.CharField()
    capex = serializers.FloatField()
    hardware = serializers.FloatField()
    support = serializers.FloatField()
    opex = serializers.FloatField()
    price_list = serializers.CharField()
    price_list_name = serializers.CharField()
    price_list_date = serializers.CharField()
    illustrative = serializers.BooleanField()
    years = serializers.IntegerField()
    energy_price_per_kwh = serializers.FloatField()
    pue = serializers.FloatField()
    per_usable_pib = serializers.FloatField(allow_null=True)
    per_read_gbps = serializers.FloatField(allow_null=True)
    lines = PriceLineSerializer(many=True)
    by_kind = PriceByKindSerializer(
        many=True, help_text="Totals per kind of part and energy, largest first, with each share of the total (0-1)."
    )


class RackItemSerializer(serializers.Serializer):
    u = serializers.IntegerField()
    height = serializers.IntegerField()
    item = serializers.CharField()
    kind = serializers.CharField()
    label = serializers.CharField()
    group = serializers.CharField()
    power_w = serializers.FloatField()
    weight_kg = serializers.FloatField()
    role = serializers.CharField(
        help_text="oss, mds, mgs, management, raid_head, expansion, jbod, san_array, internal, switch, pdu, metadata"
    )
    pair = serializers.CharField(allow_null=True, help_text="HA pair tag shared by the partners' devices, e.g. 'HA 3'")
    face = serializers.CharField(help_text="front (rack-mounted) or rear (0U PDUs, height 0)")


class RackPduSerializer(serializers.Serializer):
    item = serializers.CharField()
    name = serializers.CharField()
    count = serializers.IntegerField()
    capacity_w_each = serializers.FloatField()
    phases = serializers.IntegerField()
    inlet = serializers.CharField()


class RackOutSerializer(serializers.Serializer):
    index = serializers.IntegerField()
    rack = serializers.CharField()
    units_total = serializers.IntegerField()
    units_used = serializers.IntegerField()
    power_w = serializers.FloatField()
    heat_btu_per_h = serializers.FloatField(help_text="Heat given off, BTU/h (3.412 x W)")
    weight_kg = serializers.FloatField()
    blanking_units = serializers.IntegerField(help_text="Free rack units closed by blanking panels")
    pdu = RackPduSerializer(allow_null=True)
    power_budget_w = serializers.FloatField()
    max_load_kg = serializers.FloatField()
    items = RackItemSerializer(many=True)


class EvaluationSerializer(serializers.Serializer):
    """The Evaluation (contract v1). Capacity: usable in binary PiB/TiB, raw in decimal TB; throughput GB/s."""

    name = serializers.CharField()
    usable_pib = serializers.FloatField()
    usable_tib = serializers.FloatField()
    raw_tb = serializers.FloatField()
    read_gbps = serializers.FloatField()
    write_gbps = serializers.FloatField()
    bottleneck = serializers.DictField(child=serializers.CharField())
    stages = StageSerializer(many=True)
    bricks = serializers.ListField(child=serializers.DictField())
    degraded = serializers.DictField()
    price = PriceSerializer()
    rack_count = serializers.IntegerField()
    racks = RackOutSerializer(many=True)
    units_used = serializers.IntegerField()
    power_w = serializers.FloatField()
    heat_btu_per_h = serializers.FloatField(help_text="Heat the design gives off, BTU/h (3.412 x W)")
    weight_kg = serializers.FloatField()
    counts = serializers.DictField(child=serializers.IntegerField())
    warnings = serializers.ListField(child=serializers.CharField())
    assumptions = serializers.ListField(child=serializers.CharField())
    sources = serializers.DictField()
    metadata = serializers.DictField(
        allow_null=True, help_text="The metadata cell: MDT count, usable MDT capacity (TiB), inodes at its bytes per inode."
    )
