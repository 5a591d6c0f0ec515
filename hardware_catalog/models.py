"""The hardware catalogue: real parts with their figures, each figure with its source.

Units, stated once (see README): disk capacity in decimal TB (10^12 bytes); sequential rates in
MB/s (10^6 bytes/s); link signalling rates in Gb/s (10^9 bits/s) per lane or port; effective
payload bandwidths in GB/s (10^9 bytes/s); power in watts; weight in kilograms; heights in rack
units (U). Every figure that the planning engine uses is listed in the model's SOURCED_FIELDS and
must have a note in `sources` saying where it comes from (data sheet, publication, calibration
or explicit assumption).
"""

from django.core.exceptions import ValidationError
from django.core.validators import MaxValueValidator, MinValueValidator
from django.db import models


def _positive(value: float = 0) -> list:
    return [MinValueValidator(value)]


class CatalogueItem(models.Model):
    """Fields every catalogue record shares: a stable slug, names, and per-figure source notes."""

    SOURCED_FIELDS: tuple[str, ...] = ()

    slug = models.SlugField(max_length=80, unique=True, help_text="Stable identifier used by designs and the API.")
    vendor = models.CharField(max_length=80, blank=True)
    model = models.CharField(max_length=120, blank=True)
    name = models.CharField(max_length=160, help_text="Display name.")
    description = models.TextField(blank=True)
    sources = models.JSONField(
        default=dict,
        blank=True,
        help_text="Map of figure name to its source note (data sheet, publication, calibration or assumption).",
    )

    class Meta:
        abstract = True
        ordering = ["slug"]

    def __str__(self) -> str:
        return self.name or self.slug

    def missing_sources(self) -> list[str]:
        """Figures used by the engine that carry no source note."""
        notes = self.sources or {}
        not_yet = set(getattr(self, "missing_figures", None) or ())  # placeholders of an incomplete part
        missing = []
        for field in self.SOURCED_FIELDS:
            if getattr(self, field, None) in (None, "") or field in not_yet:
                continue
            if not str(notes.get(field, "")).strip():
                missing.append(field)
        return missing

    def clean(self) -> None:
        super().clean()
        if not isinstance(self.sources, dict):
            raise ValidationError({"sources": "must be an object mapping figure names to notes"})
        missing = self.missing_sources()
        if missing:
            raise ValidationError({"sources": f"no source note for: {', '.join(missing)}"})


class IncompleteMixin(models.Model):
    """A part imported with figures the planner needs but its source did not carry (a device-type file
    from the community library has no PCIe slots, drive slots or controller limits).

    `missing_figures` lists those figures; the values stored for them meanwhile are placeholders (the
    columns are NOT NULL) and never reach the engine: a design, template or solve naming the part is
    refused until the list is empty. A figure leaves the list when it gets a source note in `sources`
    (admin or staff API): entering the value and saying where it comes from is what completes it."""

    missing_figures = models.JSONField(
        default=list,
        blank=True,
        help_text="Figures the planner needs that are not known yet (placeholders stored). A figure leaves this "
        "list when its source note is entered in `sources`; the part is usable in designs when the list is empty.",
    )

    class Meta:
        abstract = True

    @property
    def incomplete(self) -> bool:
        return bool(self.missing_figures)

    def settle_missing_figures(self) -> None:
        """Drop from `missing_figures` every figure that now has a source note and a value."""
        if not isinstance(self.missing_figures, list):
            return
        notes = self.sources if isinstance(self.sources, dict) else {}
        self.missing_figures = [
            f for f in self.missing_figures if not (str(notes.get(f, "")).strip() and getattr(self, f, None) not in (None, ""))
        ]

    def clean(self) -> None:
        if not isinstance(self.missing_figures, list) or not all(isinstance(f, str) for f in self.missing_figures):
            raise ValidationError({"missing_figures": "must be a list of figure names"})
        unknown = [f for f in self.missing_figures if f not in self.SOURCED_FIELDS]
        if unknown:
            raise ValidationError({"missing_figures": f"not figures of this part: {', '.join(unknown)}"})
        super().clean()

    def save(self, *args, **kwargs):
        self.settle_missing_figures()
        update_fields = kwargs.get("update_fields")
        if update_fields is not None and "sources" in update_fields:
            kwargs["update_fields"] = set(update_fields) | {"missing_figures"}
        super().save(*args, **kwargs)

    def incomplete_message(self, what: str) -> str:
        """'server dell-r730xd (Dell PowerEdge R730xd) is incomplete: ...' for the 400 that refuses it."""
        return (
            f"{what} '{self.slug}' ({self.name}) is incomplete: no {', '.join(self.missing_figures)} yet "
            "(imported from a device-type file that does not carry them); enter them with source notes in the catalogue first"
        )


class Disk(CatalogueItem):
    """A disk drive model. Capacity is vendor decimal; rates are sustained sequential MB/s."""

    class Interface(models.TextChoices):
        NL_SAS = "nl-sas", "7.2k NL-SAS"
        SAS_10K = "sas-10k", "10k SAS"
        SAS_15K = "sas-15k", "15k SAS"
        SATA = "sata", "SATA"
        SSD_SAS = "ssd-sas", "SAS SSD"

    SOURCED_FIELDS = ("capacity_tb", "read_mbps", "write_mbps", "inner_mbps", "random_iops", "power_w", "weight_kg", "afr_percent", "ure_per_bit")

    interface = models.CharField(max_length=16, choices=Interface.choices)
    form_factor = models.CharField(max_length=8, choices=[("3.5", '3.5"'), ("2.5", '2.5"')], default="3.5")
    rpm = models.PositiveIntegerField(null=True, blank=True, help_text="Spindle speed; empty for SSDs.")
    capacity_tb = models.DecimalField(max_digits=8, decimal_places=3, validators=_positive(0.001), help_text="Decimal TB (10^12 bytes).")
    read_mbps = models.FloatField(validators=_positive(1), help_text="Sustained sequential read, MB/s.")
    write_mbps = models.FloatField(validators=_positive(1), help_text="Sustained sequential write, MB/s.")
    inner_mbps = models.FloatField(
        null=True,
        blank=True,
        validators=_positive(1),
        help_text="Sustained rate at the inner zone, MB/s (data sheet); empty for an SSD (no zones). The planner streams at the average of outer and inner.",
    )
    random_iops = models.FloatField(validators=_positive(1), help_text="Random 4 KiB IOPS (mixed), per drive.")
    power_w = models.FloatField(validators=_positive(0), help_text="Average operating power, W.")
    weight_kg = models.FloatField(validators=_positive(0), help_text="Weight with carrier, kg.")
    afr_percent = models.FloatField(validators=_positive(0), help_text="Annualised failure rate, %.")
    ure_per_bit = models.FloatField(
        null=True,
        blank=True,
        validators=[MinValueValidator(0), MaxValueValidator(1e-9)],
        help_text="Unrecoverable read errors per bit read, as the data sheet gives it (1e-14, 1e-15 or 1e-16); empty: the planner assumes 1e-15.",
    )

    @property
    def capacity_bytes(self) -> int:
        return int(self.capacity_tb * 10**12)


class Server(CatalogueItem, IncompleteMixin):
    """A server model (object storage, metadata or management server)."""

    SOURCED_FIELDS = ("height_u", "pcie_slots", "internal_bays", "power_w", "weight_kg")

    height_u = models.PositiveSmallIntegerField(validators=_positive(1))
    pcie_slots = models.PositiveSmallIntegerField()
    pcie_gen = models.PositiveSmallIntegerField(default=3)
    internal_bays = models.PositiveSmallIntegerField(default=0, help_text="Front drive bays usable for data.")
    cpu = models.CharField(max_length=120, blank=True)
    memory_gb = models.PositiveIntegerField(default=0)
    power_w = models.FloatField(validators=_positive(0), help_text="Typical power under streaming load, W.")
    max_power_w = models.FloatField(null=True, blank=True, help_text="Power supply rating, W.")
    weight_kg = models.FloatField(validators=_positive(0))


class Enclosure(CatalogueItem, IncompleteMixin):
    """A disk enclosure: RAID head, expansion, JBOD, iSCSI array, or a server's internal bays.

    The uplink is the enclosure's connection towards the server: for a RAID head or JBOD its host
    ports, for an expansion enclosure its link to the head, for an iSCSI array its Ethernet ports,
    for internal bays the backplane. The controller figures are the sustained streaming limits of
    all the enclosure's RAID controllers together (the pair, for dual-controller heads).
    """

    class Kind(models.TextChoices):
        RAID_HEAD = "raid_head", "RAID head (controllers)"
        EXPANSION = "expansion", "Expansion enclosure"
        JBOD = "jbod", "JBOD"
        ISCSI_ARRAY = "iscsi_array", "iSCSI SAN array"
        FC_ARRAY = "fc_array", "Fibre Channel SAN array"
        INTERNAL = "internal", "Server internal bays"

    SOURCED_FIELDS = (
        "height_u",
        "drive_slots",
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

    kind = models.CharField(max_length=16, choices=Kind.choices)
    height_u = models.PositiveSmallIntegerField(help_text="0 for a server's internal bays.")
    drive_slots = models.PositiveSmallIntegerField(validators=_positive(1))
    drive_form_factor = models.CharField(max_length=8, default="3.5")
    controllers = models.PositiveSmallIntegerField(default=0, help_text="RAID controllers; 0 for JBOD/expansion.")
    controller_read_mbps = models.FloatField(null=True, blank=True, help_text="All controllers together, sustained read, MB/s.")
    controller_write_mbps = models.FloatField(
        null=True, blank=True, help_text="All controllers together, sustained full-stripe write, MB/s."
    )
    controller_requests_per_s = models.FloatField(
        null=True, blank=True, help_text="Large-request service rate of all controllers together, requests/s."
    )
    uplink_ports = models.PositiveSmallIntegerField(default=0, help_text="Ports towards the server (or head) in total.")
    uplink_lanes = models.PositiveSmallIntegerField(default=1, help_text="Lanes per port (4 for a SAS wide port).")
    uplink_lane_gbps = models.FloatField(default=0, help_text="Signalling rate per lane, Gb/s.")
    uplink_efficiency = models.FloatField(default=1.0, help_text="Encoding x protocol efficiency of the uplink.")
    max_expansions = models.PositiveSmallIntegerField(
        default=0, help_text="Expansion enclosures supported behind this head (for a SAN array: further members in its group)."
    )
    cache_merge = models.FloatField(
        null=True,
        blank=True,
        help_text="Share (0-1) of a sequential stream's partial-stripe writes that the write-back cache coalesces into full stripes.",
    )
    max_request_kib = models.PositiveIntegerField(
        null=True, blank=True, help_text="Largest request the controllers take in one piece, KiB (empty: no limit below the host's)."
    )
    power_w = models.FloatField(validators=_positive(0), help_text="Power without drives (controllers, fans, supplies), W.")
    weight_kg = models.FloatField(validators=_positive(0), help_text="Weight without drives, kg.")
    cable = models.ForeignKey(
        "Accessory",
        null=True,
        blank=True,
        on_delete=models.PROTECT,
        related_name="+",
        help_text="Cable per uplink port (expansions, SAN arrays).",
    )

    def clean(self) -> None:
        super().clean()
        if self.cache_merge is not None and not 0 <= self.cache_merge <= 1:
            raise ValidationError({"cache_merge": "a share between 0 and 1"})
        if self.kind in (self.Kind.RAID_HEAD, self.Kind.ISCSI_ARRAY, self.Kind.FC_ARRAY, self.Kind.INTERNAL) and self.controllers:
            for field in ("controller_read_mbps", "controller_write_mbps"):
                if getattr(self, field) in (None, 0):
                    raise ValidationError({field: "required for an enclosure with RAID controllers"})


class Adapter(CatalogueItem):
    """A host adapter: SAS HBA, InfiniBand HCA or Ethernet NIC.

    Effective payload bandwidth (GB/s) = ports x port rate x encoding efficiency x protocol
    efficiency / 8, capped by the adapter's PCIe slot.
    """

    class Kind(models.TextChoices):
        SAS_HBA = "sas_hba", "SAS HBA"
        IB_HCA = "ib_hca", "InfiniBand HCA"
        ETH_NIC = "eth_nic", "Ethernet NIC"

    SOURCED_FIELDS = ("ports", "port_gbps", "encoding_efficiency", "protocol_efficiency", "pcie_effective_gbps", "power_w")

    kind = models.CharField(max_length=16, choices=Kind.choices)
    ports = models.PositiveSmallIntegerField(validators=_positive(1), help_text="Ports (SAS: x4 wide ports) used for data.")
    port_gbps = models.FloatField(validators=_positive(0.001), help_text="Signalling rate per port, Gb/s (SAS: all 4 lanes).")
    encoding_efficiency = models.FloatField(help_text="Line-code efficiency: 8b/10b = 0.8, 64b/66b = 0.97.")
    protocol_efficiency = models.FloatField(help_text="Payload share after framing and protocol overhead.")
    pcie_gen = models.PositiveSmallIntegerField(default=3)
    pcie_lanes = models.PositiveSmallIntegerField(default=8)
    pcie_effective_gbps = models.FloatField(help_text="Payload the adapter's PCIe slot carries, GB/s.")
    power_w = models.FloatField(default=0)
    cable = models.ForeignKey(
        "Accessory", null=True, blank=True, on_delete=models.PROTECT, related_name="+", help_text="Cable per port used."
    )

    @property
    def link_gbps(self) -> float:
        """Payload over the adapter's ports, GB/s (decimal)."""
        return self.link_gbps_at(self.port_gbps)

    def link_gbps_at(self, port_gbps: float) -> float:
        """Payload over the adapter's ports at a line rate of `port_gbps` Gb/s a port (a link trained
        down to a slower switch), GB/s."""
        return self.ports * port_gbps * self.encoding_efficiency * self.protocol_efficiency / 8

    @property
    def effective_gbps(self) -> float:
        """Effective payload bandwidth, GB/s: the port payload capped by PCIe."""
        return min(self.link_gbps, self.pcie_effective_gbps)


class Switch(CatalogueItem, IncompleteMixin):
    """A network switch (InfiniBand fabric or management Ethernet)."""

    class Kind(models.TextChoices):
        INFINIBAND = "infiniband", "InfiniBand"
        ETHERNET = "ethernet", "Ethernet"

    SOURCED_FIELDS = ("ports", "port_gbps", "height_u", "power_w", "weight_kg")

    kind = models.CharField(max_length=16, choices=Kind.choices)
    ports = models.PositiveSmallIntegerField(validators=_positive(1))
    port_gbps = models.FloatField()
    height_u = models.PositiveSmallIntegerField(default=1)
    power_w = models.FloatField(default=0)
    weight_kg = models.FloatField(default=0)


class Accessory(CatalogueItem):
    """What completes a rack: power distribution units, cables, rail kits and blanking panels.

    A PDU's capacity is phases x volts x amps x derating (W); cables are per port (`cable_type`
    says which ports: sas, infiniband, ethernet); a rail kit mounts one device; a blanking panel
    closes one free rack unit."""

    class Kind(models.TextChoices):
        PDU = "pdu", "Power distribution unit"
        CABLE = "cable", "Cable"
        RAIL_KIT = "rail_kit", "Rail kit"
        BLANKING_PANEL = "blanking_panel", "Blanking panel"

    SOURCED_FIELDS = ("height_u", "power_w", "weight_kg", "pdu_phases", "pdu_volts", "pdu_amps", "pdu_derating", "length_m")

    kind = models.CharField(max_length=16, choices=Kind.choices)
    height_u = models.PositiveSmallIntegerField(default=0, help_text="Rack units it takes (0: mounted in the rear, or none).")
    power_w = models.FloatField(default=0, validators=_positive(0), help_text="Its own power draw, W.")
    weight_kg = models.FloatField(default=0, validators=_positive(0))
    pdu_phases = models.PositiveSmallIntegerField(null=True, blank=True)
    pdu_volts = models.FloatField(null=True, blank=True, help_text="Voltage per phase (line to neutral), V.")
    pdu_amps = models.FloatField(null=True, blank=True, help_text="Current per phase, A.")
    pdu_derating = models.FloatField(null=True, blank=True, help_text="Share of the rating usable continuously (0.8 in North America).")
    pdu_inlet = models.CharField(max_length=80, blank=True, help_text="Inlet plug, e.g. IEC 60309 32 A 5-pin.")
    cable_type = models.CharField(max_length=16, blank=True, help_text="sas, infiniband or ethernet.")
    length_m = models.FloatField(null=True, blank=True)

    @property
    def pdu_capacity_w(self) -> float | None:
        """Continuous power a PDU delivers: phases x volts x amps x derating, W."""
        if self.kind != self.Kind.PDU or not (self.pdu_phases and self.pdu_volts and self.pdu_amps):
            return None
        return self.pdu_phases * self.pdu_volts * self.pdu_amps * (self.pdu_derating or 1.0)


class Rack(CatalogueItem):
    """A rack cabinet with its standard top-of-rack switches, its PDUs and uplinks, and its power budget."""

    SOURCED_FIELDS = ("units", "power_budget_w", "max_load_kg", "weight_kg", "pdus", "uplinks")

    units = models.PositiveSmallIntegerField(validators=_positive(1))
    power_budget_w = models.FloatField(validators=_positive(1), help_text="Power the rack's feeds deliver, W.")
    max_load_kg = models.FloatField(validators=_positive(1), help_text="Static load rating, kg.")
    weight_kg = models.FloatField(default=0, help_text="Empty cabinet with doors and panels, without its PDUs, kg.")
    switches = models.ManyToManyField(Switch, through="RackSwitch", blank=True)
    pdu = models.ForeignKey(Accessory, null=True, blank=True, on_delete=models.PROTECT, related_name="+", help_text="PDU model.")
    pdus = models.PositiveSmallIntegerField(default=0, help_text="PDUs per rack (2: A and B feeds).")
    uplink_cable = models.ForeignKey(Accessory, null=True, blank=True, on_delete=models.PROTECT, related_name="+")
    uplinks = models.PositiveSmallIntegerField(default=0, help_text="Cables from the top-of-rack switches to the core, per rack.")
    blanking_panel = models.ForeignKey(Accessory, null=True, blank=True, on_delete=models.PROTECT, related_name="+")
    rail_kit = models.ForeignKey(
        Accessory,
        null=True,
        blank=True,
        on_delete=models.PROTECT,
        related_name="+",
        help_text="Rail kit for each rack-mounted server or enclosure.",
    )


class RackSwitch(models.Model):
    """A switch fitted at the top of every rack of this model."""

    rack = models.ForeignKey(Rack, on_delete=models.CASCADE, related_name="rack_switches")
    switch = models.ForeignKey(Switch, on_delete=models.PROTECT)
    count = models.PositiveSmallIntegerField(default=1)

    class Meta:
        unique_together = [("rack", "switch")]

    def __str__(self) -> str:
        return f"{self.count} x {self.switch.slug} in {self.rack.slug}"


class TuningProfile(CatalogueItem):
    """An I/O tuning profile: the Lustre RPC size, the block layer's limits on one request, RPCs in
    flight, and Lustre's efficiency.

    The request reaching the controllers is the RPC split by the smallest of `max_sectors_kib` and
    `sg_entries` x 4 KiB pages (and, in the brick, the controller's own limit): a 4 MiB RPC helps
    only where every layer passes 4 MiB. `software_*_efficiency` is end-to-end (IOR) throughput
    over back-end (obdfilter-survey) throughput. `recipe` is the checklist of settings, a list of
    {layer, parameter, value}.
    """

    SOURCED_FIELDS = ("rpc_kib", "max_sectors_kib", "sg_entries", "rpcs_in_flight", "software_read_efficiency", "software_write_efficiency")

    rpc_kib = models.PositiveIntegerField(default=1024, validators=_positive(4), help_text="Lustre bulk RPC size, KiB.")
    max_sectors_kib = models.PositiveIntegerField(
        null=True, blank=True, help_text="Block layer's max_sectors_kb on the OSS: the largest request it issues, KiB."
    )
    sg_entries = models.PositiveIntegerField(
        null=True, blank=True, help_text="HBA driver's scatter-gather entries per request (x 4 KiB pages), e.g. mpt3sas max_sgl_entries."
    )
    rpcs_in_flight = models.PositiveIntegerField(default=8, help_text="Client osc.*.max_rpcs_in_flight.")
    software_read_efficiency = models.FloatField()
    software_write_efficiency = models.FloatField()
    recipe = models.JSONField(default=list, blank=True)

    @property
    def request_kib(self) -> int:
        """The request reaching the block device: the RPC split by the block layer's limits, KiB."""
        limits = [self.rpc_kib] + [v for v in (self.max_sectors_kib, (self.sg_entries or 0) * 4) if v]
        return min(limits)


class BrickTemplate(CatalogueItem):
    """A storage brick: OSS server(s), a head enclosure, expansions, disks in a RAID layout.

    Each enclosure holds `groups_per_enclosure` RAID groups of data + parity disks (plus
    `spares_per_enclosure` hot spares); each RAID group (virtual disk) is one Lustre OST.
    """

    class Raid(models.TextChoices):
        RAID6 = "raid6", "RAID 6"
        RAID5 = "raid5", "RAID 5"
        RAID10 = "raid10", "RAID 10"
        RAIDZ1 = "raidz1", "RAID-Z1 (ZFS)"
        RAIDZ2 = "raidz2", "RAID-Z2 (ZFS)"
        RAIDZ3 = "raidz3", "RAID-Z3 (ZFS)"

    SOURCED_FIELDS = ("host_ports", "fs_overhead_fraction", "software_raid_read_mbps", "software_raid_write_mbps")

    slug = models.SlugField(max_length=80, unique=True, help_text="Stable identifier used by designs and the API.")
    owner = models.ForeignKey(
        "auth.User",
        null=True,
        blank=True,
        on_delete=models.CASCADE,
        related_name="brick_templates",
        help_text="Empty: the catalogue's own.",
    )
    shared_with = models.ManyToManyField("auth.User", blank=True, related_name="brick_templates_shared")
    role = models.CharField(max_length=32, default="performance", help_text="performance, capacity, ... (for grouping).")
    server = models.ForeignKey(Server, on_delete=models.PROTECT, related_name="+")
    servers_per_brick = models.PositiveSmallIntegerField(default=1)
    hba = models.ForeignKey(Adapter, null=True, blank=True, on_delete=models.PROTECT, related_name="+")
    hba_count = models.PositiveSmallIntegerField(default=0, help_text="SAS HBAs per server.")
    network_adapter = models.ForeignKey(Adapter, on_delete=models.PROTECT, related_name="+")
    network_adapter_count = models.PositiveSmallIntegerField(default=1, help_text="Network adapters per server.")
    head = models.ForeignKey(Enclosure, on_delete=models.PROTECT, related_name="+")
    expansion = models.ForeignKey(Enclosure, null=True, blank=True, on_delete=models.PROTECT, related_name="+")
    expansions = models.PositiveSmallIntegerField(default=0, help_text="Expansion enclosures behind the head by default.")
    disk = models.ForeignKey(Disk, on_delete=models.PROTECT, related_name="+", help_text="Default disk model.")
    raid_level = models.CharField(max_length=8, choices=Raid.choices, default=Raid.RAID6)
    raid_data_disks = models.PositiveSmallIntegerField(validators=_positive(1))
    raid_parity_disks = models.PositiveSmallIntegerField(default=2)
    segment_kib = models.PositiveIntegerField(default=128, help_text="RAID segment (chunk) size per disk, KiB.")
    groups_per_enclosure = models.PositiveSmallIntegerField(validators=_positive(1))
    spares_per_enclosure = models.PositiveSmallIntegerField(default=0)
    host_ports = models.PositiveSmallIntegerField(
        default=0, help_text="Storage ports cabled per server (SAS wide ports to the head, or iSCSI/FC ports to the SAN)."
    )
    fs_overhead_fraction = models.FloatField(default=0.01, help_text="Share of the OST volume lost to the file system (journal, inodes).")
    software_raid_read_mbps = models.FloatField(
        null=True, blank=True, help_text="Per server, when parity is computed by the server (no RAID controllers)."
    )
    software_raid_write_mbps = models.FloatField(null=True, blank=True)

    @property
    def group_size(self) -> int:
        return self.raid_data_disks + self.raid_parity_disks

    def clean(self) -> None:
        super().clean()
        errors = {}
        for field in ("server", "head", "expansion"):
            part = getattr(self, field) if getattr(self, f"{field}_id") else None
            if part is not None and part.incomplete:
                errors[field] = part.incomplete_message("server" if field == "server" else "enclosure")
        if self.head_id and self.expansions > self.head.max_expansions:
            errors["expansions"] = f"the head {self.head.slug} supports at most {self.head.max_expansions} expansion enclosures"
        if self.expansions and not self.expansion_id:
            errors["expansion"] = "an expansion enclosure model is required when expansions > 0"
        if self.head_id and self.group_size * self.groups_per_enclosure + self.spares_per_enclosure > self.head.drive_slots:
            errors["groups_per_enclosure"] = (
                f"{self.groups_per_enclosure} groups of {self.group_size} disks plus spares exceed the head's {self.head.drive_slots} slots"
            )
        if errors:
            raise ValidationError(errors)


class MetadataCell(CatalogueItem):
    """The metadata part of a file system: MDS pair, MGS, metadata storage, management server."""

    SOURCED_FIELDS = ("mdt_count", "mdt_disk_count", "mdt_raid_level", "bytes_per_inode")

    mdt_count = models.PositiveSmallIntegerField(default=1, help_text="MDTs the cell's storage is formatted as (DNE).")
    mdt_enclosure = models.ForeignKey(
        Enclosure, null=True, blank=True, on_delete=models.PROTECT, related_name="+", help_text="Enclosure model holding the MDT disks."
    )
    mdt_disk = models.ForeignKey(Disk, null=True, blank=True, on_delete=models.PROTECT, related_name="+", help_text="MDT disk model.")
    mdt_disk_count = models.PositiveSmallIntegerField(default=0, help_text="MDT disks, spares included.")
    mdt_raid_level = models.CharField(max_length=8, choices=BrickTemplate.Raid.choices, default="raid10")
    mdt_raid_data = models.PositiveSmallIntegerField(default=1, help_text="Data disks per RAID group (mirrors for RAID 10).")
    mdt_raid_parity = models.PositiveSmallIntegerField(default=1, help_text="Parity disks per group (RAID 10: as many as data).")
    mdt_raid_groups = models.PositiveSmallIntegerField(default=1)
    bytes_per_inode = models.PositiveIntegerField(default=2560, help_text="ldiskfs MDT format: one inode per so many bytes.")

    def items_list(self):
        return list(self.items.all())


class MetadataCellItem(models.Model):
    """One line of a metadata cell: so many of a catalogue part, with a role label."""

    class Kind(models.TextChoices):
        SERVER = "server", "Server"
        ENCLOSURE = "enclosure", "Enclosure"
        DISK = "disk", "Disk"
        ADAPTER = "adapter", "Adapter"
        SWITCH = "switch", "Switch"

    cell = models.ForeignKey(MetadataCell, on_delete=models.CASCADE, related_name="items")
    kind = models.CharField(max_length=16, choices=Kind.choices)
    item_slug = models.SlugField(max_length=80)
    count = models.PositiveSmallIntegerField(default=1, validators=_positive(1))
    role = models.CharField(max_length=80, help_text="For example MDS, MGS, MDT storage, management.")
    source = models.TextField(blank=True)

    class Meta:
        ordering = ["id"]

    def __str__(self) -> str:
        return f"{self.count} x {self.item_slug} ({self.role})"


class PriceList(models.Model):
    """A dated price list in one currency; illustrative lists are labelled so everywhere."""

    slug = models.SlugField(max_length=80, unique=True)
    name = models.CharField(max_length=160)
    currency = models.CharField(max_length=3, default="USD")
    effective_date = models.DateField()
    illustrative = models.BooleanField(default=True, help_text="True until real quotes are entered.")
    service_years = models.PositiveSmallIntegerField(default=5, help_text="Years of service for support and energy.")
    energy_price_per_kwh = models.DecimalField(max_digits=8, decimal_places=4, default=0.12)
    pue = models.FloatField(default=1.5, help_text="Data-centre power usage effectiveness.")
    notes = models.TextField(blank=True, help_text="How the prices were chosen.")

    class Meta:
        ordering = ["slug"]

    def __str__(self) -> str:
        return self.name


class PriceItem(models.Model):
    """The unit price of one catalogue part (or service) in a price list."""

    class Kind(models.TextChoices):
        DISK = "disk", "Disk"
        SERVER = "server", "Server"
        ENCLOSURE = "enclosure", "Enclosure"
        ADAPTER = "adapter", "Adapter"
        SWITCH = "switch", "Switch"
        RACK = "rack", "Rack"
        ACCESSORY = "accessory", "Accessory (PDU, cable, rails, blanking panel)"
        SERVICE = "service", "Software/support per server-year"

    price_list = models.ForeignKey(PriceList, on_delete=models.CASCADE, related_name="items")
    kind = models.CharField(max_length=16, choices=Kind.choices)
    item_slug = models.SlugField(max_length=80)
    unit_price = models.DecimalField(max_digits=12, decimal_places=2, validators=_positive(0))
    note = models.TextField(blank=True)

    class Meta:
        ordering = ["kind", "item_slug"]
        unique_together = [("price_list", "kind", "item_slug")]

    def __str__(self) -> str:
        return f"{self.kind}:{self.item_slug} {self.unit_price} {self.price_list.currency}"
