"""Catalogue resolution loads each kind of part once per request, however many lines or options."""

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext

pytestmark = pytest.mark.django_db


def _queries(fn) -> int:
    with CaptureQueriesContext(connection) as ctx:
        fn()
    return len(ctx.captured_queries)


def test_evaluate_costs_the_same_queries_for_one_line_or_ten(api):
    one = {"bricks": [{"template": "md3460-performance", "count": 2}]}
    ten = {
        "bricks": [
            {"template": t, "count": 2, "disk": d}
            for t in ("md3460-performance", "md3460-capacity", "jbod-zfs", "iscsi-ps6500", "md3460-performance")
            for d in ("nl-sas-4tb", "nl-sas-8tb")
        ],
        "failover": "none",
    }
    first = _queries(lambda: api.post("/api/v1/evaluate/", one, format="json"))
    second = _queries(lambda: api.post("/api/v1/evaluate/", ten, format="json"))
    assert api.post("/api/v1/evaluate/", ten, format="json").status_code == 200
    assert second == first
    assert first <= 14


def test_solve_costs_the_same_queries_for_few_or_many_options(api):
    small = {"targets": {"usable_pib": 1.0}, "templates": ["md3460-capacity"], "max_bricks": 20, "mixes": False}
    large = {
        "targets": {"usable_pib": 1.0},
        "templates": ["md3460-capacity", "md3460-performance", "jbod-zfs"],
        "disks": ["nl-sas-4tb", "nl-sas-6tb", "nl-sas-8tb", "nl-sas-10tb"],
        "max_bricks": 20,
        "mixes": False,
    }
    assert _queries(lambda: api.post("/api/v1/solve/", small, format="json")) == _queries(
        lambda: api.post("/api/v1/solve/", large, format="json")
    )
