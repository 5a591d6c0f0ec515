"""Export jobs: request a rack sheet or bill of materials (202), poll its status, download it."""

from __future__ import annotations

from django.http import FileResponse
from django.shortcuts import get_object_or_404
from drf_spectacular.utils import OpenApiResponse, extend_schema
from rest_framework import permissions, serializers, status
from rest_framework.response import Response
from rest_framework.reverse import reverse
from rest_framework.views import APIView

from planner import services
from planner.models import Design, ExportJob
from planner.services.jobs import BrokerUnavailable, resend_if_lost, waiting_note

from .errors import broker_unavailable_response
from .views import JSON_ONLY


class ExportRequestSerializer(serializers.Serializer):
    """An export to prepare: the format, and optionally a reference design for the relative price."""

    format = serializers.ChoiceField(choices=ExportJob.Format.choices, help_text="pdf-a4, pdf-letter, csv or xlsx.")
    reference = serializers.CharField(
        required=False,
        allow_blank=True,
        max_length=80,
        default="",
        help_text="Rack sheets: price relative to this design, 'ex:<example slug>' (e.g. ex:study-b) or a saved design id.",
    )


class ExportJobSerializer(serializers.ModelSerializer):
    """An export job; `download_url` appears when it is done."""

    filename = serializers.CharField(read_only=True)
    download_url = serializers.SerializerMethodField()
    status_url = serializers.SerializerMethodField()
    waiting = serializers.SerializerMethodField(
        help_text="While queued too long: why, in words (no worker, or the task queue was down); else null."
    )

    class Meta:
        model = ExportJob
        fields = (
            "id",
            "design",
            "design_version",
            "format",
            "reference",
            "status",
            "progress",
            "error",
            "attempts",
            "size_bytes",
            "filename",
            "created_at",
            "started_at",
            "finished_at",
            "status_url",
            "download_url",
            "waiting",
        )
        read_only_fields = fields

    def _prefix(self):
        return self.context.get("share_token")

    def get_waiting(self, obj) -> str | None:
        return waiting_note(obj)

    def get_status_url(self, obj) -> str:
        request = self.context.get("request")
        if self._prefix():
            return reverse("shared-export", kwargs={"token": self._prefix(), "pk": obj.pk}, request=request)
        return reverse("export-detail", kwargs={"pk": obj.pk}, request=request)

    def get_download_url(self, obj) -> str | None:
        if obj.status != ExportJob.Status.DONE or not obj.file:
            return None
        request = self.context.get("request")
        if self._prefix():
            return reverse("shared-export-download", kwargs={"token": self._prefix(), "pk": obj.pk}, request=request)
        return reverse("export-download", kwargs={"pk": obj.pk}, request=request)


ACCEPTED = OpenApiResponse(ExportJobSerializer, description="The job, queued (or the finished one reused: same design version and format).")


def _request_export(request, design: Design, context: dict) -> Response:
    data = ExportRequestSerializer(data=request.data)
    data.is_valid(raise_exception=True)
    user = request.user if request.user.is_authenticated else None
    try:
        job, _ = services.export_request(
            design=design, fmt=data.validated_data["format"], user=user, reference=data.validated_data.get("reference", "")
        )
    except services.ExportError as exc:
        return Response({"reference": [str(exc)]}, status=status.HTTP_400_BAD_REQUEST)
    except BrokerUnavailable as exc:
        body = ExportJobSerializer(exc.job, context={"request": request, **context}).data
        return broker_unavailable_response(body)
    job.refresh_from_db()  # eager mode (no broker) renders before this line
    code = status.HTTP_200_OK if job.status == ExportJob.Status.DONE else status.HTTP_202_ACCEPTED
    return Response(ExportJobSerializer(job, context={"request": request, **context}).data, status=code)


def _download(job: ExportJob):
    if job.status != ExportJob.Status.DONE or not job.file:
        return Response({"detail": f"The export is {job.status}; download it when its status is done."}, status=status.HTTP_409_CONFLICT)
    content_type = {
        "pdf-a4": "application/pdf",
        "pdf-letter": "application/pdf",
        "csv": "text/csv",
        "xlsx": "application/vnd.openxmlformats-officedocument.spreadsheetml.sheet",
    }[job.format]
    return FileResponse(job.file.open("rb"), as_attachment=True, filename=job.filename, content_type=content_type)


class DesignExportsView(APIView):
    """Exports of one design: list them, or request one (owner and readers)."""

    permission_classes = [permissions.IsAuthenticated]
    parser_classes = JSON_ONLY

    def _design(self, request, pk):
        return get_object_or_404(services.designs_visible_to(request.user), pk=pk)

    @extend_schema(summary="Exports of a design", tags=["exports"], responses={200: ExportJobSerializer(many=True)})
    def get(self, request, pk: int):
        design = self._design(request, pk)
        jobs = ExportJob.objects.filter(design=design).select_related("design")[:50]
        return Response(ExportJobSerializer(jobs, many=True, context={"request": request}).data)

    @extend_schema(
        summary="Request a rack sheet (PDF) or bill of materials (CSV, XLSX)",
        tags=["exports"],
        request=ExportRequestSerializer,
        responses={202: ACCEPTED, 200: ACCEPTED},
    )
    def post(self, request, pk: int):
        return _request_export(request, self._design(request, pk), {})


class ExportDetailView(APIView):
    permission_classes = [permissions.IsAuthenticated]

    @extend_schema(summary="Status of an export job", tags=["exports"], responses={200: ExportJobSerializer})
    def get(self, request, pk: int):
        job = get_object_or_404(services.exports_visible_to(request.user), pk=pk)
        if resend_if_lost(job):  # the broker was down when it was asked for: sent now that it is back
            job.refresh_from_db()
        return Response(ExportJobSerializer(job, context={"request": request}).data)


class ExportDownloadView(APIView):
    permission_classes = [permissions.IsAuthenticated]

    @extend_schema(
        summary="Download a finished export",
        tags=["exports"],
        responses={
            (200, "application/octet-stream"): OpenApiResponse(description="The file"),
            409: OpenApiResponse(description="Not done yet"),
        },
    )
    def get(self, request, pk: int):
        return _download(get_object_or_404(services.exports_visible_to(request.user), pk=pk))


class SharedExportsView(APIView):
    """Holders of a design's secret link may export it too."""

    permission_classes = [permissions.AllowAny]
    parser_classes = JSON_ONLY

    @extend_schema(
        summary="Request an export of a design shared by link",
        tags=["exports"],
        request=ExportRequestSerializer,
        responses={202: ACCEPTED, 200: ACCEPTED},
    )
    def post(self, request, token: str):
        design = get_object_or_404(Design, share_token=token)
        return _request_export(request, design, {"share_token": token})


class SharedExportDetailView(APIView):
    permission_classes = [permissions.AllowAny]

    @extend_schema(summary="Status of an export of a design shared by link", tags=["exports"], responses={200: ExportJobSerializer})
    def get(self, request, token: str, pk: int):
        job = get_object_or_404(ExportJob.objects.select_related("design"), pk=pk, design__share_token=token)
        return Response(ExportJobSerializer(job, context={"request": request, "share_token": token}).data)


class SharedExportDownloadView(APIView):
    permission_classes = [permissions.AllowAny]

    @extend_schema(
        summary="Download an export of a design shared by link",
        tags=["exports"],
        responses={
            (200, "application/octet-stream"): OpenApiResponse(description="The file"),
            409: OpenApiResponse(description="Not done yet"),
        },
    )
    def get(self, request, token: str, pk: int):
        return _download(get_object_or_404(ExportJob.objects.select_related("design"), pk=pk, design__share_token=token))
