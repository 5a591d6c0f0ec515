"""The DesignSpec (public contract v1): defaults, limits, choices and the error raised for a bad
spec, written once. The API serializers, the solve request and the pages read them from here.

Structural validation (types, ranges, choices) is done by `api.serializers.DesignSpecSerializer`;
catalogue look-ups and what the parts allow by `planner.services.design_resolve`. Both report
field-level messages.
"""

from __future__ import annotations

MAX_BRICK_ENTRIES = 20
MAX_BRICKS_PER_ENTRY = 500
MAX_TOTAL_BRICKS = 2000
MAX_CLIENTS = 100_000
MAX_EXPANSIONS = 16
MAX_ADAPTERS_PER_SERVER = 8
MAX_STORAGE_PORTS = 16
MAX_RAID_DISKS = 120
MAX_RAID_GROUPS = 60
MAX_MDT_DISKS = 480
MAX_MDTS = 64
MAX_RPC_ROUND_TRIP_MS = 10_000.0
MAX_OVERSUBSCRIPTION = 64.0
MAX_CORE_GBPS = 1_000_000.0

RAID_LEVELS = ("raid5", "raid6", "raid10", "raidz1", "raidz2", "raidz3")
FAILOVER_CHOICES = ("paired", "none")
PLACEMENT_CHOICES = ("in_rack", "separate_rack", "none")

SPEC_DEFAULTS = {
    "name": "Untitled design",
    "metadata": {"cell": "mds-cell", "placement": "in_rack"},
    "rack": "rack-42u",
    "tuning": "large-io",
    "failover": None,
    "clients": None,
    "fabric": None,
    "price_list": "illustrative",
    "calibration": None,
}
"""`failover` left out (None) means `paired` where every brick's storage can be reached by a
partner, `none` when a brick keeps its disks inside its server."""


def raid_parity(level: str, data: int) -> int:
    """Parity disks per group a RAID level has: RAID 10 mirrors every data disk."""
    from planner.engine.inputs import RAID_PARITY

    return data if level == "raid10" else RAID_PARITY[level]


def raid_parity_problem(level: str, data: int, parity: int) -> str | None:
    """Why `parity` cannot go with `level` and `data`, in words; None when it can."""
    expected = raid_parity(level, data)
    if parity == expected:
        return None
    if level == "raid10":
        return f"RAID 10 mirrors every data disk: parity must equal data ({data}), not {parity}"
    return f"{level} has {expected} parity disk{'s' if expected > 1 else ''} per group, not {parity}"


class SpecError(Exception):
    """A DesignSpec that cannot be evaluated; `errors` maps fields to lists of messages."""

    def __init__(self, errors: dict):
        super().__init__(str(errors))
        self.errors = errors

    def nested(self, key: str) -> "SpecError":
        """The same errors under one field, e.g. a saved design's `spec`."""
        return SpecError({key: self.errors})


def normalise_spec(spec: dict) -> dict:
    """Fill the documented defaults into a structurally valid spec (a copy)."""
    out = {key: dict(value) if isinstance(value, dict) else value for key, value in SPEC_DEFAULTS.items()}  # defaults are one level deep
    for key, value in spec.items():
        if key == "metadata" and isinstance(value, dict):
            out["metadata"] = {**SPEC_DEFAULTS["metadata"], **{k: v for k, v in value.items() if v is not None}}
        elif value is not None:
            out[key] = value
    out["bricks"] = [dict(entry) for entry in spec.get("bricks", [])]
    return out
