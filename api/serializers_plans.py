"""Serializers for capacity plans: the plan spec (input, every field named on bad input), saved plans and
the computed timeline (output)."""

from __future__ import annotations

from drf_spectacular.utils import extend_schema_field
from rest_framework import serializers
from rest_framework.reverse import reverse

from planner.models import Plan
from planner.services import plans as plan_rules

from .fields import FiniteFloatField
from .serializers import DesignSpecSerializer, StrictFieldsMixin
from .serializers_designs import OwnedSharedMixin


def _above_minus_one(value: float) -> None:
    if value <= -1.0:
        raise serializers.ValidationError("must be above -1 (a fall of 100 % or more a year leaves nothing to plan for)")


def _growth(help_text: str, **kwargs) -> FiniteFloatField:
    return FiniteFloatField(max_value=10.0, validators=[_above_minus_one], help_text=help_text, **kwargs)


class PlanDemandYearSerializer(StrictFieldsMixin, serializers.Serializer):
    """Demand in one year: usable PiB."""

    year = serializers.IntegerField(min_value=1900, max_value=2200)
    usable_pib = FiniteFloatField(min_value=0.0, max_value=1_000_000.0, help_text="Usable PiB (2^50 bytes) needed that year.")


class PlanThroughputDemandSerializer(StrictFieldsMixin, serializers.Serializer):
    """Throughput demand: job slots x MB/s per job, or clients x GB/s per client; read and/or write."""

    job_slots = serializers.IntegerField(required=False, min_value=1, max_value=10_000_000)
    read_mbps_per_job = FiniteFloatField(required=False, min_value=0.0, max_value=1_000_000.0, help_text="MB/s (10^6 B/s) per job slot.")
    write_mbps_per_job = FiniteFloatField(required=False, min_value=0.0, max_value=1_000_000.0)
    clients = serializers.IntegerField(required=False, min_value=1, max_value=1_000_000)
    read_gbps_per_client = FiniteFloatField(required=False, min_value=0.0, max_value=10_000.0, help_text="GB/s (10^9 B/s) per client.")
    write_gbps_per_client = FiniteFloatField(required=False, min_value=0.0, max_value=10_000.0)
    growth_per_year = _growth(
        "Yearly growth of the throughput demand, a fraction (0.25 = +25 %/yr); default 0.", required=False, default=0.0
    )

    def validate(self, attrs):
        jobs, clients = "job_slots" in attrs, "clients" in attrs
        if jobs == clients:
            raise serializers.ValidationError(
                "give either 'job_slots' (with read/write_mbps_per_job) or 'clients' (with read/write_gbps_per_client)"
            )
        rates = ("read_mbps_per_job", "write_mbps_per_job") if jobs else ("read_gbps_per_client", "write_gbps_per_client")
        wrong = [k for k in attrs if k.endswith(("_per_job", "_per_client")) and k not in rates]
        if wrong:
            raise serializers.ValidationError({k: ["does not go with " + ("job_slots" if jobs else "clients")] for k in wrong})
        if not any(k in attrs for k in rates):
            raise serializers.ValidationError({rates[0]: [f"give {rates[0]} and/or {rates[1]}"]})
        return attrs


class PlanDemandSerializer(StrictFieldsMixin, serializers.Serializer):
    """Capacity demand: usable PiB today and a yearly growth, or a table of years; and optional throughput."""

    usable_pib = FiniteFloatField(required=False, min_value=0.0, max_value=1_000_000.0, help_text="Usable PiB needed in the start year.")
    growth_per_year = _growth("Yearly growth, a fraction (1.0 = doubles every year; -0.5 halves); above -1.", required=False, default=0.0)
    years = PlanDemandYearSerializer(
        many=True,
        required=False,
        max_length=plan_rules.MAX_DEMAND_YEARS,
        error_messages={"max_length": f"at most {plan_rules.MAX_DEMAND_YEARS} years"},
        help_text="Instead of usable_pib and growth: usable PiB per year (interpolated between years, flat beyond).",
    )
    throughput = PlanThroughputDemandSerializer(required=False)

    def validate(self, attrs):
        if ("usable_pib" in attrs) == bool(attrs.get("years")):
            raise serializers.ValidationError("give either 'usable_pib' (with growth_per_year) or 'years' (a table)")
        years = [r["year"] for r in attrs.get("years") or []]
        if len(set(years)) != len(years):
            raise serializers.ValidationError({"years": ["each year at most once"]})
        return attrs


class PlanPhaseAddSerializer(StrictFieldsMixin, serializers.Serializer):
    """A design added in a phase: a saved design's id or an inline spec, with a label."""

    design = serializers.IntegerField(
        required=False, min_value=1, max_value=2**31 - 1, help_text="A saved design's id (yours or shared with you)."
    )
    spec = DesignSpecSerializer(required=False, help_text="An inline DesignSpec.")
    label = serializers.CharField(required=False, max_length=100, help_text="A name to retire it by; default the design's name.")

    def validate(self, attrs):
        if ("design" in attrs) == ("spec" in attrs):
            raise serializers.ValidationError("give either 'design' (a saved design id) or 'spec' (an inline DesignSpec)")
        return attrs


@extend_schema_field({"oneOf": [{"type": "string", "maxLength": 100}, {"type": "integer", "minimum": 1}]})
class PlanRetireField(serializers.Field):
    """A label (text) or a saved design id (integer)."""

    def to_internal_value(self, data):
        if isinstance(data, bool) or not isinstance(data, (int, str)) or (isinstance(data, str) and not 0 < len(data) <= 100):
            raise serializers.ValidationError("give a label (1 to 100 characters) or a saved design id")
        return data

    def to_representation(self, value):
        return value


class PlanPhaseSerializer(StrictFieldsMixin, serializers.Serializer):
    """A purchase phase: the year and the designs added then."""

    year = serializers.IntegerField(min_value=1900, max_value=2200, help_text="The year the designs are added (and those retired leave).")
    add = PlanPhaseAddSerializer(
        many=True,
        required=False,
        default=list,
        max_length=plan_rules.MAX_ADDS_PER_PHASE,
        error_messages={"max_length": f"at most {plan_rules.MAX_ADDS_PER_PHASE} designs per phase"},
    )
    retire = serializers.ListField(
        child=PlanRetireField(), required=False, default=list, max_length=50, help_text="Labels or saved design ids."
    )
    end_of_support_years = serializers.IntegerField(
        required=False,
        allow_null=True,
        min_value=1,
        max_value=30,
        help_text="Years the phase's designs stay in service; default: settings.",
    )


class PlanSettingsSerializer(StrictFieldsMixin, serializers.Serializer):
    """Settings; each has a default and a source (see `settings_sources` in the timeline)."""

    horizon_years = serializers.IntegerField(required=False, min_value=1, max_value=plan_rules.MAX_HORIZON_YEARS)
    price_trend_per_tb = FiniteFloatField(
        required=False, min_value=-0.9, max_value=1.0, help_text="Yearly change of disk prices; default -0.10."
    )
    price_trend_per_server = FiniteFloatField(
        required=False, min_value=-0.9, max_value=1.0, help_text="Yearly change of other prices; default -0.03."
    )
    support_per_server_year = FiniteFloatField(required=False, allow_null=True, min_value=0.0, max_value=10_000_000.0)
    energy_price_per_kwh = FiniteFloatField(required=False, allow_null=True, min_value=0.0, max_value=100.0)
    pue = FiniteFloatField(required=False, allow_null=True, min_value=1.0, max_value=5.0)
    rack_cost_per_u_year = FiniteFloatField(required=False, min_value=0.0, max_value=1_000_000.0)
    end_of_support_years = serializers.IntegerField(required=False, allow_null=True, min_value=1, max_value=30)
    propose = serializers.BooleanField(
        required=False, help_text="Ask the solver for the cheapest purchase where supply falls short; default true."
    )
    proposal_covers_years = serializers.IntegerField(
        required=False,
        min_value=1,
        max_value=10,
        help_text="A proposal covers the largest shortfall of its year and the next, this many years in all; default 2.",
    )


class PlanSpecSerializer(StrictFieldsMixin, serializers.Serializer):
    """The plan spec: start year, demand, purchase phases and settings."""

    start_year = serializers.IntegerField(help_text="The first year of the timeline: this year or later (last year allowed as 'today').")
    demand = PlanDemandSerializer()
    phases = PlanPhaseSerializer(
        many=True,
        required=False,
        default=list,
        max_length=plan_rules.MAX_PHASES,
        error_messages={"max_length": f"at most {plan_rules.MAX_PHASES} phases in one plan"},
    )
    settings = PlanSettingsSerializer(required=False, default=dict)

    def validate_start_year(self, value):
        earliest = plan_rules.this_year() - 1
        if value < earliest:
            raise serializers.ValidationError(f"must be {earliest} or later (a plan starts today, not in the past)")
        if value > earliest + 50:
            raise serializers.ValidationError(f"must be {earliest + 50} or earlier")
        return value

    def validate(self, attrs):
        horizon = attrs["settings"].get("horizon_years", plan_rules.SETTINGS_DEFAULTS["horizon_years"])
        start, last = attrs["start_year"], attrs["start_year"] + horizon - 1
        errors = {}
        for i, phase in enumerate(attrs["phases"]):
            if not start <= phase["year"] <= last:
                errors[str(i)] = {"year": [f"must be within the plan's years, {start} to {last}"]}
        for i, row in enumerate(attrs["demand"].get("years") or []):
            if row["year"] < start:
                errors.setdefault("demand", {}).setdefault("years", {})[str(i)] = {"year": [f"must be {start} or later (the start year)"]}
        if errors:
            demand = errors.pop("demand", None)
            raise serializers.ValidationError({**({"phases": errors} if errors else {}), **({"demand": demand} if demand else {})})
        return attrs


class PlanSerializer(OwnedSharedMixin, serializers.ModelSerializer):
    """A saved plan as its owner or a reader sees it."""

    owner = serializers.CharField(source="owner.username", read_only=True)
    is_owner = serializers.SerializerMethodField()
    shared_with = serializers.SerializerMethodField(help_text="Usernames it is shared with (owner only).")
    share_url = serializers.SerializerMethodField(help_text="The secret read-only API link, when sharing by link is on (owner only).")
    timeline_url = serializers.SerializerMethodField()
    sheet_url = serializers.SerializerMethodField()

    class Meta:
        model = Plan
        fields = (
            "id",
            "name",
            "body",
            "version",
            "owner",
            "is_owner",
            "shared_with",
            "share_url",
            "created_at",
            "updated_at",
            "timeline_url",
            "sheet_url",
        )
        read_only_fields = fields

    share_route = "plan-shared"

    def get_timeline_url(self, obj) -> str:
        return reverse("plan-timeline", kwargs={"pk": obj.pk}, request=self.context.get("request"))

    def get_sheet_url(self, obj) -> str:
        return reverse("plan-sheet", kwargs={"pk": obj.pk}, request=self.context.get("request"))


class PlanCreateSerializer(StrictFieldsMixin, serializers.Serializer):
    """A new capacity plan: a name and its body (start year, demand, phases, settings)."""

    name = serializers.CharField(max_length=200)
    body = PlanSpecSerializer()


class PlanUpdateSerializer(StrictFieldsMixin, serializers.Serializer):
    """A change to a plan: the version it is based on, and a new name and/or body."""

    version = serializers.IntegerField(min_value=1, help_text="The version your change is based on; a stale version gets 409.")
    name = serializers.CharField(max_length=200, required=False)
    body = PlanSpecSerializer(required=False)


class PlanYearSerializer(serializers.Serializer):
    year = serializers.IntegerField()
    demand = serializers.DictField(child=serializers.FloatField(), help_text="usable_pib, read_gbps, write_gbps needed.")
    supply = serializers.DictField(child=serializers.FloatField(), help_text="The same, summed over the designs in service.")
    shortfall = serializers.DictField(
        child=serializers.FloatField(), help_text="capacity (PiB), read and write (GB/s) missing; 0 when met."
    )
    short = serializers.DictField(child=serializers.BooleanField())
    in_service = serializers.ListField(child=serializers.CharField())
    added = serializers.ListField(child=serializers.CharField())
    retired = serializers.ListField(child=serializers.CharField())
    costs = serializers.DictField(child=serializers.FloatField(), help_text="capex, support, energy, space, total that year.")
    ost_balance = serializers.DictField(
        allow_null=True,
        help_text="Mixed generations: OSTs of the designs in service differing by more than 17 % (smallest and largest TiB, spread, "
        "the designs with the largest OSTs and their read/write GB/s once the smaller OSTs are full); null when even.",
    )


class PlanTimelineSerializer(serializers.Serializer):
    start_year = serializers.IntegerField()
    years = serializers.ListField(child=serializers.IntegerField())
    currency = serializers.CharField(allow_null=True)
    settings = serializers.DictField()
    settings_sources = serializers.DictField(child=serializers.CharField())
    rows = PlanYearSerializer(many=True)
    run_out = serializers.DictField(
        child=serializers.IntegerField(allow_null=True),
        help_text="First year capacity, read and write fall short; null: not within the horizon.",
    )
    totals = serializers.DictField(help_text="capex, support, energy, space, total, usable_pib_years, per_usable_pib_year.")
    designs = serializers.ListField(child=serializers.DictField(), help_text="Each design added: label, years in service, figures, costs.")
    proposals = serializers.ListField(
        child=serializers.DictField(), help_text="The solver's cheapest purchase where supply falls short (not applied)."
    )
    warnings = serializers.ListField(child=serializers.CharField())
    assumptions = serializers.ListField(child=serializers.CharField())


class PlanShareSerializer(StrictFieldsMixin, serializers.Serializer):
    """Who may read a plan: `users` replaces the list of usernames (send the full list); `link` switches the secret link on or off. A field left out is unchanged."""

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


class SharedPlanSerializer(serializers.Serializer):
    plan = PlanSerializer()
    timeline = PlanTimelineSerializer()
