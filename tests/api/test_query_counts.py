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
    api.post("/api/v1/evaluate/", one, format="json")  # the in-memory catalogue is loaded once
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
    api.post("/api/v1/solve/", small, format="json")  # the in-memory catalogue is loaded once
    assert _queries(lambda: api.post("/api/v1/solve/", small, format="json")) == _queries(
        lambda: api.post("/api/v1/solve/", large, format="json")
    )


EVALUATE = {"bricks": [{"template": "md3460-performance", "count": 8, "disk": "nl-sas-4tb"}], "metadata": {"placement": "none"}}
SOLVE = {"targets": {"usable_pib": 1.0, "read_gbps": 9}, "max_bricks": 20}


def test_a_warm_catalogue_costs_no_query_for_evaluate_or_solve(api):
    """Anonymous evaluate and solve resolve from the process's in-memory catalogue: once it is loaded,
    they run no SQL at all (the issue's goal: validation + engine + JSON)."""
    from planner.services import catalogue

    assert api.post("/api/v1/evaluate/", EVALUATE, format="json").status_code == 200  # loads the snapshot
    loads = catalogue.stats["loads"]
    assert _queries(lambda: api.post("/api/v1/evaluate/", EVALUATE, format="json")) == 0
    assert _queries(lambda: api.post("/api/v1/solve/", SOLVE, format="json")) == 0
    assert catalogue.stats["loads"] == loads


def test_a_catalogue_change_reaches_the_next_request(api, admin_user):
    """Changing a disk through the ORM (as the admin and the API do) invalidates the snapshot: the next
    evaluation uses the new figure, and only one reload happens."""
    from hardware_catalog.models import Disk
    from planner.services import catalogue

    before = api.post("/api/v1/evaluate/", EVALUATE, format="json").json()
    disk = Disk.objects.get(slug="nl-sas-4tb")
    disk.capacity_tb = 2 * disk.capacity_tb
    disk.save()
    loads = catalogue.stats["loads"]
    after = api.post("/api/v1/evaluate/", EVALUATE, format="json").json()
    assert after["raw_tb"] == pytest.approx(2 * before["raw_tb"], rel=1e-9)
    assert catalogue.stats["loads"] == loads + 1
    api.post("/api/v1/evaluate/", EVALUATE, format="json")
    assert catalogue.stats["loads"] == loads + 1


def test_the_version_lives_in_the_shared_cache(api):
    """Another process's change arrives through the cache: a new version key makes this process reload,
    although no signal fired here."""
    from django.core.cache import cache

    from planner.services import catalogue

    api.post("/api/v1/evaluate/", EVALUATE, format="json")
    loads = catalogue.stats["loads"]
    cache.set(catalogue.VERSION_KEY, "changed-by-another-process", timeout=None)
    api.post("/api/v1/evaluate/", EVALUATE, format="json")
    assert catalogue.stats["loads"] == loads + 1


def test_signed_in_users_see_their_own_templates_not_others(api, django_user_model):
    """The shared snapshot holds no user's templates; each signed-in request adds the user's own."""
    from hardware_catalog.models import BrickTemplate
    from planner.services.catalogue import catalogue_snapshot

    base = BrickTemplate.objects.get(slug="md3460-performance")
    alice = django_user_model.objects.create_user("alice-snap", password="pw-alice-123456")
    bob = django_user_model.objects.create_user("bob-snap", password="pw-bob-123456")
    base.pk, base.slug, base.owner = None, "alice-own", alice
    base.save()
    assert "alice-own" in catalogue_snapshot(user=alice).templates
    assert "alice-own" not in catalogue_snapshot(user=bob).templates
    assert "alice-own" not in catalogue_snapshot().templates
