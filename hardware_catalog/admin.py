"""Admin for every catalogue kind: staff edit figures, their source notes, and prices."""

from django.contrib import admin

from . import models


class SourcedAdmin(admin.ModelAdmin):
    """Common list and search settings; `sources` is edited as JSON (figure -> note)."""

    search_fields = ("slug", "name", "vendor", "model")
    readonly_fields = ("missing_source_notes",)

    @admin.display(description="Figures without a source note")
    def missing_source_notes(self, obj) -> str:
        if obj is None or obj.pk is None:
            return "-"
        return ", ".join(obj.missing_sources()) or "none"


class IncompleteAdmin(SourcedAdmin):
    """Parts imported from a device-type file list the figures they still lack; entering a figure with its
    source note (in `sources`) takes it off the list when saved."""

    readonly_fields = ("missing_source_notes", "missing_figures")

    @admin.display(boolean=True, description="Complete")
    def complete(self, obj) -> bool:
        return not obj.missing_figures


@admin.register(models.Disk)
class DiskAdmin(SourcedAdmin):
    list_display = ("slug", "name", "interface", "capacity_tb", "read_mbps", "write_mbps", "power_w")
    list_filter = ("interface", "form_factor")


@admin.register(models.Server)
class ServerAdmin(IncompleteAdmin):
    list_display = ("slug", "name", "height_u", "pcie_slots", "internal_bays", "power_w", "weight_kg", "complete")


@admin.register(models.Enclosure)
class EnclosureAdmin(IncompleteAdmin):
    list_display = ("slug", "name", "kind", "height_u", "drive_slots", "controller_read_mbps", "controller_write_mbps", "complete")
    list_filter = ("kind",)


@admin.register(models.Adapter)
class AdapterAdmin(SourcedAdmin):
    list_display = ("slug", "name", "kind", "ports", "port_gbps", "pcie_effective_gbps")
    list_filter = ("kind",)


@admin.register(models.Switch)
class SwitchAdmin(IncompleteAdmin):
    list_display = ("slug", "name", "kind", "ports", "port_gbps", "height_u", "complete")


class RackSwitchInline(admin.TabularInline):
    model = models.RackSwitch
    extra = 0


@admin.register(models.Rack)
class RackAdmin(SourcedAdmin):
    list_display = ("slug", "name", "units", "power_budget_w", "max_load_kg")
    inlines = [RackSwitchInline]


@admin.register(models.TuningProfile)
class TuningProfileAdmin(SourcedAdmin):
    list_display = ("slug", "name", "request_kib", "software_read_efficiency", "software_write_efficiency")


@admin.register(models.BrickTemplate)
class BrickTemplateAdmin(SourcedAdmin):
    list_display = ("slug", "name", "role", "server", "head", "expansion", "expansions", "disk")
    list_filter = ("role", "raid_level")
    autocomplete_fields = ("server", "hba", "network_adapter", "head", "expansion", "disk")


class MetadataCellItemInline(admin.TabularInline):
    model = models.MetadataCellItem
    extra = 0


@admin.register(models.MetadataCell)
class MetadataCellAdmin(SourcedAdmin):
    list_display = ("slug", "name")
    inlines = [MetadataCellItemInline]


class PriceItemInline(admin.TabularInline):
    model = models.PriceItem
    extra = 0


@admin.register(models.PriceList)
class PriceListAdmin(admin.ModelAdmin):
    list_display = ("slug", "name", "currency", "effective_date", "illustrative", "service_years")
    search_fields = ("slug", "name")
    inlines = [PriceItemInline]
