"""API views for saved designs, sharing, comparison and tokens. Thin: each calls one service."""

from __future__ import annotations

from django.shortcuts import get_object_or_404
from drf_spectacular.utils import OpenApiExample, OpenApiResponse, extend_schema, extend_schema_view
from rest_framework import filters, mixins, permissions, status, viewsets
from rest_framework.decorators import action
from rest_framework.response import Response
from rest_framework.views import APIView

from planner import services
from planner.models import ApiToken, Design
from planner.services import budget

from . import serializers_designs as sd
from .filters import StrictOrderingFilter
from .permissions import IsOwnerOrReadOnlyShared
from .serializers import DesignSpecSerializer, EvaluationSerializer
from .views import JSON_ONLY

CONFLICT = OpenApiResponse(
    description="The design changed since the version you sent: nothing was changed; the body has the current version."
)
NOT_FOUND = OpenApiResponse(description="No such design visible to you (other users' designs are 404 too).")


def _conflict(request, exc: services.VersionConflict) -> Response:
    return Response(
        {
            "detail": f"This design was saved elsewhere since you loaded it (in another window, or by someone else): it is now at "
            f"version {exc.current.version}, last saved {exc.current.updated_at:%Y-%m-%d %H:%M} UTC. Nothing was saved: "
            "load the current version, or send your change again based on it.",
            "current_version": exc.current.version,
            "design": sd.DesignSerializer(exc.current, context={"request": request}).data,
        },
        status=status.HTTP_409_CONFLICT,
    )


class DesignFilterSerializer(sd.serializers.Serializer):
    owned = sd.serializers.BooleanField(
        required=False, allow_null=True, default=None, help_text="true: only your own designs; false: only those shared with you."
    )


@extend_schema_view(
    list=extend_schema(summary="Your designs and those shared with you", tags=["designs"], parameters=[DesignFilterSerializer]),
    retrieve=extend_schema(summary="One design", tags=["designs"], responses={200: sd.DesignSerializer, 404: NOT_FOUND}),
    destroy=extend_schema(summary="Delete a design (owner only)", tags=["designs"], responses={204: None, 404: NOT_FOUND}),
)
class DesignViewSet(viewsets.ModelViewSet):
    """Saved designs: owned, versioned (409 on a stale update), shareable read-only."""

    serializer_class = sd.DesignSerializer
    permission_classes = [permissions.IsAuthenticated, IsOwnerOrReadOnlyShared]
    parser_classes = JSON_ONLY
    filter_backends = [filters.SearchFilter, StrictOrderingFilter]
    search_fields = ["name"]
    ordering_fields = ["updated_at", "created_at", "name"]
    http_method_names = ["get", "post", "put", "patch", "delete", "head", "options"]

    def get_queryset(self):
        queryset = services.designs_visible_to(self.request.user).select_related("owner").prefetch_related("shared_with")
        if self.action == "list":
            params = DesignFilterSerializer(data=self.request.query_params)
            params.is_valid(raise_exception=True)
            owned = params.validated_data.get("owned")
            if owned is True:
                queryset = queryset.filter(owner=self.request.user)
            elif owned is False:
                queryset = queryset.exclude(owner=self.request.user)
        return queryset

    @extend_schema(
        summary="Save a design",
        tags=["designs"],
        request=sd.DesignCreateSerializer,
        responses={201: sd.DesignSerializer, 400: OpenApiResponse(description="Field-level messages")},
        examples=[
            OpenApiExample(
                "Rack D",
                request_only=True,
                value={
                    "name": "Rack D",
                    "spec": {"bricks": [{"template": "md3460-performance", "count": 8}], "metadata": {"placement": "none"}},
                },
            )
        ],
    )
    def create(self, request, *args, **kwargs):
        data = sd.DesignCreateSerializer(data=request.data)
        data.is_valid(raise_exception=True)
        design = services.design_create(owner=request.user, name=data.validated_data["name"], spec=data.validated_data["spec"])
        return Response(self.get_serializer(design).data, status=status.HTTP_201_CREATED)

    @extend_schema(
        summary="Change a design (owner only; send the version it is based on)",
        tags=["designs"],
        request=sd.DesignUpdateSerializer,
        responses={200: sd.DesignSerializer, 404: NOT_FOUND, 409: CONFLICT},
        examples=[
            OpenApiExample("Rename, based on version 3", request_only=True, value={"version": 3, "name": "Rack D, 6 TB"}),
            OpenApiExample(
                "Stale version",
                response_only=True,
                status_codes=["409"],
                value={
                    "detail": "This design was saved elsewhere since you loaded it (in another window, or by someone else): it is now at version 4, last saved 2026-11-21 15:00 UTC. Nothing was saved: load the current version, or send your change again based on it.",
                    "current_version": 4,
                    "design": {"id": 1, "name": "Rack D", "version": 4},
                },
            ),
        ],
    )
    def update(self, request, *args, **kwargs):
        design = self.get_object()
        data = sd.DesignUpdateSerializer(data=request.data)
        data.is_valid(raise_exception=True)
        try:
            design = services.design_update(
                design=design,
                based_on_version=data.validated_data["version"],
                name=data.validated_data.get("name"),
                spec=data.validated_data.get("spec"),
            )
        except services.VersionConflict as exc:
            return _conflict(request, exc)
        return Response(self.get_serializer(design).data)

    @extend_schema(
        summary="Change a design (same as PUT: version required, name and spec optional)",
        tags=["designs"],
        request=sd.DesignUpdateSerializer,
        responses={200: sd.DesignSerializer, 404: NOT_FOUND, 409: CONFLICT},
    )
    def partial_update(self, request, *args, **kwargs):
        return self.update(request, *args, **kwargs)

    def perform_destroy(self, instance):
        services.design_delete(design=instance)

    @extend_schema(
        summary="Evaluate a saved design with its frozen prices", tags=["designs"], responses={200: EvaluationSerializer, 404: NOT_FOUND}
    )
    @action(detail=True, methods=["get"], url_path="evaluation", url_name="evaluation")
    def evaluation(self, request, pk=None):
        design = self.get_object()
        evaluation = services.design_evaluation(design=design)
        return Response(evaluation.as_dict())

    @extend_schema(
        summary="Re-price with the price list's current prices (owner only)",
        tags=["designs"],
        request=sd.RepriceSerializer,
        responses={200: sd.DesignSerializer, 404: NOT_FOUND, 409: CONFLICT},
    )
    @action(detail=True, methods=["post"])
    def reprice(self, request, pk=None):
        design = self.get_object()
        data = sd.RepriceSerializer(data=request.data)
        data.is_valid(raise_exception=True)
        try:
            design = services.design_reprice(design=design, based_on_version=data.validated_data.get("version"))
        except services.VersionConflict as exc:
            return _conflict(request, exc)
        return Response(self.get_serializer(design).data)

    @extend_schema(
        summary="Share read-only with users and/or by secret link (owner only)",
        tags=["designs"],
        request=sd.ShareSerializer,
        responses={200: sd.DesignSerializer, 404: NOT_FOUND},
    )
    @action(detail=True, methods=["post"])
    def share(self, request, pk=None):
        design = self.get_object()
        data = sd.ShareSerializer(data=request.data)
        data.is_valid(raise_exception=True)
        design = services.design_share(design=design, usernames=data.validated_data.get("users"), link=data.validated_data.get("link"))
        return Response(self.get_serializer(design).data)

    @extend_schema(
        summary="Copy a design you can read into a new design of your own",
        tags=["designs"],
        request=None,
        responses={201: sd.DesignSerializer, 404: NOT_FOUND},
    )
    @action(detail=True, methods=["post"], permission_classes=[permissions.IsAuthenticated])
    def copy(self, request, pk=None):
        design = self.get_object()
        new = services.design_create(owner=request.user, name=f"Copy of {design.name}"[:200], spec=design.spec)
        return Response(self.get_serializer(new).data, status=status.HTTP_201_CREATED)


class SharedDesignView(APIView):
    """A design shared by secret link: read-only, no sign-in needed."""

    permission_classes = [permissions.AllowAny]

    @extend_schema(
        summary="Read a design shared by link, with its evaluation",
        tags=["designs"],
        responses={200: sd.SharedDesignSerializer, 404: OpenApiResponse(description="No such link (or sharing was switched off).")},
    )
    def get(self, request, token: str):
        design = get_object_or_404(Design.objects.select_related("owner"), share_token=token)
        evaluation = services.design_evaluation(design=design)
        body = sd.DesignSerializer(design, context={"request": request}).data
        return Response({"design": body, "evaluation": evaluation.as_dict()})


class CompareView(APIView):
    """Compare 2-8 designs (saved ids or inline specs) against a reference."""

    permission_classes = [permissions.AllowAny]
    parser_classes = JSON_ONLY

    @extend_schema(
        summary="Compare designs side by side",
        tags=["compare"],
        request=sd.CompareSerializer,
        responses={200: sd.CompareResultSerializer, 400: OpenApiResponse(description="Field-level messages")},
        examples=[
            OpenApiExample(
                "Rack A against rack B",
                request_only=True,
                value={
                    "designs": [
                        {
                            "label": "A",
                            "spec": {"bricks": [{"template": "md3460-capacity", "count": 2}], "metadata": {"placement": "in_rack"}},
                        },
                        {
                            "label": "B",
                            "spec": {"bricks": [{"template": "md3460-performance", "count": 6}], "metadata": {"placement": "in_rack"}},
                        },
                    ],
                    "reference": 1,
                },
            ),
            OpenApiExample(
                "Rows (abridged)",
                response_only=True,
                value={
                    "reference": 1,
                    "warnings": [],
                    "rows": [
                        {
                            "index": 0,
                            "label": "A",
                            "usable_pib": 1.0229,
                            "read_gbps": 9.0,
                            "write_gbps": 9.0,
                            "price_total": 667080.0,
                            "currency": "USD",
                            "relative_price": 0.6474,
                            "price_per_usable_pib": 652148.0,
                            "price_per_read_gbps": 74120.0,
                            "rack_count": 1,
                            "units_used": 34,
                            "power_w": 8135.0,
                        },
                        {
                            "index": 1,
                            "label": "B",
                            "usable_pib": 1.0229,
                            "read_gbps": 27.0,
                            "write_gbps": 27.0,
                            "price_total": 1030417.0,
                            "currency": "USD",
                            "relative_price": 1.0,
                            "price_per_usable_pib": 1007343.0,
                            "price_per_read_gbps": 38164.0,
                            "rack_count": 1,
                            "units_used": 38,
                            "power_w": 10079.0,
                        },
                    ],
                },
            ),
        ],
    )
    def post(self, request):
        data = sd.CompareSerializer(data=request.data)
        data.is_valid(raise_exception=True)
        entries = []
        errors: list[dict] = [{} for _ in data.validated_data["designs"]]  # one per entry, as DRF lists them
        visible = services.designs_visible_to(request.user)
        for i, entry in enumerate(data.validated_data["designs"]):
            if "design" in entry:
                if not request.user.is_authenticated:
                    errors[i] = {"design": ["sign in (or send a token) to compare saved designs; anonymous users may compare inline specs"]}
                    continue
                design = visible.filter(pk=entry["design"]).first()
                if design is None:
                    errors[i] = {"design": [f"no design {entry['design']} visible to you"]}
                    continue
                entries.append((entry.get("label") or design.name, design.spec, design.prices or None, design.owner))
            else:
                spec = entry["spec"]
                entries.append((entry.get("label") or spec.get("name") or f"Design {i + 1}", spec, None))
        if any(errors):
            return Response({"designs": errors}, status=status.HTTP_400_BAD_REQUEST)
        budget.check(
            sum(budget.evaluate_cost(entry[1]) for entry in entries),
            request.user,
            field="designs",
            what=f"comparing these {len(entries)} designs",
            advice="compare fewer or smaller designs",
        )
        result = services.design_compare(entries=entries, reference=data.validated_data["reference"], user=request.user)
        return Response(result)


@extend_schema_view(
    list=extend_schema(summary="Your API tokens (keys are never shown again)", tags=["tokens"]),
    retrieve=extend_schema(summary="One of your API tokens", tags=["tokens"]),
    destroy=extend_schema(summary="Revoke a token at once", tags=["tokens"], responses={204: None}),
)
class ApiTokenViewSet(mixins.ListModelMixin, mixins.RetrieveModelMixin, mixins.DestroyModelMixin, viewsets.GenericViewSet):
    """Named API tokens for scripts: create (the key is shown once), list, revoke."""

    serializer_class = sd.ApiTokenSerializer
    permission_classes = [permissions.IsAuthenticated]
    parser_classes = JSON_ONLY

    queryset = ApiToken.objects.none()  # for the schema; requests see only their own tokens

    def get_queryset(self):
        if not self.request.user.is_authenticated:
            return ApiToken.objects.none()
        return ApiToken.objects.filter(user=self.request.user)

    @extend_schema(
        summary="Create a token (the response holds its key, shown this once)",
        tags=["tokens"],
        request=sd.ApiTokenSerializer,
        responses={201: sd.ApiTokenCreatedSerializer},
        examples=[
            OpenApiExample("New token", request_only=True, value={"name": "procurement script"}),
            OpenApiExample(
                "New token that expires", request_only=True, value={"name": "quarterly quote", "expires_at": "2027-04-01T00:00:00Z"}
            ),
            OpenApiExample(
                "Created",
                response_only=True,
                status_codes=["201"],
                value={
                    "id": 3,
                    "name": "procurement script",
                    "prefix": "srp_Xq3k9a",
                    "created_at": "2026-11-21T15:00:00Z",
                    "last_used_at": None,
                    "expires_at": None,
                    "revoked_at": None,
                    "active": True,
                    "expired": False,
                    "key": "srp_Xq3k9a...shown once...",
                },
            ),
        ],
    )
    def create(self, request):
        data = sd.ApiTokenSerializer(data=request.data)
        data.is_valid(raise_exception=True)
        try:
            token, key = services.token_create(
                user=request.user, name=data.validated_data["name"], expires_at=data.validated_data.get("expires_at")
            )
        except services.TokenLimit as exc:
            return Response({"name": [str(exc)]}, status=status.HTTP_400_BAD_REQUEST)
        body = sd.ApiTokenSerializer(token).data
        body["key"] = key
        return Response(body, status=status.HTTP_201_CREATED)

    def perform_destroy(self, instance):
        services.token_revoke(token=instance)


__all__ = ["ApiTokenViewSet", "CompareView", "DesignSpecSerializer", "DesignViewSet", "SharedDesignView"]
