"""List filters that refuse what they do not understand instead of ignoring it."""

from __future__ import annotations

from rest_framework import filters
from rest_framework.exceptions import ValidationError


class StrictOrderingFilter(filters.OrderingFilter):
    """`?ordering=`: one or more of the view's ordering fields, each optionally with a leading '-'. An unknown
    field is a 400 naming the choices (DRF's filter drops it silently, and the list comes back in another order
    than the one asked for)."""

    def get_ordering(self, request, queryset, view):
        params = request.query_params.get(self.ordering_param)
        if params:
            allowed = [name for name, _ in self.get_valid_fields(queryset, view, {"request": request})]
            terms = [term.strip() for term in params.split(",")]
            bad = [term for term in terms if term.lstrip("-") not in allowed]
            if bad:
                choices = ", ".join(allowed)
                raise ValidationError(
                    {
                        self.ordering_param: [
                            f"unknown ordering field '{term[:40]}': choose from {choices}, '-' first for descending" for term in bad
                        ]
                    }
                )
        return super().get_ordering(request, queryset, view)

    def get_schema_operation_parameters(self, view):
        params = super().get_schema_operation_parameters(view)
        fields = getattr(view, "ordering_fields", None) or []
        for param in params:
            if param["name"] == self.ordering_param and fields:
                param["description"] = f"Order by {', '.join(fields)} (comma-separated; '-' first for descending)."
                one = "-?(" + "|".join(fields) + ")"
                param.setdefault("schema", {"type": "string"})["pattern"] = f"^({one}(,{one})*)?$"  # empty: the default order
        return params
