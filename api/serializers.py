"""API serializers: catalogue records (read-only), the DesignSpec (input) and the Evaluation (output)."""
from __future__ import annotations

from rest_framework import serializers

from hardware_catalog import models as cat
from planner import spec as spec_rules

# ---------------------------------------------------------------- catalogue (read-only)

COMMON = ("slug", "name", "vendor", "model", "description", "sources")


class DiskSerializer(serializers.ModelSerializer):
    capacity_tb = serializers.FloatField()

    class Meta:
        model = cat.Disk
        fields = COMMON + ("interface", "form_factor", "rpm", "capacity_tb", "read_mbps", "write_mbps", "random_iops",
                           "power_w", "weight_kg", "afr_percent")


class ServerSerializer(serializers.ModelSerializer):
    class Meta:
        model = cat.Server
        fields = COMMON + ("height_u", "pcie_slots", "pcie_gen", "internal_bays", "cpu", "memory_gb", "power_w", "max_power_w", "weight_kg")


class EnclosureSerializer(serializers.ModelSerializer):
    class Meta:
        model = cat.Enclosure
        fields = COMMON + ("kind", "height_u", "drive_slots", "drive_form_factor", "controllers", "controller_read_mbps",
                           "controller_write_mbps", "controller_requests_per_s", "uplink_ports", "uplink_lanes",
                           "uplink_lane_gbps", "uplink_efficiency", "max_expansions", "power_w", "weight_kg")


class AdapterSerializer(serializers.ModelSerializer):
    effective_gbps = serializers.FloatField(read_only=True, help_text="Effective payload bandwidth, GB/s (10^9 B/s).")

    class Meta:
        model = cat.Adapter
        fields = COMMON + ("kind", "ports", "port_gbps", "encoding_efficiency", "protocol_efficiency", "pcie_gen", "pcie_lanes",
                           "pcie_effective_gbps", "effective_gbps", "power_w")


class SwitchSerializer(serializers.ModelSerializer):
    class Meta:
        model = cat.Switch
        fields = COMMON + ("kind", "ports", "port_gbps", "height_u", "power_w", "weight_kg")


class RackSwitchSerializer(serializers.Serializer):
    switch = serializers.CharField(source="switch.slug")
    count = serializers.IntegerField()


class RackSerializer(serializers.ModelSerializer):
    switches = RackSwitchSerializer(source="rack_switches", many=True, read_only=True)

    class Meta:
        model = cat.Rack
        fields = COMMON + ("units", "power_budget_w", "max_load_kg", "weight_kg", "switches")


class TuningProfileSerializer(serializers.ModelSerializer):
    class Meta:
        model = cat.TuningProfile
        fields = COMMON + ("request_kib", "software_read_efficiency", "software_write_efficiency", "recipe")


class BrickTemplateSerializer(serializers.ModelSerializer):
    server = serializers.SlugRelatedField(slug_field="slug", read_only=True)
    hba = serializers.SlugRelatedField(slug_field="slug", read_only=True)
    network_adapter = serializers.SlugRelatedField(slug_field="slug", read_only=True)
    head = serializers.SlugRelatedField(slug_field="slug", read_only=True)
    expansion = serializers.SlugRelatedField(slug_field="slug", read_only=True)
    disk = serializers.SlugRelatedField(slug_field="slug", read_only=True)
    height_u = serializers.SerializerMethodField(help_text="Rack units of one brick with its default expansions.")
    max_expansions = serializers.IntegerField(source="head.max_expansions", read_only=True)

    class Meta:
        model = cat.BrickTemplate
        fields = COMMON + ("role", "server", "servers_per_brick", "hba", "hba_count", "network_adapter", "network_adapter_count",
                           "head", "expansion", "expansions", "max_expansions", "disk", "raid_level", "raid_data_disks",
                           "raid_parity_disks", "segment_kib", "groups_per_enclosure", "spares_per_enclosure", "host_ports",
                           "fs_overhead_fraction", "software_raid_read_mbps", "software_raid_write_mbps", "height_u")

    def get_height_u(self, obj) -> int:
        exp = obj.expansion.height_u * obj.expansions if obj.expansion else 0
        return obj.servers_per_brick * obj.server.height_u + obj.head.height_u + exp


class MetadataCellItemSerializer(serializers.ModelSerializer):
    class Meta:
        model = cat.MetadataCellItem
        fields = ("kind", "item_slug", "count", "role", "source")


class MetadataCellSerializer(serializers.ModelSerializer):
    items = MetadataCellItemSerializer(many=True, read_only=True)

    class Meta:
        model = cat.MetadataCell
        fields = COMMON + ("items",)


class PriceItemSerializer(serializers.ModelSerializer):
    unit_price = serializers.FloatField()

    class Meta:
        model = cat.PriceItem
        fields = ("kind", "item_slug", "unit_price", "note")


class PriceListSerializer(serializers.ModelSerializer):
    items = PriceItemSerializer(many=True, read_only=True)
    energy_price_per_kwh = serializers.FloatField()

    class Meta:
        model = cat.PriceList
        fields = ("slug", "name", "currency", "effective_date", "illustrative", "service_years", "energy_price_per_kwh", "pue", "notes", "items")


# ---------------------------------------------------------------- DesignSpec (input)


class BrickEntrySerializer(serializers.Serializer):
    """One line of a design: so many bricks of a template, with optional overrides."""

    template = serializers.SlugField(help_text="Brick template slug, e.g. md3460-performance.")
    count = serializers.IntegerField(
        min_value=1, max_value=spec_rules.MAX_BRICKS_PER_ENTRY,
        error_messages={
            "min_value": f"must be between 1 and {spec_rules.MAX_BRICKS_PER_ENTRY}",
            "max_value": f"must be between 1 and {spec_rules.MAX_BRICKS_PER_ENTRY}",
        },
    )
    disk = serializers.SlugField(required=False, allow_null=True, help_text="Disk slug overriding the template's, e.g. nl-sas-6tb.")
    expansions = serializers.IntegerField(required=False, allow_null=True, min_value=0, max_value=spec_rules.MAX_EXPANSIONS,
                                          help_text="Expansion enclosures behind each head.")
    adapter = serializers.SlugField(required=False, allow_null=True, help_text="Network adapter slug overriding the template's.")


class MetadataSerializer(serializers.Serializer):
    cell = serializers.SlugField(required=False, default="mds-cell")
    placement = serializers.ChoiceField(choices=["in_rack", "separate_rack", "none"], required=False, default="in_rack")


class ClientsSerializer(serializers.Serializer):
    count = serializers.IntegerField(min_value=1, max_value=spec_rules.MAX_CLIENTS)
    adapter = serializers.SlugField()


class DesignSpecSerializer(serializers.Serializer):
    """A DesignSpec (contract v1). Everything but `bricks` has a default."""

    name = serializers.CharField(required=False, max_length=200, default="Untitled design")
    bricks = BrickEntrySerializer(many=True, allow_empty=False)
    metadata = MetadataSerializer(required=False)
    rack = serializers.SlugField(required=False, default="rack-42u")
    tuning = serializers.SlugField(required=False, default="large-io")
    failover = serializers.ChoiceField(choices=["paired", "none"], required=False, default="paired")
    clients = ClientsSerializer(required=False, allow_null=True)
    price_list = serializers.SlugField(required=False, default="illustrative")

    def validate_bricks(self, value):
        if len(value) > spec_rules.MAX_BRICK_ENTRIES:
            raise serializers.ValidationError(f"at most {spec_rules.MAX_BRICK_ENTRIES} brick lines in one design")
        total = sum(entry["count"] for entry in value)
        if total > spec_rules.MAX_TOTAL_BRICKS:
            raise serializers.ValidationError(
                f"{total} bricks in all is too large to evaluate quickly; at most {spec_rules.MAX_TOTAL_BRICKS} bricks per design"
            )
        return value

    def to_internal_value(self, data):
        if isinstance(data, dict):
            unknown = sorted(set(data) - set(self.fields))
            if unknown:
                raise serializers.ValidationError({key: ["unknown field"] for key in unknown})
        return super().to_internal_value(data)


# ---------------------------------------------------------------- Evaluation (output, for the schema)


class StageSerializer(serializers.Serializer):
    brick = serializers.CharField()
    stage = serializers.CharField()
    read_gbps = serializers.FloatField()
    write_gbps = serializers.FloatField()
    limiting = serializers.DictField(child=serializers.BooleanField())


class PriceLineSerializer(serializers.Serializer):
    kind = serializers.CharField()
    item = serializers.CharField()
    name = serializers.CharField()
    quantity = serializers.FloatField()
    unit_price = serializers.FloatField()
    total = serializers.FloatField()


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


class RackItemSerializer(serializers.Serializer):
    u = serializers.IntegerField()
    height = serializers.IntegerField()
    item = serializers.CharField()
    kind = serializers.CharField()
    label = serializers.CharField()
    group = serializers.CharField()
    power_w = serializers.FloatField()
    weight_kg = serializers.FloatField()


class RackOutSerializer(serializers.Serializer):
    index = serializers.IntegerField()
    rack = serializers.CharField()
    units_total = serializers.IntegerField()
    units_used = serializers.IntegerField()
    power_w = serializers.FloatField()
    weight_kg = serializers.FloatField()
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
    weight_kg = serializers.FloatField()
    counts = serializers.DictField(child=serializers.IntegerField())
    warnings = serializers.ListField(child=serializers.CharField())
    assumptions = serializers.ListField(child=serializers.CharField())
    sources = serializers.DictField()
