"""Brick templates of users and the catalogue (/api/v1/brick-templates/): thin, each calls one service.

Anyone lists and reads the catalogue's templates; signed in, also their own and those shared with
them. Only the owner changes, shares or deletes a template (the catalogue's are staff's, through
/api/v1/catalogue/brick-templates/); any visible template can be copied into one's own.
"""

from __future__ import annotations

from drf_spectacular.utils import OpenApiExample, OpenApiResponse, extend_schema, extend_schema_view
from rest_framework import filters, permissions, serializers, status, viewsets
from rest_framework.decorators import action
from rest_framework.response import Response

from planner.services import brick_templates as bt
from planner.spec import SpecError

from . import serializers_templates as st
from .views import JSON_ONLY

TAGS = ["brick templates"]
NOT_FOUND = OpenApiResponse(description="No such template visible to you (other users' unshared templates are 404 too).")
FORBIDDEN = OpenApiResponse(description="Visible but not yours: the catalogue's, or shared with you read-only.")
IN_USE = OpenApiResponse(description="Saved designs still use it: the body names them; change or delete them first.")
FIELD_ERRORS = OpenApiResponse(description="Each offending field with what the parts cannot hold.")

R730XD_EXAMPLE = {
    "slug": "ann-r730xd-6tb-10g",
    "name": "R730xd, 16 x 6 TB, 10GbE",
    "server": "r730xd",
    "head": "r730xd-bays",
    "disk": "nl-sas-6tb",
    "network_adapter": "eth-10g",
    "raid_level": "raid6",
    "raid_data_disks": 14,
    "groups_per_enclosure": 1,
}


class TemplateFilterSerializer(serializers.Serializer):
    owned = serializers.BooleanField(
        required=False,
        allow_null=True,
        default=None,
        help_text="true: only your own templates; false: the catalogue's and those shared with you.",
    )


class IsTemplateOwner(permissions.BasePermission):
    """Anyone who sees a template reads and copies it; only its owner changes, shares or deletes it."""

    def has_object_permission(self, request, view, obj):
        if request.method in permissions.SAFE_METHODS or getattr(view, "action", None) == "copy":
            return True
        if obj.owner_id is None:
            self.message = "This is one of the catalogue's templates: copy it into your own (POST .../copy/) to change it."
            return False
        if obj.owner_id != request.user.id:
            self.message = "This template is shared with you read-only: only its owner can change it; copy it to make your own."
            return False
        return True


@extend_schema_view(
    list=extend_schema(
        summary="Brick templates you can use: the catalogue's, your own and those shared with you",
        description="Anonymous: the catalogue's only. `?owned=true` your own, `?owned=false` the others; `?search=` in slug, name, role and description.",
        tags=TAGS,
        parameters=[TemplateFilterSerializer],
    ),
    retrieve=extend_schema(
        summary="One brick template by slug", tags=TAGS, responses={200: st.BrickTemplateReadSerializer, 404: NOT_FOUND}
    ),
)
class BrickTemplateViewSet(viewsets.ModelViewSet):
    """Brick templates composed of catalogue parts: the catalogue's presets and users' own, shareable ones."""

    serializer_class = st.BrickTemplateReadSerializer
    permission_classes = [permissions.IsAuthenticatedOrReadOnly, IsTemplateOwner]
    parser_classes = JSON_ONLY
    filter_backends = [filters.SearchFilter]
    search_fields = ["slug", "name", "role", "description"]
    lookup_field = "slug"
    lookup_value_regex = r"[-a-zA-Z0-9_]+"
    http_method_names = ["get", "post", "put", "patch", "delete", "head", "options"]

    def get_queryset(self):
        queryset = bt.brick_templates_visible_to(self.request.user)
        if self.action == "list":
            params = TemplateFilterSerializer(data=self.request.query_params)
            params.is_valid(raise_exception=True)
            owned = params.validated_data.get("owned")
            user = self.request.user if self.request.user.is_authenticated else None
            if owned is True:
                queryset = queryset.filter(owner=user) if user else queryset.none()
            elif owned is False and user is not None:
                queryset = queryset.exclude(owner=user)
        return queryset

    def _out(self, template, code=status.HTTP_200_OK) -> Response:
        return Response(self.get_serializer(template).data, status=code)

    @extend_schema(
        summary="Save a brick template of your own, composed of catalogue parts",
        description="Parts are named by slug. Left out: parity follows the RAID level, RAID groups fill the head, storage ports "
        "follow the HBAs, the role follows the head. What the parts cannot hold is a 400 naming the field.",
        tags=TAGS,
        request=st.BrickTemplateWriteSerializer,
        responses={201: st.BrickTemplateReadSerializer, 400: FIELD_ERRORS},
        examples=[
            OpenApiExample("R730xd with 16 x 6 TB, 10GbE", request_only=True, value=R730XD_EXAMPLE),
            OpenApiExample(
                "Too many disks for the bays",
                response_only=True,
                status_codes=["400"],
                value={"groups_per_enclosure": ["the R730xd holds 16 drives; this layout needs 32 (2 x 14+2)"]},
            ),
        ],
    )
    def create(self, request, *args, **kwargs):
        data = st.BrickTemplateWriteSerializer(data=request.data)
        data.is_valid(raise_exception=True)
        try:
            template = bt.brick_template_create(owner=request.user, fields=data.validated_data)
        except SpecError as exc:
            return Response(exc.errors, status=status.HTTP_400_BAD_REQUEST)
        return self._out(template, status.HTTP_201_CREATED)

    @extend_schema(
        summary="Replace your template's fields (its slug stays)",
        tags=TAGS,
        request=st.BrickTemplateWriteSerializer,
        responses={200: st.BrickTemplateReadSerializer, 400: FIELD_ERRORS, 403: FORBIDDEN, 404: NOT_FOUND},
    )
    def update(self, request, *args, **kwargs):
        template = self.get_object()
        data = st.BrickTemplateWriteSerializer(data=request.data, partial=kwargs.get("partial", False))
        data.is_valid(raise_exception=True)
        try:
            template = bt.brick_template_update(template=template, fields=data.validated_data)
        except SpecError as exc:
            return Response(exc.errors, status=status.HTTP_400_BAD_REQUEST)
        return self._out(template)

    @extend_schema(
        summary="Change some of your template's fields",
        tags=TAGS,
        request=st.BrickTemplateWriteSerializer,
        responses={200: st.BrickTemplateReadSerializer, 400: FIELD_ERRORS, 403: FORBIDDEN, 404: NOT_FOUND},
        examples=[OpenApiExample("8 TB disks instead", request_only=True, value={"disk": "nl-sas-8tb"})],
    )
    def partial_update(self, request, *args, **kwargs):
        return self.update(request, *args, partial=True, **kwargs)

    @extend_schema(
        summary="Delete your template (refused while a saved design uses it)",
        tags=TAGS,
        responses={204: None, 403: FORBIDDEN, 404: NOT_FOUND, 409: IN_USE},
        examples=[
            OpenApiExample(
                "In use",
                response_only=True,
                status_codes=["409"],
                value={
                    "detail": "The brick template 'ann-r730xd-6tb-10g' is used by saved designs: 'Grid site' (#12). Change or delete them first.",
                    "designs": [{"id": 12, "name": "Grid site", "owner": "ann"}],
                    "other_designs": 0,
                },
            )
        ],
    )
    def destroy(self, request, *args, **kwargs):
        template = self.get_object()
        try:
            bt.brick_template_delete(template=template)
        except bt.TemplateInUse as exc:
            return Response(_in_use_body(exc, request.user), status=status.HTTP_409_CONFLICT)
        return Response(status=status.HTTP_204_NO_CONTENT)

    @extend_schema(
        summary="Share your template read-only with users (they may use it in their designs)",
        tags=TAGS,
        request=st.TemplateShareSerializer,
        responses={200: st.BrickTemplateReadSerializer, 400: FIELD_ERRORS, 403: FORBIDDEN, 404: NOT_FOUND},
        examples=[OpenApiExample("Share with bob", request_only=True, value={"users": ["bob"]})],
    )
    @action(detail=True, methods=["post"])
    def share(self, request, slug=None):
        template = self.get_object()
        data = st.TemplateShareSerializer(data=request.data)
        data.is_valid(raise_exception=True)
        try:
            template = bt.brick_template_share(template=template, usernames=data.validated_data["users"])
        except SpecError as exc:
            return Response(exc.errors, status=status.HTTP_400_BAD_REQUEST)
        return self._out(template)

    @extend_schema(
        summary="Copy a template you can see (a catalogue preset included) into your own",
        description="Optionally with a design line's overrides over it (disk, expansions, adapter, adapters_per_server, "
        "storage_ports, raid), as the designer's 'Save line as template' does. The slug defaults to '<username>-<slug>'.",
        tags=TAGS,
        request=st.TemplateCopySerializer,
        responses={201: st.BrickTemplateReadSerializer, 400: FIELD_ERRORS, 404: NOT_FOUND},
        examples=[
            OpenApiExample(
                "A preset with 6 TB disks and 10GbE",
                request_only=True,
                value={
                    "slug": "ann-r730xd-6tb-10g",
                    "name": "R730xd, 16 x 6 TB, 10GbE",
                    "disk": "nl-sas-6tb",
                    "adapter": "eth-10g",
                    "raid": {"level": "raid6", "data": 14, "parity": 2, "groups": 1, "spares": 0},
                },
            )
        ],
    )
    @action(detail=True, methods=["post"], permission_classes=[permissions.IsAuthenticated, IsTemplateOwner])
    def copy(self, request, slug=None):
        template = self.get_object()
        data = st.TemplateCopySerializer(data=request.data)
        data.is_valid(raise_exception=True)
        v = dict(data.validated_data)
        parts = {"disk": v.pop("disk", None), "adapter": v.pop("adapter", None)}
        try:
            new = bt.brick_template_copy(
                template=template,
                owner=request.user,
                slug=v.pop("slug", None),
                name=v.pop("name", None),
                description=v.pop("description", None),
                overrides=v,
                parts=parts,
            )
        except SpecError as exc:
            return Response(exc.errors, status=status.HTTP_400_BAD_REQUEST)
        return self._out(new, status.HTTP_201_CREATED)


def _in_use_body(exc: bt.TemplateInUse, user) -> dict:
    """Name the requester's own designs; count other users' (their names are theirs)."""
    mine = [{"id": i, "name": name, "owner": owner} for i, name, owner in exc.designs if owner == user.username]
    others = len(exc.designs) - len(mine)
    named = ", ".join(f"'{d['name']}' (#{d['id']})" for d in mine)
    parts = [p for p in (named, f"{others} design{'s' if others != 1 else ''} of other users" if others else "") if p]
    return {
        "detail": f"The brick template '{exc.slug}' is used by saved designs: {' and '.join(parts)}. Change or delete them first.",
        "designs": mine,
        "other_designs": others,
    }
