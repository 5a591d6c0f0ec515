"""Example designs shipped with the planner (fixtures/examples.yaml): anyone may open and copy them."""

from __future__ import annotations

from functools import lru_cache

import yaml

from hardware_catalog.importers import FIXTURES_DIR
from planner.spec import normalise_spec


@lru_cache(maxsize=1)
def _examples() -> tuple[dict, ...]:
    data = yaml.safe_load((FIXTURES_DIR / "examples.yaml").read_text())
    out = []
    for record in data["records"]:
        spec = normalise_spec({**record["spec"], "name": record["name"]})
        out.append({"slug": record["slug"], "name": record["name"], "description": record["description"], "spec": spec})
    return tuple(out)


def example_designs() -> list[dict]:
    """All example designs: slug, name, description, spec (defaults filled in)."""
    return [dict(e) for e in _examples()]


def example_design(*, slug: str) -> dict | None:
    """One example design by slug, or None."""
    return next((dict(e) for e in _examples() if e["slug"] == slug), None)
