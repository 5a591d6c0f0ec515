"""API views: thin. Catalogue viewsets (read-only), health, and evaluate (calls the service)."""

from __future__ import annotations

from django.views.decorators.csrf import csrf_exempt
from drf_spectacular.utils import OpenApiExample, OpenApiResponse, extend_schema, extend_schema_view
from rest_framework import filters, permissions, status, viewsets
from rest_framework.exceptions import ValidationError
from rest_framework.response import Response
from rest_framework.views import APIView

from hardware_catalog import models as cat
from hardware_catalog import selectors
from planner.services import budget, design_evaluate

from . import serializers as s
from .parsers import LimitedJSONParser
from .permissions import IsStaffOrReadOnly
from .schema import PlannerAutoSchema

# API bodies are JSON only (form or multipart bodies are a 415): the schema documents JSON, and nested
# DesignSpecs cannot be sent as forms anyway. Calibration uploads are the one multipart endpoint.
JSON_ONLY = [LimitedJSONParser]

CATALOGUE_FILTERS = {
    "disks": {"interface": cat.Disk.Interface.choices, "form_factor": [("3.5", "3.5"), ("2.5", "2.5")]},
    "enclosures": {"kind": cat.Enclosure.Kind.choices},
    "adapters": {"kind": cat.Adapter.Kind.choices},
    "switches": {"kind": cat.Switch.Kind.choices},
    "accessories": {"kind": cat.Accessory.Kind.choices},
    "brick-templates": {"role": [(r, r) for r in ("performance", "capacity", "internal", "jbod", "iscsi")]},
}


def _filter_serializer(kind: str):
    """A serializer validating the list filters of one kind (?kind=, ?interface=, ...)."""
    from rest_framework import serializers as drf

    fields = {
        name: drf.ChoiceField(choices=choices, required=False, help_text=f"Only records with this {name}.")
        for name, choices in CATALOGUE_FILTERS.get(kind, {}).items()
    }
    return type(f"{kind.title().replace('-', '')}FilterSerializer", (drf.Serializer,), fields)


def _catalogue_viewset(kind: str, serializer_class, search: tuple[str, ...]):
    """A paginated, searchable, filterable viewset for one catalogue kind, looked up by slug; staff edit it."""
    filters_serializer = _filter_serializer(kind)

    @extend_schema_view(
        list=extend_schema(
            summary=f"List catalogue {kind}", tags=["catalogue"], parameters=[filters_serializer] if CATALOGUE_FILTERS.get(kind) else None
        ),
        retrieve=extend_schema(summary=f"Fetch one of the catalogue {kind} by slug", tags=["catalogue"]),
        create=extend_schema(summary=f"Add to catalogue {kind} (staff only)", tags=["catalogue"]),
        update=extend_schema(summary=f"Replace one of the catalogue {kind} (staff only)", tags=["catalogue"]),
        partial_update=extend_schema(summary=f"Change one of the catalogue {kind} (staff only)", tags=["catalogue"]),
        destroy=extend_schema(
            summary=f"Delete one of the catalogue {kind} (staff only; refused while in use)",
            tags=["catalogue"],
            responses={204: None, 409: OpenApiResponse(description="In use by other records")},
        ),
    )
    class CatalogueViewSet(viewsets.ModelViewSet):
        lookup_field = "slug"
        permission_classes = [IsStaffOrReadOnly]
        parser_classes = JSON_ONLY
        schema = PlannerAutoSchema()  # reads are open to anyone: security documented as optional
        filter_backends = [filters.SearchFilter]
        search_fields = search

        def destroy(self, request, *args, **kwargs):
            """A record that saved designs name is refused (409) with the designs named."""
            from planner.services.designs import designs_naming

            obj = self.get_object()
            using = designs_naming(kind=kind, slug=obj.slug)
            if using:
                shown = ", ".join(f"'{name}' (#{pk}, {owner})" for pk, name, owner in using[:10])
                more = f" and {len(using) - 10} more" if len(using) > 10 else ""
                return Response(
                    {
                        "detail": f"{obj.slug} is used by {len(using)} saved design(s): {shown}{more}. Change or delete them first.",
                        "designs": [pk for pk, _, _ in using],
                    },
                    status=status.HTTP_409_CONFLICT,
                )
            return super().destroy(request, *args, **kwargs)

        def get_queryset(self):
            queryset = selectors.catalogue_queryset(kind)
            if self.action == "list":
                # a plain dict, not the QueryDict: DRF reads an empty form value of an optional field as
                # "not given", but `?kind=` is not one of the documented choices (a 400, as the schema says)
                params = filters_serializer(data=self.request.query_params.dict())
                params.is_valid(raise_exception=True)
                queryset = queryset.filter(**params.validated_data)
            return queryset

    CatalogueViewSet.serializer_class = serializer_class
    CatalogueViewSet.__name__ = f"{kind.title().replace('-', '')}ViewSet"
    return CatalogueViewSet


NAMED = ("slug", "name", "vendor", "model")
CATALOGUE_VIEWSETS = {
    "disks": _catalogue_viewset("disks", s.DiskSerializer, NAMED + ("interface",)),
    "servers": _catalogue_viewset("servers", s.ServerSerializer, NAMED),
    "enclosures": _catalogue_viewset("enclosures", s.EnclosureSerializer, NAMED + ("kind",)),
    "adapters": _catalogue_viewset("adapters", s.AdapterSerializer, NAMED + ("kind",)),
    "switches": _catalogue_viewset("switches", s.SwitchSerializer, NAMED),
    "accessories": _catalogue_viewset("accessories", s.AccessorySerializer, NAMED + ("kind",)),
    "racks": _catalogue_viewset("racks", s.RackSerializer, NAMED),
    "tuning-profiles": _catalogue_viewset("tuning-profiles", s.TuningProfileSerializer, ("slug", "name")),
    "brick-templates": _catalogue_viewset("brick-templates", s.BrickTemplateSerializer, ("slug", "name", "role", "description")),
    "metadata-cells": _catalogue_viewset("metadata-cells", s.MetadataCellSerializer, ("slug", "name")),
    "price-lists": _catalogue_viewset("price-lists", s.PriceListSerializer, ("slug", "name", "currency")),
}


from .health import HealthView  # noqa: E402,F401 - routed from api/urls.py

EVALUATE_EXAMPLE = {
    "name": "8 performance bricks, 4 TB",
    "bricks": [{"template": "md3460-performance", "count": 8, "disk": "nl-sas-4tb"}],
    "metadata": {"cell": "mds-cell", "placement": "none"},
    "rack": "rack-42u",
    "tuning": "large-io",
    "failover": "paired",
    "price_list": "illustrative",
}


class EvaluateView(APIView):
    """POST a DesignSpec, get its Evaluation. Nothing is stored."""

    permission_classes = [permissions.AllowAny]
    parser_classes = JSON_ONLY

    @extend_schema(
        summary="Evaluate a design",
        tags=["evaluate"],
        request=s.DesignSpecSerializer,
        responses={
            200: s.EvaluationSerializer,
            400: OpenApiResponse(description='Field-level messages, e.g. {"bricks": [{"count": ["must be between 1 and 500"]}]}'),
        },
        examples=[
            OpenApiExample("Reference rack D", value=EVALUATE_EXAMPLE, request_only=True),
            OpenApiExample(
                "Composed bricks: 20 R730xd with 16 x 6 TB as RAID6 14+2, 10GbE, no failover",
                value={
                    "name": "Grid site, new generation",
                    "bricks": [
                        {
                            "template": "r730xd-internal",
                            "count": 20,
                            "disk": "nl-sas-6tb",
                            "adapter": "eth-10g",
                            "adapters_per_server": 1,
                            "raid": {"level": "raid6", "data": 14, "parity": 2, "groups": 1, "spares": 0},
                        }
                    ],
                    "failover": "none",
                    "metadata": {"placement": "none"},
                },
                request_only=True,
            ),
            OpenApiExample(
                "Clients with Lustre's per-client limit, over an oversubscribed fabric",
                value={
                    "bricks": [{"template": "md3460-performance", "count": 8}],
                    "metadata": {"placement": "none"},
                    "clients": {"count": 64, "adapter": "ib-fdr", "rpc_round_trip_ms": 2.0, "streams": 4},
                    "fabric": {"oversubscription": 2.0},
                },
                request_only=True,
            ),
            OpenApiExample(
                "Evaluation of rack D (abridged)",
                response_only=True,
                value={
                    "name": "8 performance bricks, 4 TB",
                    "usable_pib": 1.3638,
                    "usable_tib": 1396.5,
                    "raw_tb": 1920.0,
                    "read_gbps": 36.0,
                    "write_gbps": 36.0,
                    "bottleneck": {"read": "raid_controller", "write": "raid_controller"},
                    "stages": [
                        {
                            "brick": "md3460-performance",
                            "stage": "raid_controller",
                            "read_gbps": 5.0,
                            "write_gbps": 5.0,
                            "limiting": {"read": True, "write": True},
                        }
                    ],
                    "price": {
                        "total": 1025940.0,
                        "currency": "USD",
                        "capex": 918980.0,
                        "opex": 106960.0,
                        "illustrative": True,
                        "lines": [
                            {
                                "kind": "disk",
                                "item": "nl-sas-4tb",
                                "name": "4 TB 7.2k NL-SAS",
                                "quantity": 480,
                                "unit_price": 300.0,
                                "total": 144000.0,
                            }
                        ],
                    },
                    "rack_count": 1,
                    "units_used": 42,
                    "power_w": 11210.0,
                    "weight_kg": 1148.0,
                    "counts": {"bricks": 8, "servers": 8, "enclosures": 8, "disks": 480, "osts": 48},
                    "warnings": [
                        "Prices come from 'Illustrative list prices (USD, 2015)', an illustrative list: enter real quotes before using them in a purchase."
                    ],
                },
            ),
        ],
    )
    def post(self, request):
        spec, errors = s.validate_design_spec(request.data)
        if errors is not None:
            raise ValidationError(errors)
        budget.check(
            budget.evaluate_cost(spec),
            request.user,
            field="bricks",
            what="this evaluation",
            advice="evaluate fewer bricks, or save the design and export its rack sheet",
        )
        evaluation = design_evaluate(spec=spec, user=request.user)
        return Response(evaluation.as_dict())


@csrf_exempt
def api_not_found(request, *args, **kwargs):
    """Unknown paths under /api/v1/ answer in JSON, like the rest of the API."""
    from django.http import JsonResponse

    return JsonResponse({"detail": f"No API endpoint at {request.path}. See /api/docs/ for the endpoints."}, status=404)
