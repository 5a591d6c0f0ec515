"""API views for capacity plans: owned, versioned (409 on a stale update), shareable; the computed timeline
and the plan sheet (PDF). Thin: each calls one service."""

from __future__ import annotations

from django.http import HttpResponse
from django.shortcuts import get_object_or_404
from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import OpenApiExample, OpenApiResponse, extend_schema, extend_schema_view
from rest_framework import filters, permissions, status, viewsets
from rest_framework.decorators import action
from rest_framework.response import Response

from planner.models import Plan
from planner.services import plans as plan_services

from . import serializers_plans as sp
from .filters import StrictOrderingFilter
from .permissions import IsOwnerOrReadOnlyShared
from .views import JSON_ONLY

CONFLICT = OpenApiResponse(
    description="The plan changed since the version you sent: nothing was changed; the body has the current version."
)
NOT_FOUND = OpenApiResponse(description="No such plan visible to you (other users' plans are 404 too).")
BAD = OpenApiResponse(description="Field-level messages, e.g. {'body': {'start_year': ['must be 2025 or later ...']}}")

EXAMPLE_BODY = {
    "start_year": 2026,
    "demand": {
        "usable_pib": 1.0,
        "growth_per_year": 0.4142,
        "throughput": {"job_slots": 400, "read_mbps_per_job": 50, "write_mbps_per_job": 25},
    },
    "phases": [
        {"year": 2026, "add": [{"design": 1, "label": "first rack"}]},
        {"year": 2027, "add": [{"design": 1, "label": "second rack"}]},
        {"year": 2028, "add": [{"spec": {"bricks": [{"template": "md3460-capacity", "count": 4}]}, "label": "capacity rack"}]},
    ],
    "settings": {"horizon_years": 6, "price_trend_per_tb": -0.1, "rack_cost_per_u_year": 300},
}


class IsPlanOwnerOrReadOnlyShared(IsOwnerOrReadOnlyShared):
    message = "This plan is shared with you read-only; only its owner can change it."


def _conflict(request, exc: plan_services.PlanVersionConflict) -> Response:
    return Response(
        {
            "detail": f"This plan was saved elsewhere since you loaded it (in another window, or by someone else): it is now at "
            f"version {exc.current.version}, last saved {exc.current.updated_at:%Y-%m-%d %H:%M} UTC. Nothing was saved: "
            "load the current version, or send your change again based on it.",
            "current_version": exc.current.version,
            "plan": sp.PlanSerializer(exc.current, context={"request": request}).data,
        },
        status=status.HTTP_409_CONFLICT,
    )


@extend_schema_view(
    list=extend_schema(summary="Your plans and those shared with you", tags=["plans"]),
    retrieve=extend_schema(summary="One plan", tags=["plans"], responses={200: sp.PlanSerializer, 404: NOT_FOUND}),
    destroy=extend_schema(summary="Delete a plan (owner only)", tags=["plans"], responses={204: None, 404: NOT_FOUND}),
)
class PlanViewSet(viewsets.ModelViewSet):
    """Capacity plans: demand over years, purchase phases, settings; owned, versioned (409 on a stale
    update), shareable read-only with users or by a secret link."""

    serializer_class = sp.PlanSerializer
    permission_classes = [permissions.IsAuthenticated, IsPlanOwnerOrReadOnlyShared]
    parser_classes = JSON_ONLY
    filter_backends = [filters.SearchFilter, StrictOrderingFilter]
    search_fields = ["name"]
    ordering_fields = ["updated_at", "created_at", "name"]
    http_method_names = ["get", "post", "put", "patch", "delete", "head", "options"]
    queryset = Plan.objects.none()  # for the schema; requests see the plans visible to them

    def get_queryset(self):
        return plan_services.plans_visible_to(self.request.user).select_related("owner").prefetch_related("shared_with")

    @extend_schema(
        summary="Save a plan",
        tags=["plans"],
        request=sp.PlanCreateSerializer,
        responses={201: sp.PlanSerializer, 400: BAD},
        examples=[OpenApiExample("Doubling in two years", request_only=True, value={"name": "Scratch 2026-2031", "body": EXAMPLE_BODY})],
    )
    def create(self, request, *args, **kwargs):
        data = sp.PlanCreateSerializer(data=request.data)
        data.is_valid(raise_exception=True)
        try:
            plan = plan_services.plan_create(owner=request.user, name=data.validated_data["name"], body=request.data["body"])
        except plan_services.SpecError as exc:
            raise exc.nested("body") from None
        return Response(self.get_serializer(plan).data, status=status.HTTP_201_CREATED)

    @extend_schema(
        summary="Change a plan (owner only; send the version it is based on)",
        tags=["plans"],
        request=sp.PlanUpdateSerializer,
        responses={200: sp.PlanSerializer, 400: BAD, 404: NOT_FOUND, 409: CONFLICT},
        examples=[OpenApiExample("Rename, based on version 3", request_only=True, value={"version": 3, "name": "Scratch, revised"})],
    )
    def update(self, request, *args, **kwargs):
        plan = self.get_object()
        data = sp.PlanUpdateSerializer(data=request.data)
        data.is_valid(raise_exception=True)
        try:
            plan = plan_services.plan_update(
                plan=plan,
                based_on_version=data.validated_data["version"],
                name=data.validated_data.get("name"),
                body=request.data["body"] if "body" in data.validated_data else None,
            )
        except plan_services.PlanVersionConflict as exc:
            return _conflict(request, exc)
        except plan_services.SpecError as exc:
            raise exc.nested("body") from None
        return Response(self.get_serializer(plan).data)

    @extend_schema(
        summary="Change a plan (same as PUT: version required, name and body optional)",
        tags=["plans"],
        request=sp.PlanUpdateSerializer,
        responses={200: sp.PlanSerializer, 400: BAD, 404: NOT_FOUND, 409: CONFLICT},
    )
    def partial_update(self, request, *args, **kwargs):
        return self.update(request, *args, **kwargs)

    def perform_destroy(self, instance):
        plan_services.plan_delete(plan=instance)

    @extend_schema(
        summary="The computed plan: supply against demand per year, run-out years, costs, proposed purchases",
        tags=["plans"],
        responses={200: sp.PlanTimelineSerializer, 400: BAD, 404: NOT_FOUND},
    )
    @action(detail=True, methods=["get"])
    def timeline(self, request, pk=None):
        plan = self.get_object()
        return Response(plan_services.plan_timeline(plan=plan))

    @extend_schema(
        summary="The plan sheet (PDF, A4): timeline charts, purchase table, costs, settings and their sources",
        tags=["plans"],
        responses={(200, "application/pdf"): OpenApiTypes.BINARY, 400: BAD, 404: NOT_FOUND},
    )
    @action(detail=True, methods=["get"])
    def sheet(self, request, pk=None):
        plan = self.get_object()
        pdf = plan_services.plan_sheet(plan=plan)
        response = HttpResponse(pdf, content_type="application/pdf")
        safe = "".join(c if c.isalnum() or c in "-_" else "-" for c in plan.name)[:60].strip("-") or "plan"
        response["Content-Disposition"] = f'attachment; filename="{safe}-v{plan.version}-plan-sheet.pdf"'
        return response

    @extend_schema(
        summary="Share read-only with users and/or by secret link (owner only)",
        tags=["plans"],
        request=sp.PlanShareSerializer,
        responses={200: sp.PlanSerializer, 400: BAD, 404: NOT_FOUND},
    )
    @action(detail=True, methods=["post"])
    def share(self, request, pk=None):
        plan = self.get_object()
        data = sp.PlanShareSerializer(data=request.data)
        data.is_valid(raise_exception=True)
        plan = plan_services.plan_share(plan=plan, usernames=data.validated_data.get("users"), link=data.validated_data.get("link"))
        return Response(self.get_serializer(plan).data)

    @extend_schema(
        summary="Read a plan shared by link, with its timeline (no sign-in needed)",
        tags=["plans"],
        responses={200: sp.SharedPlanSerializer, 404: OpenApiResponse(description="No such link (or sharing was switched off).")},
    )
    @action(detail=False, methods=["get"], url_path=r"shared/(?P<token>[A-Za-z0-9_-]+)", permission_classes=[permissions.AllowAny])
    def shared(self, request, token=None):
        plan = get_object_or_404(Plan.objects.select_related("owner"), share_token=token)
        return Response(
            {"plan": sp.PlanSerializer(plan, context={"request": request}).data, "timeline": plan_services.plan_timeline(plan=plan)}
        )
