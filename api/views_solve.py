"""POST /api/v1/solve/: the cheapest designs that meet capacity, throughput, budget and rack targets."""

from __future__ import annotations

from drf_spectacular.utils import OpenApiExample, extend_schema
from rest_framework import permissions, serializers, status
from rest_framework.response import Response
from rest_framework.views import APIView

from planner import services
from planner.engine import solver
from planner.services.jobs import BrokerUnavailable, QueueFull, resend_if_lost, waiting_note
from planner.spec import FAILOVER_CHOICES, SPEC_DEFAULTS

from .errors import broker_unavailable_response
from .fields import FiniteFloatField
from .serializers import ClientsSerializer, FabricSerializer, MetadataSerializer, StrictFieldsMixin
from .views import JSON_ONLY


class TargetsSerializer(StrictFieldsMixin, serializers.Serializer):
    """What every answer must meet: usable PiB, read and write GB/s, a budget, a rack count, a data-loss probability."""

    usable_pib = FiniteFloatField(required=False, allow_null=True, min_value=0, max_value=1e4, help_text="Minimum usable PiB (binary).")
    read_gbps = FiniteFloatField(required=False, allow_null=True, min_value=0, max_value=1e5, help_text="Minimum read GB/s.")
    write_gbps = FiniteFloatField(required=False, allow_null=True, min_value=0, max_value=1e5, help_text="Minimum write GB/s.")
    budget = FiniteFloatField(required=False, allow_null=True, min_value=0, help_text="Price ceiling (total, in the list's currency).")
    max_racks = serializers.IntegerField(required=False, allow_null=True, min_value=1, max_value=1000)
    max_loss_probability = FiniteFloatField(
        required=False,
        allow_null=True,
        min_value=0,
        max_value=1,
        help_text="Highest acceptable probability of data loss in a year, e.g. 1e-4 (MTTDL model, see the Evaluation's reliability).",
    )


class DemandSerializer(StrictFieldsMixin, serializers.Serializer):
    """Turn a workload into targets (they replace the matching targets)."""

    job_slots = serializers.IntegerField(required=False, min_value=1, max_value=10**7)
    mb_per_s_per_job = FiniteFloatField(required=False, min_value=0, max_value=1e5)
    clients = serializers.IntegerField(required=False, min_value=1, max_value=10**6)
    gbps_per_client = FiniteFloatField(required=False, min_value=0, max_value=1e3)
    current_pib = FiniteFloatField(required=False, min_value=0, max_value=1e4)
    annual_growth = FiniteFloatField(required=False, min_value=0, max_value=10)
    years = FiniteFloatField(required=False, min_value=0, max_value=30)

    def validate(self, attrs):
        if ("job_slots" in attrs) != ("mb_per_s_per_job" in attrs):
            raise serializers.ValidationError("give job_slots and mb_per_s_per_job together")
        if ("clients" in attrs) != ("gbps_per_client" in attrs):
            raise serializers.ValidationError("give clients and gbps_per_client together")
        growth = {"current_pib", "annual_growth", "years"} & set(attrs)
        if growth and len(growth) != 3:
            raise serializers.ValidationError("give current_pib, annual_growth and years together")
        return attrs


class MetadataSizingSerializer(StrictFieldsMixin, serializers.Serializer):
    """Size the metadata from a file count and a size distribution; the smallest cell that fits goes into the design."""

    files = serializers.IntegerField(min_value=1, max_value=10**13, help_text="Number of files (and directories).")
    histogram = serializers.ListField(
        child=serializers.ListField(child=FiniteFloatField(min_value=0), min_length=2, max_length=2),
        required=False,
        min_length=1,
        max_length=64,
        help_text="[[upper bound in bytes, fraction of files], ...], e.g. [[4096, 0.3], [1048576, 0.5], [1e9, 0.2]].",
    )
    percentiles = serializers.DictField(
        child=FiniteFloatField(min_value=0),
        required=False,
        help_text='File sizes in bytes at percentiles, e.g. {"50": 65536, "90": 4194304, "100": 1e11}.',
    )
    dom_stripe_bytes = FiniteFloatField(
        required=False, default=0, min_value=0, max_value=2**40, help_text="Data-on-MDT stripe size in bytes (0: no DoM)."
    )
    inode_ratio_bytes = FiniteFloatField(required=False, default=2560, min_value=512, max_value=2**20)
    headroom = FiniteFloatField(required=False, default=0.2, min_value=0, max_value=5)

    def validate(self, attrs):
        if bool(attrs.get("histogram")) == bool(attrs.get("percentiles")):
            raise serializers.ValidationError("give either a histogram or percentiles of file sizes")
        if attrs.get("percentiles"):
            try:
                points = sorted((float(k), v) for k, v in attrs["percentiles"].items())
            except ValueError as exc:
                raise serializers.ValidationError({"percentiles": ["keys must be percentiles such as 50, 90, 100"]}) from exc
            if any(not 0 < p <= 100 for p, _ in points) or points[-1][0] != 100:
                raise serializers.ValidationError(
                    {"percentiles": ["percentiles run from above 0 to 100, and 100 (the largest file) is required"]}
                )
            histogram, previous = [], 0.0
            for p, size in points:
                histogram.append([size, (p - previous) / 100.0])
                previous = p
            attrs["histogram"] = histogram
        if sum(f for _, f in attrs["histogram"]) <= 0:
            raise serializers.ValidationError({"histogram": ["the fractions add up to zero"]})
        return attrs


class SolveRequestSerializer(StrictFieldsMixin, serializers.Serializer):
    """What to search: targets (or a workload to turn into targets), the brick templates, disks and expansion counts allowed, and the design options every answer shares."""

    targets = TargetsSerializer(required=False, default=dict)
    demand = DemandSerializer(required=False)
    templates = serializers.ListField(
        child=serializers.SlugField(max_length=80), required=False, max_length=50, help_text="Allowed brick templates (default: all)."
    )
    disks = serializers.ListField(
        child=serializers.SlugField(max_length=80), required=False, max_length=30, help_text="Allowed disks (default: each template's own)."
    )
    expansions = serializers.ListField(
        child=serializers.IntegerField(min_value=0, max_value=16),
        required=False,
        max_length=17,
        help_text="Allowed expansion counts (default: each template's own).",
    )
    metadata = MetadataSerializer(required=False)
    rack = serializers.SlugField(max_length=80, required=False, default=SPEC_DEFAULTS["rack"])
    tuning = serializers.SlugField(max_length=80, required=False, default=SPEC_DEFAULTS["tuning"])
    failover = serializers.ChoiceField(
        choices=list(FAILOVER_CHOICES),
        required=False,
        allow_null=True,
        default=SPEC_DEFAULTS["failover"],
        help_text="paired or none; left out: paired for each option whose storage a partner can reach, none for internal bays.",
    )
    price_list = serializers.SlugField(max_length=80, required=False, default=SPEC_DEFAULTS["price_list"])
    fabric = FabricSerializer(required=False, allow_null=True)
    calibration = serializers.IntegerField(required=False, allow_null=True, min_value=1)
    clients = ClientsSerializer(required=False, allow_null=True)
    metadata_sizing = MetadataSizingSerializer(required=False)
    mixes = serializers.BooleanField(
        required=False,
        default=True,
        help_text="Also try two brick lines mixed (1-30 bricks on each line) when at most 12 brick options are allowed, "
        "and three lines (1-8 on each) of the options on the one- and two-line frontier; a mix has at most max_bricks in all.",
    )
    max_bricks = serializers.IntegerField(
        required=False,
        default=200,
        min_value=1,
        max_value=500,
        help_text="Most bricks a design may have in all, its brick lines together: a single line is tried at 1 to max_bricks "
        "bricks, a mix of two or three lines at most max_bricks together.",
    )
    limit = serializers.IntegerField(required=False, default=50, min_value=1, max_value=500, help_text="Results returned.")

    def validate(self, attrs):
        targets = dict(attrs.get("targets") or {})
        demand = attrs.get("demand") or {}
        if "job_slots" in demand:
            targets["read_gbps"] = solver.gbps_target_from_jobs(demand["job_slots"], demand["mb_per_s_per_job"])
            targets["write_gbps"] = targets["read_gbps"]
        if "clients" in demand:
            targets["read_gbps"] = max(
                targets.get("read_gbps") or 0, solver.gbps_target_from_clients(demand["clients"], demand["gbps_per_client"])
            )
            targets["write_gbps"] = targets["read_gbps"]
        if "current_pib" in demand:
            targets["usable_pib"] = solver.capacity_target(demand["current_pib"], demand["annual_growth"], demand["years"])
        if not any(targets.get(k) for k in ("usable_pib", "read_gbps", "write_gbps")):
            raise serializers.ValidationError({"targets": ["give at least one of usable_pib, read_gbps, write_gbps (or a demand)"]})
        attrs["targets"] = {k: v for k, v in targets.items() if v is not None}
        return attrs


class SolveView(APIView):
    """Find the cheapest designs meeting the targets, and the trade-off between them."""

    permission_classes = [permissions.AllowAny]
    parser_classes = JSON_ONLY

    @extend_schema(
        summary="Design to target: cheapest designs meeting capacity, throughput, budget and rack limits",
        tags=["solve"],
        request=SolveRequestSerializer,
        responses={200: dict},
        examples=[
            OpenApiExample(
                "1 PiB and 9 GB/s, metadata in the rack",
                request_only=True,
                value={
                    "targets": {"usable_pib": 1.0, "read_gbps": 9},
                    "templates": ["md3460-performance", "md3460-capacity"],
                    "disks": ["nl-sas-4tb"],
                    "metadata": {"placement": "in_rack"},
                },
            )
        ],
    )
    def post(self, request):
        data = SolveRequestSerializer(data=request.data)
        data.is_valid(raise_exception=True)
        try:
            answer, job = services.solve_request(request=data.validated_data, user=request.user)
        except BrokerUnavailable as exc:
            return broker_unavailable_response(_job_body(request, exc.job))
        except QueueFull as exc:
            return Response({"detail": str(exc)}, status=status.HTTP_429_TOO_MANY_REQUESTS, headers={"Retry-After": "60"})
        if job is not None:
            return Response(_job_body(request, job), status=status.HTTP_202_ACCEPTED)
        return Response(answer)


def _job_body(request, job) -> dict:
    from rest_framework.reverse import reverse

    job.refresh_from_db()
    return {
        "id": str(job.id),
        "status": job.status,
        "progress": job.progress,
        "error": job.error,
        "status_url": reverse("solve-job", kwargs={"pk": str(job.id)}, request=request),
        "result": job.result if job.status == "done" else None,
        "waiting": waiting_note(job),
    }


class SolveJobView(APIView):
    """A large search's status and progress, and its result when done (poll by the job's id)."""

    permission_classes = [permissions.AllowAny]

    @extend_schema(summary="Status, progress and result of a queued design-to-target search", tags=["solve"], responses={200: dict})
    def get(self, request, pk):
        from django.shortcuts import get_object_or_404

        from planner.models import SolveJob

        job = get_object_or_404(SolveJob, pk=pk)
        resend_if_lost(job)  # the broker was down when it was asked for: sent now that it is back
        return Response(_job_body(request, job))
