"""Admin for the planner's own rows: designs, export and solve jobs, calibrations and API tokens.

Staff look and clean up here; what the planner computes (specs and prices of saved versions, job
progress and results, calibration fits) is read-only, because changing it by hand would make a row
disagree with how it was made. A token's key is never stored, and its hash is never shown.
"""

import json

from django.contrib import admin, messages
from django.utils import timezone
from django.utils.html import format_html

from . import models


def _pretty_json(value) -> str:
    return format_html("<pre style='white-space: pre-wrap; margin: 0'>{}</pre>", json.dumps(value, indent=2, sort_keys=True, default=str))


@admin.register(models.Design)
class DesignAdmin(admin.ModelAdmin):
    list_display = ("id", "name", "owner", "version", "shared_by_link", "priced_at", "updated_at")
    list_filter = ("updated_at", "priced_at")
    search_fields = ("name", "owner__username", "owner__email")
    list_select_related = ("owner",)
    date_hierarchy = "updated_at"
    fields = (
        "name",
        "owner",
        "version",
        "spec_json",
        "prices_json",
        "priced_at",
        "shared_by_link",
        "shared_with",
        "created_at",
        "updated_at",
    )
    readonly_fields = ("name", "owner", "version", "spec_json", "prices_json", "priced_at", "shared_by_link", "created_at", "updated_at")
    filter_horizontal = ("shared_with",)

    def has_add_permission(self, request) -> bool:
        return False  # designs are made in the designer or through the API, which validate the spec

    @admin.display(boolean=True, description="Shared by link")
    def shared_by_link(self, obj) -> bool:
        return bool(obj.share_token)  # the link's secret token itself is not shown

    @admin.display(description="DesignSpec")
    def spec_json(self, obj):
        return _pretty_json(obj.spec)

    @admin.display(description="Prices when last priced")
    def prices_json(self, obj):
        return _pretty_json(obj.prices)


class ReadOnlyJobAdmin(admin.ModelAdmin):
    """Jobs are made and moved on by the planner and its workers: staff may look and delete, not edit."""

    def has_add_permission(self, request) -> bool:
        return False

    def get_readonly_fields(self, request, obj=None):
        return [f.name for f in self.model._meta.fields] + list(self.extra_readonly)

    extra_readonly: tuple[str, ...] = ()


@admin.register(models.ExportJob)
class ExportJobAdmin(ReadOnlyJobAdmin):
    list_display = ("id", "design", "design_version", "format", "status", "progress", "attempts", "size_bytes", "created_at", "finished_at")
    list_filter = ("status", "format", "created_at")
    search_fields = ("design__name", "error")
    list_select_related = ("design",)
    date_hierarchy = "created_at"


@admin.register(models.SolveJob)
class SolveJobAdmin(ReadOnlyJobAdmin):
    list_display = ("id", "owner", "status", "progress", "chunks", "attempts", "created_at", "finished_at")
    list_filter = ("status", "created_at")
    search_fields = ("=id", "owner__username", "error")
    list_select_related = ("owner",)
    date_hierarchy = "created_at"
    exclude = ("request", "result")
    extra_readonly = ("request_json", "result_json")

    @admin.display(description="Chunks done")
    def chunks(self, obj) -> str:
        return f"{obj.chunks_done}/{obj.chunks_total}"

    @admin.display(description="Request")
    def request_json(self, obj):
        return _pretty_json(obj.request)

    @admin.display(description="Result")
    def result_json(self, obj):
        return _pretty_json(obj.result)

    def get_readonly_fields(self, request, obj=None):
        return [name for name in super().get_readonly_fields(request, obj) if name not in self.exclude]


@admin.register(models.Calibration)
class CalibrationAdmin(admin.ModelAdmin):
    list_display = (
        "id",
        "name",
        "owner",
        "brick_template",
        "backend_read_gbps",
        "backend_write_gbps",
        "efficiency_read",
        "efficiency_write",
        "created_at",
    )
    list_filter = ("brick_template", "created_at")
    search_fields = ("name", "brick_template", "owner__username", "obdfilter_name", "ior_name")
    list_select_related = ("owner",)
    date_hierarchy = "created_at"

    def has_add_permission(self, request) -> bool:
        return False  # calibrations are fitted from uploads on the calibration page or through the API

    def get_readonly_fields(self, request, obj=None):
        # the name is the only thing that does not come from the uploads and the fit
        return [f.name for f in self.model._meta.fields if f.name != "name"]


@admin.register(models.ApiToken)
class ApiTokenAdmin(admin.ModelAdmin):
    list_display = ("name", "user", "prefix", "created_at", "last_used_at", "expires_at", "revoked_at", "state")
    list_filter = (("revoked_at", admin.EmptyFieldListFilter), ("expires_at", admin.EmptyFieldListFilter), "created_at")
    search_fields = ("name", "prefix", "user__username")
    list_select_related = ("user",)
    fields = ("name", "user", "prefix", "created_at", "last_used_at", "expires_at", "revoked_at", "state")
    readonly_fields = ("user", "prefix", "created_at", "last_used_at", "revoked_at", "state")  # key_hash is never shown
    actions = ("revoke",)

    def has_add_permission(self, request) -> bool:
        return False  # a key is shown once to the user who creates it (tokens page or API), never here

    @admin.display(description="State")
    def state(self, obj) -> str:
        if obj.revoked_at:
            return "revoked"
        if obj.expires_at and obj.expires_at <= timezone.now():
            return "expired"
        return "active"

    @admin.action(description="Revoke the selected tokens now")
    def revoke(self, request, queryset):
        count = queryset.filter(revoked_at__isnull=True).update(revoked_at=timezone.now())
        self.message_user(request, f"{count} token(s) revoked.", messages.SUCCESS)
