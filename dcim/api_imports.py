"""POST /api/v1/dcim/imports/: device-type files in the community library format into the catalogue
(staff only). Multipart: `files` (one or more .yaml/.yml files or .zip archives of them), optional
`kind` (for every file) and `kinds` (a JSON object: file name or device-type slug -> kind), and
`dry_run` (preview only). The answer lists, per device type, what happened or would happen."""

from __future__ import annotations

import json

from django.urls import re_path
from drf_spectacular.utils import OpenApiExample, extend_schema
from rest_framework import permissions, serializers, status
from rest_framework.response import Response
from rest_framework.views import APIView

from api.parsers import CheckedMultiPartParser

from . import library
from .catalogue_import import KINDS, ImportRefused, import_device_types


class IsStaff(permissions.BasePermission):
    """Catalogue imports are for staff (anonymous callers get 401, others 403)."""

    message = "Only staff may import device types into the catalogue."

    def has_permission(self, request, view):
        return bool(request.user and request.user.is_authenticated and request.user.is_staff)


class ImportRequestSerializer(serializers.Serializer):
    """Device-type files (community devicetype-library YAML, or zips of them) to import into the catalogue, or to preview."""

    files = serializers.ListField(
        child=serializers.FileField(allow_empty_file=False),
        min_length=1,
        max_length=50,
        help_text=(
            "Device-type files in the community devicetype-library format (.yaml or .yml), or .zip archives of them "
            f"(read in memory: at most {library.MAX_ZIP_MEMBERS} entries, {library.MAX_FILES} device-type files, "
            f"{library.MAX_TOTAL_BYTES // 2**20} MiB uncompressed, {library.MAX_ZIP_DEPTH} folders deep). "
            f"Each YAML file at most {library.MAX_FILE_BYTES // 2**20} MiB; the whole request at most 4 MiB."
        ),
    )
    kind = serializers.CharField(
        required=False,
        max_length=20,
        help_text=f"The kind of every device type uploaded: one of {', '.join(KINDS)} (else each is guessed, or taken from `kinds`).",
    )
    kinds = serializers.CharField(
        required=False,
        max_length=20000,
        help_text='A JSON object mapping a file name (with its folder inside a zip) or a device-type slug to a kind, e.g. {"SX6036.yaml": "switch"}.',
    )
    dry_run = serializers.BooleanField(required=False, default=False, help_text="Only preview: nothing is written.")

    def validate_kind(self, value):
        if value not in KINDS:
            raise serializers.ValidationError(f"'{value}' is not a kind; choose one of {', '.join(KINDS)}")
        return value

    def validate_kinds(self, value):
        try:
            kinds = json.loads(value)
        except ValueError as exc:
            raise serializers.ValidationError(f"must be a JSON object (file or slug -> kind): {exc}") from exc
        if not isinstance(kinds, dict) or not all(isinstance(k, str) and isinstance(v, str) for k, v in kinds.items()):
            raise serializers.ValidationError("must be a JSON object mapping file names or slugs to kinds (text to text)")
        bad = {k: v for k, v in kinds.items() if v not in KINDS}
        if bad:
            raise serializers.ValidationError(
                [f"{k}: '{str(v)[:40]}' is not a kind; choose one of {', '.join(KINDS)}" for k, v in list(bad.items())[:20]]
            )
        return kinds


class ImportErrorSerializer(serializers.Serializer):
    file = serializers.CharField(help_text="The file, as uploaded (with its folder inside a zip).")
    key = serializers.CharField(help_text="The key path in the file, e.g. power-ports[1].maximum_draw; empty for the whole file.")
    problem = serializers.CharField()


class FigureSerializer(serializers.Serializer):
    figure = serializers.CharField(help_text="Catalogue field, e.g. height_u, weight_kg, max_power_w, ports, port_gbps.")
    value = serializers.JSONField()
    note = serializers.CharField(help_text="Its source note, citing the file.")


class ImportedPartSerializer(serializers.Serializer):
    file = serializers.CharField()
    slug = serializers.CharField()
    name = serializers.CharField()
    kind = serializers.CharField(help_text=f"One of {', '.join(KINDS)}.")
    kind_given = serializers.BooleanField(help_text="False when the kind was guessed.")
    kind_reason = serializers.CharField(help_text="'given', or why the guess.")
    catalogue = serializers.ChoiceField(choices=("servers", "enclosures", "switches"))
    action = serializers.ChoiceField(
        choices=("created", "updated", "unchanged"), help_text="What happened (or, in a dry run, would happen)."
    )
    figures = FigureSerializer(many=True, help_text="Figures taken from the file, with their notes.")
    missing_figures = serializers.ListField(
        child=serializers.CharField(),
        help_text="Figures the planner needs that the file does not carry: the part is incomplete until entered.",
    )
    remarks = serializers.ListField(child=serializers.CharField(), help_text="What was read but not taken, and why.")
    changes = serializers.DictField(child=serializers.DictField(), help_text="For an update: field -> {before, after}.")


class ImportResultSerializer(serializers.Serializer):
    dry_run = serializers.BooleanField()
    parts = ImportedPartSerializer(many=True)


class ImportsView(APIView):
    permission_classes = [IsStaff]
    parser_classes = [CheckedMultiPartParser]

    @extend_schema(
        summary="Import device types from the community library format into the catalogue (staff only)",
        description=(
            "Each device type becomes a catalogue server, enclosure or switch with the figures the file carries (height, weight in kg, "
            "maximum power; a switch's port count and speed), each with a source note citing the file. Figures the planner needs that "
            "the library does not carry are listed in `missing_figures`: the part is marked incomplete and refused by designs until "
            "they are entered with source notes (PATCH /api/v1/catalogue/<kind>/<slug>/ or the admin). A broken file is a 400 naming "
            "the file, the key and the problem, and nothing is written."
        ),
        tags=["dcim"],
        request={"multipart/form-data": ImportRequestSerializer},
        responses={200: ImportResultSerializer},
        examples=[
            OpenApiExample(
                "A broken file",
                status_codes=["400"],
                response_only=True,
                value={
                    "files": ["PowerEdge-R730xd.yaml: weight_unit: required when weight is given (kg, g, lb or oz)"],
                    "errors": [
                        {
                            "file": "PowerEdge-R730xd.yaml",
                            "key": "weight_unit",
                            "problem": "required when weight is given (kg, g, lb or oz)",
                        }
                    ],
                },
            )
        ],
    )
    def post(self, request):
        data = request.data
        if hasattr(data, "getlist"):
            uploads = data.getlist("files") + data.getlist("file")
            data = {k: data.get(k) for k in ("kind", "kinds", "dry_run") if data.get(k) not in (None, "")}
            data["files"] = uploads
        given = ImportRequestSerializer(data=data)
        given.is_valid(raise_exception=True)
        v = given.validated_data
        files = []
        for upload in v["files"]:
            limit = library.MAX_ZIP_BYTES if upload.name.lower().endswith(".zip") else library.MAX_FILE_BYTES
            if upload.size > limit:
                return _refused([library.LibraryError(upload.name, "", f"is {upload.size} bytes; the limit is {limit} bytes")])
            files.append((upload.name, upload.read(limit + 1)))
        result = library.read_files(files)
        kinds = dict(v.get("kinds") or {})
        if v.get("kind"):
            for dt in result.device_types:
                kinds.setdefault(dt.file, v["kind"])
        try:
            parts = import_device_types(result=result, kinds=kinds, dry_run=v["dry_run"])
        except ImportRefused as exc:
            return _refused(exc.errors)
        return Response({"dry_run": v["dry_run"], "parts": parts}, status=status.HTTP_200_OK)


def _refused(errors: list[library.LibraryError]) -> Response:
    shown = errors[:200]
    body = {"files": [str(e) for e in shown], "errors": [e.as_dict() for e in shown]}
    if len(errors) > len(shown):
        body["files"].append(f"... and {len(errors) - len(shown)} more problems")
    return Response(body, status=status.HTTP_400_BAD_REQUEST)


urlpatterns = [re_path(r"^imports/?$", ImportsView.as_view(), name="dcim-imports")]
