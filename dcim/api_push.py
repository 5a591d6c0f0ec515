"""API under /api/v1/dcim/: DCIM connections (owner-only CRUD, token write-only, "test" action) and
pushes (POST a design to a connection as a dry run or for real: 202 with the job; GET its progress
and per-object report). Thin: the work is in dcim/push.py."""

from __future__ import annotations

import urllib.parse

from django.core.validators import RegexValidator
from django.db import IntegrityError
from django.shortcuts import get_object_or_404
from drf_spectacular.utils import OpenApiExample, OpenApiResponse, extend_schema, extend_schema_field, extend_schema_view
from rest_framework import mixins, permissions, serializers, status, viewsets
from rest_framework.decorators import action
from rest_framework.response import Response
from rest_framework.reverse import reverse
from rest_framework.routers import SimpleRouter

from api.errors import broker_unavailable_response
from api.serializers import JsonTypesMixin
from api.views import JSON_ONLY
from planner import services
from planner.services.jobs import BrokerUnavailable

from . import push as push_service
from .clients import DcimError, allowed_hosts, client_for
from .crypto import TokenUnreadable
from .models import DcimConnection, DcimPush, detect_token_version

TOKEN_FORM = RegexValidator(r"^[A-Za-z0-9_.\-]+$", "a token has only letters, digits and . _ - (no spaces or 'Token ' prefix)")
URL_FORM = RegexValidator(r"^https?://", "must start with http:// or https://")


@extend_schema_field({"type": "string", "pattern": "^(nautobot|netbox)$", "description": "nautobot or netbox."})
class DcimKindField(serializers.ChoiceField):
    """The connection's kind, documented by a pattern: an enum would become a component named after the
    field, and other `kind` enums in the API (the import part's) would collide with it."""


class ConnectionSerializer(JsonTypesMixin, serializers.ModelSerializer):
    """A DCIM connection. `token` is write-only (required when creating; send it again only to change it);
    answers show `token_hint`, its last four characters."""

    token = serializers.CharField(
        write_only=True,
        required=True,
        max_length=300,
        trim_whitespace=True,
        validators=[TOKEN_FORM],
        help_text="The DCIM API token (never returned). Nautobot: 40 hex characters; NetBox v1: 40 hex, v2: nbt_<key>.<token>.",
    )
    kind = DcimKindField(choices=DcimConnection.Kind.choices, help_text="nautobot or netbox.")
    token_hint = serializers.SerializerMethodField(help_text="The token's last four characters, e.g. '…1a2b'.")
    token_version_effective = serializers.SerializerMethodField(help_text="NetBox: v1 or v2 as used (chosen, else detected); Nautobot: ''.")
    test_url = serializers.SerializerMethodField()

    class Meta:
        model = DcimConnection
        fields = (
            "id",
            "name",
            "kind",
            "base_url",
            "token",
            "token_hint",
            "token_version",
            "token_version_effective",
            "site",
            "tenant",
            "verify_tls",
            "created_at",
            "updated_at",
            "test_url",
        )
        read_only_fields = ("id", "token_hint", "token_version_effective", "created_at", "updated_at", "test_url")
        extra_kwargs = {
            "name": {"help_text": "Your name for it, unique among your connections."},
            "site": {"help_text": "NetBox site or Nautobot location name where the racks go (it must exist there)."},
            "base_url": {"validators": [URL_FORM]},
        }

    def get_token_hint(self, obj) -> str:
        return f"…{obj.token_last4}" if obj.token_last4 else ""

    def get_token_version_effective(self, obj) -> str:
        return obj.effective_token_version if obj.kind == "netbox" else ""

    def get_test_url(self, obj) -> str:
        return reverse("dcim-connection-test", kwargs={"pk": obj.pk}, request=self.context.get("request"))

    def validate_base_url(self, value: str) -> str:
        parts = urllib.parse.urlsplit(value)
        if parts.scheme not in ("http", "https"):
            raise serializers.ValidationError("must start with http:// or https://")
        if parts.query or parts.fragment:
            raise serializers.ValidationError("give the DCIM's address without ?query or #fragment, e.g. https://nautobot.example.org")
        hosts = allowed_hosts()
        if hosts and (parts.hostname or "").lower() not in hosts:
            raise serializers.ValidationError(f"this site only allows DCIMs at: {', '.join(hosts)} (DCIM_ALLOWED_HOSTS)")
        path = parts.path.rstrip("/")
        if path.endswith("/api"):
            path = path[: -len("/api")]  # the API is found under <address>/api/
        return urllib.parse.urlunsplit((parts.scheme, parts.netloc, path, "", ""))

    def validate_name(self, value: str) -> str:
        owner = self.context["request"].user
        clash = DcimConnection.objects.filter(owner=owner, name=value)
        if self.instance is not None:
            clash = clash.exclude(pk=self.instance.pk)
        if clash.exists():
            raise serializers.ValidationError(f"you already have a connection named {value!r}")
        return value

    def validate(self, attrs):
        kind = attrs.get("kind", getattr(self.instance, "kind", None))
        token = attrs.get("token")
        version = attrs.get("token_version", getattr(self.instance, "token_version", ""))
        if kind == "nautobot" and version:
            raise serializers.ValidationError({"token_version": ["only NetBox tokens have versions: leave it empty for Nautobot"]})
        if kind == "netbox" and token:
            form = detect_token_version(token)
            if version == "v2" and form != "v2":
                raise serializers.ValidationError({"token": ["a NetBox v2 token looks like nbt_<key>.<token>"]})
            if version == "v1" and form != "v1":
                raise serializers.ValidationError({"token": ["a NetBox v1 token is 40 hexadecimal characters"]})
            if not version and not form:
                raise serializers.ValidationError(
                    {"token": ["not a NetBox token: v1 is 40 hexadecimal characters, v2 is nbt_<key>.<token>"]}
                )
        return attrs

    def _save(self, instance, validated):
        token = validated.pop("token", None)
        for key, value in validated.items():
            setattr(instance, key, value)
        if token:
            instance.set_token(token)
        try:
            instance.save()
        except IntegrityError as exc:  # two requests racing for one name
            raise serializers.ValidationError({"name": ["you already have a connection with this name"]}) from exc
        return instance

    def create(self, validated):
        return self._save(DcimConnection(owner=self.context["request"].user), validated)

    def update(self, instance, validated):
        return self._save(instance, validated)


class ConnectionUpdateSerializer(ConnectionSerializer):
    """Changing a connection: as creating one, but `token` only when it is to be replaced."""

    token = serializers.CharField(
        write_only=True,
        required=False,
        max_length=300,
        trim_whitespace=True,
        validators=[TOKEN_FORM],
        help_text="A new API token (never returned); leave it out to keep the stored one.",
    )


class ConnectionTestSerializer(serializers.Serializer):
    ok = serializers.BooleanField(help_text="The DCIM answered its status endpoint with this token.")
    product = serializers.CharField(help_text="Nautobot or NetBox.")
    version = serializers.CharField(help_text="The DCIM's version from /api/status/, '' when it did not answer.")
    status = serializers.IntegerField(help_text="The HTTP status of its answer (0: it could not be reached).")
    detail = serializers.CharField(help_text="'' when ok; else the DCIM's own message (or the network error).")


CONNECTION_EXAMPLE = OpenApiExample(
    "Nautobot",
    request_only=True,
    value={
        "name": "Nautobot (prod)",
        "kind": "nautobot",
        "base_url": "https://nautobot.example.org",
        "token": "0123456789abcdef0123456789abcdef01234567",
        "site": "Hall A",
    },
)
NOT_FOUND = OpenApiResponse(description="No such connection of yours (other users' connections are 404 too).")


@extend_schema_view(
    list=extend_schema(summary="Your DCIM connections", tags=["dcim"]),
    retrieve=extend_schema(
        summary="One DCIM connection (token never shown)", tags=["dcim"], responses={200: ConnectionSerializer, 404: NOT_FOUND}
    ),
    create=extend_schema(summary="Add a DCIM connection (Nautobot or NetBox)", tags=["dcim"], examples=[CONNECTION_EXAMPLE]),
    update=extend_schema(
        summary="Change a DCIM connection (send token only to replace it)",
        tags=["dcim"],
        request=ConnectionUpdateSerializer,
        responses={200: ConnectionSerializer, 404: NOT_FOUND},
    ),
    partial_update=extend_schema(
        summary="Change some fields of a DCIM connection",
        tags=["dcim"],
        request=ConnectionUpdateSerializer,
        responses={200: ConnectionSerializer, 404: NOT_FOUND},
    ),
    destroy=extend_schema(summary="Delete a DCIM connection and its pushes' records", tags=["dcim"], responses={204: None, 404: NOT_FOUND}),
)
class ConnectionViewSet(viewsets.ModelViewSet):
    """DCIM connections: each user sees and uses only their own."""

    serializer_class = ConnectionSerializer
    permission_classes = [permissions.IsAuthenticated]
    parser_classes = JSON_ONLY
    http_method_names = ["get", "post", "put", "patch", "delete", "head", "options"]

    queryset = DcimConnection.objects.none()  # the schema's parameter types; requests use get_queryset

    def get_serializer_class(self):
        return ConnectionUpdateSerializer if self.action in ("update", "partial_update") else ConnectionSerializer

    def get_queryset(self):
        if getattr(self, "swagger_fake_view", False):
            return DcimConnection.objects.none()
        return DcimConnection.objects.filter(owner=self.request.user).order_by("name", "id")

    @extend_schema(
        summary="Test a connection: ask the DCIM for its status and version with the stored token",
        tags=["dcim"],
        request=None,
        responses={200: ConnectionTestSerializer, 404: NOT_FOUND},
    )
    @action(detail=True, methods=["post"], url_path="test", url_name="test")
    def test(self, request, pk=None):
        conn = self.get_object()
        product = conn.get_kind_display()
        try:
            client = client_for(conn, timeout=10)
            version = client.version()
        except TokenUnreadable as exc:
            body = {"ok": False, "product": product, "version": "", "status": 0, "detail": str(exc)}
        except DcimError as exc:
            body = {"ok": False, "product": product, "version": "", "status": exc.status, "detail": exc.detail}
        else:
            ok = bool(version)
            detail = "" if ok else f"the answer has no {client.version_key}: is this a {product} address?"
            body = {"ok": ok, "product": product, "version": version, "status": 200, "detail": detail}
        return Response(ConnectionTestSerializer(body).data)


class PushRequestSerializer(JsonTypesMixin, serializers.Serializer):
    """Send a design version to a DCIM connection: a dry run first shows what would change."""

    connection = serializers.IntegerField(min_value=1, help_text="Id of one of your DCIM connections.")
    design = serializers.IntegerField(min_value=1, help_text="Id of a saved design you can read (its current version is pushed).")
    dry_run = serializers.BooleanField(default=True, help_text="true (default): only list what would be created or changed.")

    def validate_connection(self, value):
        conn = DcimConnection.objects.filter(owner=self.context["request"].user, pk=value).first()
        if conn is None:
            raise serializers.ValidationError("no connection of yours has this id")
        return conn

    def validate_design(self, value):
        design = services.designs_visible_to(self.context["request"].user).filter(pk=value).first()
        if design is None:
            raise serializers.ValidationError("no design you can read has this id")
        return design


class ReportEntrySerializer(serializers.Serializer):
    kind = serializers.CharField(
        help_text="manufacturer, device-type, interface-template, power-port-template, role, tag, rack, device, interface or cable."
    )
    name = serializers.CharField()
    action = serializers.CharField(
        help_text="Dry run: create, update, unchanged. Push: created, updated, unchanged. Both: failed (the DCIM refused: "
        "see detail), skipped (not written: detail says why), kept (in the design's rack, not in the design: left as it is). Cables: recable (dry run) / recabled (push) when "
        "an earlier push's cable between two of the design's devices holds a port the design now uses otherwise."
    )
    changes = serializers.DictField(required=False, help_text="Field -> [current value, planned value].")
    detail = serializers.CharField(required=False, help_text="The DCIM's own message, or why it was skipped.")
    status = serializers.IntegerField(required=False, help_text="The DCIM's HTTP status when it refused.")
    id = serializers.JSONField(required=False, help_text="The object's id in the DCIM.")


class PushSerializer(serializers.ModelSerializer):
    """A push or dry run of one design version through one connection, with progress and per-object report."""

    report = ReportEntrySerializer(many=True, read_only=True)
    summary = serializers.SerializerMethodField(help_text="How many objects per action.")
    progress = serializers.SerializerMethodField(help_text="done, total and the current step.")
    status_url = serializers.SerializerMethodField()
    connection_name = serializers.CharField(source="connection.name", read_only=True)

    class Meta:
        model = DcimPush
        fields = (
            "id",
            "connection",
            "connection_name",
            "design",
            "design_version",
            "dry_run",
            "status",
            "progress",
            "summary",
            "error",
            "report",
            "created_at",
            "started_at",
            "finished_at",
            "status_url",
        )
        read_only_fields = fields

    def get_summary(self, obj) -> dict[str, int]:
        counts: dict[str, int] = {}
        for entry in obj.report or []:
            counts[entry.get("action", "")] = counts.get(entry.get("action", ""), 0) + 1
        return counts

    def get_progress(self, obj) -> dict[str, int | str]:
        return {"done": obj.progress_done, "total": obj.progress_total, "step": obj.progress_step}

    def get_status_url(self, obj) -> str:
        return reverse("dcim-push-detail", kwargs={"pk": obj.pk}, request=self.context.get("request"))


@extend_schema_view(
    list=extend_schema(summary="Your DCIM pushes and dry runs, newest first", tags=["dcim"]),
    retrieve=extend_schema(
        summary="A push's status, progress and per-object report",
        tags=["dcim"],
        responses={200: PushSerializer, 404: OpenApiResponse(description="No such push of yours.")},
    ),
)
class PushViewSet(mixins.ListModelMixin, mixins.RetrieveModelMixin, viewsets.GenericViewSet):
    serializer_class = PushSerializer
    permission_classes = [permissions.IsAuthenticated]
    parser_classes = JSON_ONLY

    queryset = DcimPush.objects.none()

    def get_queryset(self):
        if getattr(self, "swagger_fake_view", False):
            return DcimPush.objects.none()
        return DcimPush.objects.filter(owner=self.request.user).select_related("connection").order_by("-created_at", "-id")

    def retrieve(self, request, *args, **kwargs):
        push = self.get_object()
        if push_service.push_resend_if_lost(push):
            push.refresh_from_db()
        return Response(self.get_serializer(push).data)

    @extend_schema(
        summary="Push a saved design into a DCIM (or dry-run it): a job on the exports queue",
        tags=["dcim"],
        request=PushRequestSerializer,
        responses={
            202: OpenApiResponse(PushSerializer, description="The job, queued (in eager mode: already finished)."),
            400: OpenApiResponse(description="Field-level messages (connection, design, dry_run)."),
            503: OpenApiResponse(description="The task queue is down: the job is kept (body.job) and sent again when polled."),
        },
        examples=[OpenApiExample("Dry run", request_only=True, value={"connection": 1, "design": 7, "dry_run": True})],
    )
    def create(self, request, *args, **kwargs):
        data = PushRequestSerializer(data=request.data, context={"request": request})
        data.is_valid(raise_exception=True)
        try:
            push = push_service.push_request(
                user=request.user,
                connection=data.validated_data["connection"],
                design=data.validated_data["design"],
                dry_run=data.validated_data["dry_run"],
            )
        except BrokerUnavailable as exc:
            return broker_unavailable_response(self.get_serializer(exc.job).data)
        push.refresh_from_db()
        return Response(self.get_serializer(push).data, status=status.HTTP_202_ACCEPTED)


router = SimpleRouter()
router.trailing_slash = "/?"
router.register("connections", ConnectionViewSet, basename="dcim-connection")
router.register("pushes", PushViewSet, basename="dcim-push")
urlpatterns = router.urls


def push_for(user, pk: int) -> DcimPush:
    """One of `user`'s pushes (404 otherwise); used by the page."""
    return get_object_or_404(DcimPush.objects.filter(owner=user), pk=pk)
