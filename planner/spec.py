"""The DesignSpec (public contract v1): defaults, limits and the error raised for a bad spec.

Structural validation (types, ranges, choices) is done by `api.serializers.DesignSpecSerializer`;
catalogue look-ups by `planner.services.design_resolve`. Both report field-level messages.
"""

from __future__ import annotations

import copy

MAX_BRICK_ENTRIES = 20
MAX_BRICKS_PER_ENTRY = 500
MAX_TOTAL_BRICKS = 2000
MAX_CLIENTS = 100_000
MAX_EXPANSIONS = 16

SPEC_DEFAULTS = {
    "name": "Untitled design",
    "metadata": {"cell": "mds-cell", "placement": "in_rack"},
    "rack": "rack-42u",
    "tuning": "large-io",
    "failover": "paired",
    "clients": None,
    "price_list": "illustrative",
    "calibration": None,
}


class SpecError(Exception):
    """A DesignSpec that cannot be evaluated; `errors` maps fields to lists of messages."""

    def __init__(self, errors: dict):
        super().__init__(str(errors))
        self.errors = errors


def normalise_spec(spec: dict) -> dict:
    """Fill the documented defaults into a structurally valid spec (a copy)."""
    out = copy.deepcopy(SPEC_DEFAULTS)
    for key, value in spec.items():
        if key == "metadata" and isinstance(value, dict):
            out["metadata"] = {**SPEC_DEFAULTS["metadata"], **{k: v for k, v in value.items() if v is not None}}
        elif value is not None:
            out[key] = value
    out["bricks"] = [dict(entry) for entry in spec.get("bricks", [])]
    return out
