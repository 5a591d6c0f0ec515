"""Calibrations: upload a site's obdfilter-survey and/or IOR output (multipart, size-limited), get
the parsed table and the fit; list, fetch and delete your own."""

from __future__ import annotations

from drf_spectacular.utils import extend_schema, extend_schema_field, extend_schema_view
from rest_framework import mixins, permissions, serializers, status, viewsets
from rest_framework.response import Response

from api.parsers import CheckedMultiPartParser
from planner import services
from planner.models import Calibration
from planner.services.calibrations import MAX_UPLOAD_BYTES


class CalibrationUploadSerializer(serializers.Serializer):
    """An obdfilter-survey or IOR output to calibrate a brick template with."""

    name = serializers.CharField(max_length=200)
    brick_template = serializers.SlugField(
        max_length=80, help_text="The brick template these measurements are of, e.g. md3460-performance."
    )
    obdfilter = serializers.FileField(required=False, help_text="obdfilter-survey output of one OSS (text, at most 1 MiB).")
    ior = serializers.FileField(required=False, help_text="IOR output, text or JSON (at most 1 MiB).")
    ior_bricks = serializers.IntegerField(
        required=False, default=1, min_value=1, max_value=10000, help_text="How many bricks (OSS) the file system IOR ran against had."
    )

    def to_internal_value(self, data):
        # a browser's form sends an empty part for a file input left empty: that file was not given
        if hasattr(data, "items"):
            data = {k: v for k, v in data.items() if not (k in ("obdfilter", "ior") and v in ("", None))}
        return super().to_internal_value(data)

    def _text(self, upload, field):
        if upload.size > MAX_UPLOAD_BYTES:
            raise serializers.ValidationError(
                {field: [f"{upload.name} is {upload.size} bytes; the limit is {MAX_UPLOAD_BYTES} bytes (1 MiB)"]}
            )
        raw = upload.read(MAX_UPLOAD_BYTES + 1)
        try:
            return raw.decode("utf-8")
        except UnicodeDecodeError:
            try:
                return raw.decode("latin-1")
            except UnicodeDecodeError as exc:
                raise serializers.ValidationError({field: [f"{upload.name} is not text"]}) from exc

    def validate(self, attrs):
        for field in ("obdfilter", "ior"):
            if attrs.get(field) is not None:
                attrs[f"{field}_file"] = (attrs[field].name[:200], self._text(attrs[field], field))
        if not attrs.get("obdfilter_file") and not attrs.get("ior_file"):
            raise serializers.ValidationError({"files": ["upload an obdfilter-survey output, an IOR output, or both"]})
        return attrs


class CalibrationSerializer(serializers.ModelSerializer):
    """A calibration of a brick template from uploaded obdfilter-survey and/or IOR output: what was measured and what the model takes from it."""

    ior_bricks = serializers.SerializerMethodField(
        help_text="How many bricks (OSS) the file system IOR ran against had; null when no IOR output was uploaded."
    )

    @extend_schema_field(serializers.IntegerField(allow_null=True, min_value=1))
    def get_ior_bricks(self, obj) -> int | None:
        return obj.ior_bricks if obj.ior_name or obj.ior_text else None

    class Meta:
        model = Calibration
        fields = (
            "id",
            "name",
            "brick_template",
            "obdfilter_name",
            "ior_name",
            "ior_bricks",
            "backend_read_gbps",
            "backend_write_gbps",
            "end_to_end_read_gbps",
            "end_to_end_write_gbps",
            "efficiency_read",
            "efficiency_write",
            "backend_osts",
            "fit",
            "parsed",
            "refusals",
            "notes",
            "usable",
            "created_at",
        )
        read_only_fields = fields


@extend_schema_view(
    list=extend_schema(summary="Your calibrations", tags=["calibrations"]),
    retrieve=extend_schema(summary="One of your calibrations, with the parsed table and the fit", tags=["calibrations"]),
    destroy=extend_schema(summary="Delete a calibration", tags=["calibrations"], responses={204: None}),
)
class CalibrationViewSet(mixins.ListModelMixin, mixins.RetrieveModelMixin, mixins.DestroyModelMixin, viewsets.GenericViewSet):
    serializer_class = CalibrationSerializer
    permission_classes = [permissions.IsAuthenticated]
    queryset = Calibration.objects.none()

    def get_queryset(self):
        return services.calibrations_visible_to(self.request.user)

    def get_parsers(self):
        if getattr(self, "action", None) == "create" or (self.request is not None and self.request.method == "POST"):
            return [CheckedMultiPartParser()]
        return super().get_parsers()

    @extend_schema(
        summary="Upload benchmark output and fit a calibration profile",
        tags=["calibrations"],
        request={"multipart/form-data": CalibrationUploadSerializer},
        responses={201: CalibrationSerializer},
    )
    def create(self, request):
        data = CalibrationUploadSerializer(data=request.data)
        data.is_valid(raise_exception=True)
        v = data.validated_data
        calibration = services.calibration_from_upload(owner=request.user, upload=v)
        return Response(CalibrationSerializer(calibration).data, status=status.HTTP_201_CREATED)
