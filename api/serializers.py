"""API serializers: catalogue records (read-only), the DesignSpec (input) and the Evaluation (output)."""

from __future__ import annotations

import threading

from django.core.exceptions import ValidationError as DjangoValidationError
from django.db import models as dj_models
from django.db import transaction
from django.http import QueryDict
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
    """A disk model: capacity (decimal TB), streaming rates, power, reliability, each figure with its source note."""

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
            "ure_per_bit",
        )


class IncompleteFieldsMixin(serializers.Serializer):
    """Parts imported from a device-type file may lack figures the planner needs: listed here, read-only.
    A figure leaves the list when it gets a source note (write `sources` with the value)."""

    missing_figures = serializers.ListField(
        child=serializers.CharField(),
        read_only=True,
        help_text="Figures not known yet (their stored values are placeholders); empty for a complete part.",
    )
    incomplete = serializers.BooleanField(read_only=True, help_text="True while figures are missing: designs cannot use the part.")


INCOMPLETE = ("missing_figures", "incomplete")


class ServerSerializer(FullCleanMixin, IncompleteFieldsMixin, serializers.ModelSerializer):
    """An object storage server model with its figures and their source notes."""

    class Meta:
        model = cat.Server
        fields = (
            COMMON
            + ("height_u", "pcie_slots", "pcie_gen", "internal_bays", "cpu", "memory_gb", "power_w", "max_power_w", "weight_kg")
            + INCOMPLETE
        )


class EnclosureSerializer(FullCleanMixin, IncompleteFieldsMixin, serializers.ModelSerializer):
    """A RAID head, expansion enclosure, JBOD, SAN array or a server's internal bays, with its figures and source notes."""

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
        ) + INCOMPLETE


class AdapterSerializer(FullCleanMixin, serializers.ModelSerializer):
    """A SAS HBA, InfiniBand HCA or Ethernet NIC with its figures and their source notes."""

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
    """A rack accessory (PDU, cable, rail kit, blanking panel) with its figures and their source notes."""

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


class SwitchSerializer(FullCleanMixin, IncompleteFieldsMixin, serializers.ModelSerializer):
    """A network switch (InfiniBand or Ethernet) with its ports, figures and source notes."""

    class Meta:
        model = cat.Switch
        fields = COMMON + ("kind", "ports", "port_gbps", "height_u", "power_w", "weight_kg") + INCOMPLETE


class RackSwitchSerializer(serializers.Serializer):
    switch = serializers.SlugRelatedField(slug_field="slug", queryset=cat.Switch.objects.all())
    count = serializers.IntegerField(min_value=1, max_value=8)


class RackSerializer(NestedListWriteMixin, FullCleanMixin, serializers.ModelSerializer):
    """A rack model: height, power budget, weight limit, and the switches and PDUs every rack of it holds."""

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
    """A Lustre tuning profile: RPC and request sizes, software efficiencies, and the settings that realise it."""

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
    """A brick template in the catalogue: its parts, RAID layout and counts (staff edit these)."""

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
    """A metadata cell (MDS pair, MGS, MDT storage, management) and the parts it is made of."""

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
    """A price list (illustrative until real quotes are entered): its items, energy price, PUE and service years."""

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


class JsonTypesMixin:
    """Keep the JSON types the schema documents: "count": "8", "name": 0 or "mixes": 0 are refused
    (400 naming the field), not coerced as DRF does for form data."""

    def to_internal_value(self, data):
        if isinstance(data, dict) and not isinstance(data, QueryDict):  # form data is all strings
            fields = self.fields
            wrong = {key: [problem] for key, value in data.items() if key in fields and (problem := json_type_problem(fields[key], value))}
            if wrong:
                raise serializers.ValidationError(wrong)
        return super().to_internal_value(data)


def _fresh_copy(field):
    """A declared field ready to bind to a new serializer: a shallow copy (see StrictFieldsMixin), with a
    nested serializer's cached fields dropped and a list serializer's child copied and bound to the copy.
    The copy is made as copy.copy makes it (a new instance of the class with the same attribute dict),
    without copy's __reduce_ex__ round trip and without running the class's __new__ (DRF's records the
    constructor arguments, which the copied dict holds already): a tenth of the time per field."""
    new = object.__new__(type(field))
    new.__dict__.update(field.__dict__)
    if isinstance(field, serializers.BaseSerializer):
        new.__dict__.pop("fields", None)  # a cached_property: the copy builds (and binds) its own
        if isinstance(field, serializers.ListSerializer):
            new.child = _fresh_copy(field.child)
            new.child.source = field.child._kwargs.get("source")  # as constructed, before its first binding
            new.child.bind(field_name="", parent=new)
    return new


class StrictFieldsMixin(JsonTypesMixin):
    """Refuse fields the serializer does not know (a typo such as `expansion` must not be ignored),
    and values of the wrong JSON type (JsonTypesMixin).

    Also builds its fields cheaply: DRF deep-copies every declared field for every request (re-running
    each field's constructor), which was a third of an evaluate request. A plain field is copied
    shallowly (binding sets its name and parent on the copy; the rest is read-only configuration);
    a nested serializer too, without the fields it may have cached, so that it builds its own."""

    def get_fields(self):
        return {name: _fresh_copy(field) for name, field in self._declared_fields.items()}

    def to_internal_value(self, data):
        if isinstance(data, dict):
            unknown = sorted(set(data) - set(self.fields))
            if unknown:
                raise serializers.ValidationError({key: [f"unknown field; expected one of: {', '.join(self.fields)}"] for key in unknown})
        return super().to_internal_value(data)


def json_type_problem(field, value) -> str | None:
    """What is wrong with a JSON value's type for a field (in DRF's own words for that field), or
    None. DRF coerces form-style values ("8" or true for an integer, 0 for a string or a boolean); a
    JSON body has real types, and the schema documents them, so they are kept. Lists and dicts are
    looked into; nested serializers check their own fields."""
    if value is None or field.read_only:
        return None  # allow_null decides
    if isinstance(field, serializers.BooleanField):
        ok = isinstance(value, bool)
    elif isinstance(field, serializers.IntegerField):
        ok = (isinstance(value, int) and not isinstance(value, bool)) or (isinstance(value, float) and value.is_integer())
    elif isinstance(field, (serializers.FloatField, serializers.DecimalField)):
        ok = isinstance(value, (int, float)) and not isinstance(value, bool)
    elif isinstance(field, serializers.CharField):
        ok = isinstance(value, str)
    elif isinstance(field, serializers.ListField) and isinstance(value, list):
        return next((f"item {i}: {p}" for i, item in enumerate(value) if (p := json_type_problem(field.child, item))), None)
    elif isinstance(field, serializers.DictField) and isinstance(value, dict):
        return next((f"{k}: {p}" for k, item in value.items() if (p := json_type_problem(field.child, item))), None)
    else:
        return None
    return None if ok else str(field.error_messages.get("invalid", "has the wrong type"))


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
    declustered = serializers.BooleanField(
        required=False,
        help_text="Declustered parity (dRAID, GPFS-style, dynamic disk pools): the enclosure's groups and spares form one pool "
        "and a rebuild spreads over all its disks, faster by pool width / stripe width. Not for raid10.",
    )


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
    """The metadata cell: which model, where it goes (in the first rack, a rack of its own, or provided elsewhere) and optionally its MDT storage."""

    cell = _slug(required=False, default=spec_rules.SPEC_DEFAULTS["metadata"]["cell"])
    placement = serializers.ChoiceField(
        choices=list(spec_rules.PLACEMENT_CHOICES), required=False, default=spec_rules.SPEC_DEFAULTS["metadata"]["placement"]
    )
    mdt = MdtSerializer(required=False, allow_null=True, help_text="Compose the cell's MDT storage: disk, count, RAID layout, MDT count.")


class ClientsSerializer(StrictFieldsMixin, serializers.Serializer):
    """The clients: how many, their network adapter, streams each and RPC round trip; throughput is capped by what they can drive."""

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
    """The client fabric: edge oversubscription and core bandwidth between the clients and the storage."""

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


_spec_trees = threading.local()


def validate_design_spec(data) -> tuple[dict | None, dict | None]:
    """(validated DesignSpec, None) or (None, field errors as `DesignSpecSerializer(data=data).errors`).

    A serializer builds its tree of field objects (one per field of every nested serializer) for
    each use; validating reads that tree and never writes to it. So each thread keeps one bound tree
    and runs the validation on it: a tenth of an evaluate request's time went into the building.
    Invalid data is validated again by a fresh serializer, so its messages are exactly DRF's."""
    tree = getattr(_spec_trees, "spec", None)
    if tree is None:
        tree = DesignSpecSerializer()
        tree.fields  # noqa: B018 - builds and binds the nested fields once for this thread
        _spec_trees.spec = tree
    try:
        return tree.run_validation(data), None
    except (serializers.ValidationError, DjangoValidationError):
        pass
    fresh = DesignSpecSerializer(data=data)
    if fresh.is_valid():
        return fresh.validated_data, None
    return None, fresh.errors


# ---------------------------------------------------------------- Evaluation (output, for the schema)


class StageSerializer(serializers.Serializer):
    brick = serializers.CharField()
    stage = serializers.CharField()
    label = serializers.CharField(help_text="The stage in words for this brick, e.g. 'Software RAID (servers)' for a JBOD's RAID stage.")
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


class ReliabilityLineSerializer(serializers.Serializer):
    brick = serializers.CharField(help_text="Brick template of the line.")
    level = serializers.CharField()
    stripe_width = serializers.IntegerField(help_text="Disks per RAID group (data + parity).")
    declustered = serializers.BooleanField()
    pool_disks = serializers.IntegerField(help_text="Disks a rebuild spreads over (the stripe, or a declustered pool).")
    rebuild_share = serializers.FloatField(help_text="Share of the disks' sustained rate given to a rebuild (assumption, see assumptions).")
    rebuild_mbps = serializers.FloatField(help_text="Rebuild rate of one failed disk, MB/s.")
    rebuild_hours = serializers.FloatField(help_text="Hours to rebuild one failed disk (disk capacity / rebuild rate).")
    disk_mttf_hours = serializers.FloatField(help_text="8766 h / the disk's AFR.")
    ure_per_bit = serializers.FloatField(help_text="Unrecoverable read errors per bit read (data sheet, or the stated default).")
    p_read_error_in_rebuild = serializers.FloatField(help_text="Probability of a read error while rebuilding without redundancy.")
    group_mttdl_hours = serializers.FloatField(allow_null=True, help_text="Mean time to data loss of one group or pool, hours.")
    groups = serializers.IntegerField(help_text="RAID groups (or declustered pools) in the line.")
    read_gbps_per_brick_rebuilding = serializers.FloatField(help_text="A brick's read GB/s while one of its disks rebuilds.")
    write_gbps_per_brick_rebuilding = serializers.FloatField(help_text="A brick's write GB/s while one of its disks rebuilds.")
    throughput_lost_while_rebuilding = serializers.FloatField(help_text="Share (0-1) of a brick's throughput lost during a rebuild.")


class ReliabilitySerializer(serializers.Serializer):
    lines = ReliabilityLineSerializer(many=True)
    rebuild_hours_max = serializers.FloatField(help_text="The longest rebuild of any line, hours.")
    groups = serializers.IntegerField(help_text="RAID groups (or declustered pools) in the file system.")
    mttdl_hours = serializers.FloatField(allow_null=True, help_text="The file system's mean time to data loss, hours.")
    annual_loss_probability = serializers.FloatField(
        allow_null=True, help_text="P(data loss within a year) = 1 - exp(-8766 h / MTTDL of the file system)."
    )
    assumptions = serializers.ListField(child=serializers.CharField())


class OstBalanceSerializer(serializers.Serializer):
    ost_tib = serializers.ListField(child=serializers.FloatField(), help_text="One OST's usable TiB, per brick line.")
    ost_tib_smallest = serializers.FloatField()
    ost_tib_largest = serializers.FloatField()
    spread = serializers.FloatField(allow_null=True, help_text="Largest / smallest OST - 1.")
    uneven = serializers.BooleanField(help_text="Spread over Lustre's qos_threshold_rr (17 %): the allocator weights by free space.")
    threshold = serializers.FloatField()
    largest_lines = serializers.ListField(child=serializers.CharField(), help_text="Brick lines holding the largest OSTs.")
    read_gbps_once_smaller_full = serializers.FloatField(help_text="Read GB/s of those lines alone, once the smaller OSTs are full.")
    write_gbps_once_smaller_full = serializers.FloatField(help_text="Write GB/s of those lines alone, once the smaller OSTs are full.")


class EvaluationSerializer(serializers.Serializer):
    """The Evaluation (contract v1). Capacity: usable in binary PiB/TiB, raw in decimal TB; throughput GB/s."""

    name = serializers.CharField()
    usable_pib = serializers.FloatField()
    usable_tib = serializers.FloatField()
    raw_tb = serializers.FloatField()
    read_gbps = serializers.FloatField()
    write_gbps = serializers.FloatField()
    bottleneck = serializers.DictField(
        child=serializers.CharField(),
        help_text="The limiting stage of reads and writes (`read`, `write`: stage keys) and the same in words (`read_label`, `write_label`)",
    )
    stages = StageSerializer(many=True)
    bricks = serializers.ListField(child=serializers.DictField())
    degraded = serializers.DictField(
        help_text="One OSS server down: read_gbps, write_gbps, the failover applied ('paired' or 'none'; an automatic "
        "failover as it was resolved) and the scenario in words"
    )
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
    reliability = ReliabilitySerializer(
        allow_null=True, help_text="Rebuild time and throughput while rebuilding per line; MTTDL and annual data-loss probability."
    )
    ost_balance = OstBalanceSerializer(
        allow_null=True, help_text="OSTs of different sizes (mixed generations); null when all OSTs have one size."
    )
