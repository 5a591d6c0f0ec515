"""Migration time: how long copying data between two file systems takes (POST /api/v1/migration/).

Thin: validates the request and calls the engine's `reliability.time_to_copy`; nothing is stored."""

from __future__ import annotations

from drf_spectacular.utils import OpenApiExample, OpenApiResponse, extend_schema
from rest_framework import permissions, serializers
from rest_framework.response import Response
from rest_framework.views import APIView

from planner.engine.reliability import DEFAULT_PER_CLIENT_GBPS, time_to_copy
from planner.engine.units import TB

from .fields import FiniteFloatField
from .serializers import StrictFieldsMixin
from .views import JSON_ONLY

MAX_TB = 10_000_000  # 10 EB
MAX_GBPS = 100_000.0
MAX_CLIENTS = 100_000


def _gbps(help_text: str, **kwargs):
    return FiniteFloatField(min_value=0.001, max_value=MAX_GBPS, help_text=help_text, **kwargs)


class MigrationRequestSerializer(StrictFieldsMixin, serializers.Serializer):
    """What to copy, with what, between what."""

    data_tb = FiniteFloatField(min_value=0.001, max_value=MAX_TB, help_text="Data to copy, decimal TB (10^12 bytes); 1 PB = 1000 TB.")
    clients = serializers.IntegerField(min_value=1, max_value=MAX_CLIENTS, help_text="Copy clients (nodes running the copy tool).")
    client_gbps = _gbps("Each client's network link, GB/s of payload (e.g. 1.2 for 10GbE, 6.0 for FDR InfiniBand).")
    source_gbps = _gbps("The source file system's read throughput available to the copy, GB/s.")
    target_gbps = _gbps("The target file system's write throughput available to the copy, GB/s.")
    per_client_rate_gbps = _gbps(
        f"What one client's copy moves, GB/s (assumption: {DEFAULT_PER_CLIENT_GBPS} GB/s, one rsync-style stream of large files); "
        "set it from a trial copy.",
        required=False,
        default=DEFAULT_PER_CLIENT_GBPS,
    )


class MigrationSidesSerializer(serializers.Serializer):
    source = serializers.FloatField(help_text="Source read GB/s.")
    target = serializers.FloatField(help_text="Target write GB/s.")
    clients = serializers.FloatField(help_text="Clients x min(link, per-client copy rate), GB/s.")


class MigrationResultSerializer(serializers.Serializer):
    hours = serializers.FloatField(help_text="Hours of copying at the bounding rate (no pauses, no rescans).")
    days = serializers.FloatField()
    rate_gbps = serializers.FloatField(help_text="The copy's rate: the slowest side, GB/s.")
    bound_by = serializers.ChoiceField(choices=["source", "target", "clients"], help_text="The side that bounds the copy.")
    sides_gbps = MigrationSidesSerializer()
    per_client_gbps = serializers.FloatField(help_text="Each client's rate: the smaller of its link and the per-client copy rate.")
    assumptions = serializers.ListField(child=serializers.CharField())


ASSUMPTIONS = [
    "The copy runs at the slowest of the source's read rate, the target's write rate and the clients' rate, without pauses.",
    "Each client moves the smaller of its link and the per-client copy rate; the default per-client rate "
    f"({DEFAULT_PER_CLIENT_GBPS} GB/s, one rsync-style stream of large files) is an assumption: measure a trial copy and set it.",
    "Small files copy far slower than large ones (metadata operations, not bandwidth, bound them); rescans and final syncs add time.",
]


class MigrationView(APIView):
    """POST a migration (data, clients, source and target throughput), get the time it takes."""

    permission_classes = [permissions.AllowAny]
    parser_classes = JSON_ONLY

    @extend_schema(
        summary="Time to migrate data between file systems",
        tags=["migration"],
        request=MigrationRequestSerializer,
        responses={
            200: MigrationResultSerializer,
            400: OpenApiResponse(
                description='Field-level messages, e.g. {"clients": ["Ensure this value is greater than or equal to 1."]}'
            ),
        },
        examples=[
            OpenApiExample(
                "1.5 PB with a dozen copy clients",
                request_only=True,
                value={"data_tb": 1500, "clients": 12, "client_gbps": 1.2, "source_gbps": 20.0, "target_gbps": 8.0},
            ),
        ],
    )
    def post(self, request):
        req = MigrationRequestSerializer(data=request.data)
        req.is_valid(raise_exception=True)
        v = req.validated_data
        out = time_to_copy(
            v["data_tb"] * TB,
            v["clients"],
            v["client_gbps"],
            v["source_gbps"],
            v["target_gbps"],
            v["per_client_rate_gbps"],
        )
        return Response(
            {
                "hours": round(out["hours"], 2),
                "days": round(out["days"], 2),
                "rate_gbps": round(out["rate_gbps"], 3),
                "bound_by": out["bound_by"],
                "sides_gbps": {k: round(x, 3) for k, x in out["sides_gbps"].items()},
                "per_client_gbps": round(out["per_client_gbps"], 3),
                "assumptions": ASSUMPTIONS,
            }
        )
