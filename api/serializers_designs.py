"""Serializers for saved designs, sharing, comparison and API tokens."""

from __future__ import annotations

from django.utils import timezone
from rest_framework import serializers
from rest_framework.reverse import reverse

from planner.models import ApiToken, Design

from .serializers import DesignSpecSerializer, JsonTypesMixin, StrictFieldsMixin


class OwnedSharedMixin:
    """`is_owner`, `shared_with` and `share_url` of a saved design or plan: the sharing fields only its
    owner sees. `share_route` names the URL of the read-only link."""

    share_route = ""

    def _is_owner(self, obj) -> bool:
        request = self.context.get("request")
        return bool(request and request.user.is_authenticated and obj.owner_id == request.user.id)

    def get_is_owner(self, obj) -> bool:
        return self._is_owner(obj)

    def get_shared_with(self, obj) -> list[str] | None:
        if not self._is_owner(obj):
            return None
        return sorted(u.username for u in obj.shared_with.all())

    def get_share_url(self, obj) -> str | None:
        if not self._is_owner(obj) or not obj.share_token:
            return None
        return reverse(self.share_route, kwargs={"token": obj.share_token}, request=self.context.get("request"))


class DesignSerializer(OwnedSharedMixin, serializers.ModelSerializer):
    """A saved design as its owner or a reader sees it."""

    owner = serializers.CharField(source="owner.username", read_only=True)
    is_owner = serializers.SerializerMethodField()
    shared_with = serializers.SerializerMethodField(help_text="Usernames it is shared with (owner only).")
    share_url = serializers.SerializerMethodField(help_text="The secret read-only API link, when sharing by link is on (owner only).")
    share_page_url = serializers.SerializerMethodField(help_text="The same secret link as a page for people (owner only).")
    prices = serializers.SerializerMethodField(help_text="The frozen price list: slug, name, date, currency, when priced.")
    evaluation_url = serializers.SerializerMethodField()

    class Meta:
        model = Design
        fields = (
            "id",
            "name",
            "spec",
            "version",
            "owner",
            "is_owner",
            "shared_with",
            "share_url",
            "share_page_url",
            "prices",
            "created_at",
            "updated_at",
            "evaluation_url",
        )
        read_only_fields = fields

    share_route = "shared-design"

    def get_share_page_url(self, obj) -> str | None:
        if not self._is_owner(obj) or not obj.share_token:
            return None
        request = self.context.get("request")
        path = f"/shared/{obj.share_token}/"
        return request.build_absolute_uri(path) if request is not None else path

    def get_prices(self, obj) -> dict:
        p = obj.prices or {}
        return {
            "slug": p.get("slug"),
            "name": p.get("name"),
            "effective_date": p.get("effective_date"),
            "currency": p.get("currency"),
            "illustrative": p.get("illustrative"),
            "priced_at": obj.priced_at.isoformat() if obj.priced_at else None,
        }

    def get_evaluation_url(self, obj) -> str:
        return reverse("design-evaluation", kwargs={"pk": obj.pk}, request=self.context.get("request"))


class DesignCreateSerializer(StrictFieldsMixin, serializers.Serializer):
    """A new saved design: a name and a DesignSpec."""

    name = serializers.CharField(max_length=200)
    spec = DesignSpecSerializer()


class DesignUpdateSerializer(StrictFieldsMixin, serializers.Serializer):
    """A change to a design: the version it is based on, and a new name and/or spec."""

    version = serializers.IntegerField(min_value=1, help_text="The version your change is based on; a stale version gets 409.")
    name = serializers.CharField(max_length=200, required=False)
    spec = DesignSpecSerializer(required=False)


class RepriceSerializer(StrictFieldsMixin, serializers.Serializer):
    """Re-price a saved design with the current prices of its price list, based on this version."""

    version = serializers.IntegerField(min_value=1, required=False, help_text="Optional: refuse (409) if the design moved on.")


class ShareSerializer(StrictFieldsMixin, serializers.Serializer):
    """Who may read a design: `users` replaces the list of usernames (send the full list); `link` switches the secret link on or off. A field left out is unchanged."""

    users = serializers.ListField(
        child=serializers.CharField(max_length=150),
        required=False,
        max_length=100,
        help_text="Usernames to share with read-only (replaces the list).",
    )
    link = serializers.BooleanField(required=False, help_text="True to create a secret read-only link, false to remove it.")

    def validate(self, attrs):
        if not attrs:
            raise serializers.ValidationError("give 'users', 'link' or both")
        return attrs


class CompareEntrySerializer(StrictFieldsMixin, serializers.Serializer):
    """One design to compare: a saved design's id or an inline spec, with an optional label."""

    design = serializers.IntegerField(required=False, min_value=1, help_text="A saved design's id (signed-in users).")
    spec = DesignSpecSerializer(required=False, help_text="An inline DesignSpec.")
    label = serializers.CharField(required=False, max_length=100)

    schema_one_of = (("design",), ("spec",))  # documented: exactly one of the two

    def validate(self, attrs):
        if ("design" in attrs) == ("spec" in attrs):
            raise serializers.ValidationError("give either 'design' (an id) or 'spec' (an inline DesignSpec)")
        return attrs


class CompareSerializer(StrictFieldsMixin, serializers.Serializer):
    """2 to 8 designs to compare, and which one the relative prices are against."""

    designs = CompareEntrySerializer(
        many=True,
        min_length=2,
        max_length=8,
        error_messages={"min_length": "compare 2 to 8 designs", "max_length": "compare 2 to 8 designs"},
    )
    reference = serializers.IntegerField(
        required=False, default=0, min_value=0, help_text="Index of the reference design for relative prices."
    )

    def validate(self, attrs):
        if attrs["reference"] >= len(attrs["designs"]):
            raise serializers.ValidationError({"reference": [f"must be an index into designs (0 to {len(attrs['designs']) - 1})"]})
        return attrs


class CompareRowSerializer(serializers.Serializer):
    index = serializers.IntegerField()
    label = serializers.CharField()
    name = serializers.CharField()
    usable_pib = serializers.FloatField()
    raw_tb = serializers.FloatField()
    read_gbps = serializers.FloatField()
    write_gbps = serializers.FloatField()
    bottleneck = serializers.DictField(child=serializers.CharField())
    price_total = serializers.FloatField()
    currency = serializers.CharField()
    relative_price = serializers.FloatField(allow_null=True)
    price_per_usable_pib = serializers.FloatField(allow_null=True)
    price_per_read_gbps = serializers.FloatField(allow_null=True)
    rack_count = serializers.IntegerField()
    units_used = serializers.IntegerField()
    power_w = serializers.FloatField()
    weight_kg = serializers.FloatField()
    loss_probability = serializers.FloatField(allow_null=True, help_text="Annual probability of data loss (the Evaluation's reliability).")
    rebuild_hours = serializers.FloatField(allow_null=True, help_text="The longest rebuild of one failed disk, hours.")
    warnings = serializers.ListField(child=serializers.CharField())


class CompareResultSerializer(serializers.Serializer):
    reference = serializers.IntegerField()
    rows = CompareRowSerializer(many=True)
    warnings = serializers.ListField(child=serializers.CharField())


class ApiTokenSerializer(JsonTypesMixin, serializers.ModelSerializer):
    """A named API token for scripts: its name, key prefix, when it was created, last used, expires or was revoked (never the key)."""

    active = serializers.BooleanField(read_only=True, help_text="Neither revoked nor expired.")
    expired = serializers.BooleanField(read_only=True, help_text="Its expiry has passed: requests with it get 401.")
    expires_at = serializers.DateTimeField(
        required=False,
        allow_null=True,
        help_text="Optional: from this moment (ISO 8601; a date alone means 00:00 UTC that day) the token is refused. Omit or null: never expires.",
    )

    class Meta:
        model = ApiToken
        fields = ("id", "name", "prefix", "created_at", "last_used_at", "expires_at", "revoked_at", "active", "expired")
        read_only_fields = ("id", "prefix", "created_at", "last_used_at", "revoked_at", "active", "expired")

    def validate_expires_at(self, value):
        if value is not None and value <= timezone.now():
            raise serializers.ValidationError("must be in the future")
        return value


class ApiTokenCreatedSerializer(ApiTokenSerializer):
    """A new API token, with its key: shown this once, keep it."""

    key = serializers.CharField(read_only=True, help_text="The token's key: shown this once, store it safely.")

    class Meta(ApiTokenSerializer.Meta):
        fields = ApiTokenSerializer.Meta.fields + ("key",)


class SharedDesignSerializer(serializers.Serializer):
    design = DesignSerializer()
    evaluation = serializers.DictField()
