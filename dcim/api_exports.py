"""API under /api/v1/dcim/: a saved design as a zip for DCIM bulk import (NetBox, Nautobot).

GET /api/v1/dcim/exports/<design id>/?site=&tenant=&prefix= answers the zip at once (nothing is
queued: the inventory is read from one evaluation). The design's owner and the users it is shared
with may export it; anyone else gets a 404, as for the design itself."""

from __future__ import annotations

from django.http import HttpResponse
from django.shortcuts import get_object_or_404
from django.urls import re_path
from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import OpenApiResponse, extend_schema
from rest_framework import permissions, serializers
from rest_framework.views import APIView

from planner import services
from planner.spec import SpecError

from .export import DEFAULT_SITE, ExportOptions, design_export

NAME_TEXT = r"^[^\x00-\x1f\x7f]*$"
"""Site and tenant names: any text without control characters."""
PREFIX = r"^[a-z0-9](?:[a-z0-9-]{0,28}[a-z0-9])?$"


class ExportOptionsSerializer(serializers.Serializer):
    """The export's options, as query parameters."""

    site = serializers.RegexField(
        NAME_TEXT,
        required=False,
        allow_blank=True,
        max_length=100,
        trim_whitespace=False,
        default=DEFAULT_SITE,
        help_text=f"NetBox site / Nautobot location name for the racks and devices (default '{DEFAULT_SITE}').",
        error_messages={"invalid": "must be text without control characters."},
    )
    tenant = serializers.RegexField(
        NAME_TEXT,
        required=False,
        allow_blank=True,
        max_length=100,
        trim_whitespace=False,
        default="",
        help_text="Tenant name for racks, devices and cables (default: none).",
        error_messages={"invalid": "must be text without control characters."},
    )
    prefix = serializers.RegexField(
        PREFIX,
        required=False,
        allow_blank=True,
        max_length=30,
        default="",
        help_text="Device-name prefix: lower-case letters, digits and dashes, at most 30, not starting or ending with a dash "
        "(default: the design name's first words, e.g. 'study-rack-b').",
        error_messages={"invalid": "use lower-case letters, digits and dashes (at most 30), not starting or ending with a dash."},
    )

    def options(self) -> ExportOptions:
        data = self.validated_data
        return ExportOptions(site=data["site"].strip() or DEFAULT_SITE, tenant=data["tenant"].strip(), prefix=data["prefix"])


def zip_response(filename: str, content: bytes) -> HttpResponse:
    response = HttpResponse(content, content_type="application/zip")
    response["Content-Disposition"] = f'attachment; filename="{filename}"'
    return response


class DesignDcimExportView(APIView):
    """A saved design as a zip: device-type YAML, NetBox and Nautobot CSVs, cabling plan, README."""

    permission_classes = [permissions.IsAuthenticated]

    @extend_schema(
        summary="Export a saved design for DCIM bulk import (zip)",
        description=(
            "A zip with device-types/<Manufacturer>/<Model>.yaml (community devicetype-library format), netbox/*.csv "
            "(NetBox bulk import), nautobot/*.csv (Nautobot 2.x CSV import), cabling-plan.csv and README.txt (import "
            "order and assumptions). Racks, devices and cables have status planned. Owner and readers of the design."
        ),
        tags=["dcim"],
        parameters=[ExportOptionsSerializer],
        responses={
            (200, "application/zip"): OpenApiResponse(OpenApiTypes.BINARY, description="The zip."),
            400: OpenApiResponse(description="A bad option, named (site, tenant, prefix); or the design no longer resolves (spec)."),
            404: OpenApiResponse(description="No such design of yours or shared with you."),
        },
    )
    def get(self, request, pk: int):
        options = ExportOptionsSerializer(data=request.query_params)
        options.is_valid(raise_exception=True)
        design = get_object_or_404(services.designs_visible_to(request.user), pk=pk)
        try:
            filename, content = design_export(design=design, options=options.options())
        except SpecError as exc:
            raise exc.nested("spec") from None
        return zip_response(filename, content)


urlpatterns = [
    re_path(r"^exports/(?P<pk>[0-9]+)/?$", DesignDcimExportView.as_view(), name="dcim-design-export"),
]
