"""Rack models, tuning profiles, price lists and metadata cells are resolved once per catalogue snapshot."""

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext

from planner.services import catalogue
from planner.services.evaluation import SpecError, design_resolve

pytestmark = pytest.mark.django_db

SPEC = {"bricks": [{"template": "md3460-performance", "count": 8}], "metadata": {"cell": "mds-cell", "placement": "in_rack"}}


def test_second_design_shares_the_first_ones_resolved_parts():
    first = design_resolve(spec=SPEC)
    with CaptureQueriesContext(connection) as queries:
        second = design_resolve(spec={**SPEC, "bricks": [{"template": "md3460-capacity", "count": 3}]})
    assert queries.captured_queries == []
    assert second.rack is first.rack and second.tuning is first.tuning
    assert second.prices is first.prices and second.metadata is first.metadata
    assert second.bricks[0].template == "md3460-capacity"
    # the catalogue parts both templates use are converted once: the same engine objects
    assert second.bricks[0].head is first.bricks[0].head and second.bricks[0].server is first.bricks[0].server
    assert second.bricks[0].network is first.bricks[0].network


def test_a_refusal_is_reported_every_time_and_not_kept():
    for _ in range(2):
        with pytest.raises(SpecError) as caught:
            design_resolve(spec={**SPEC, "rack": "no-such-rack", "tuning": "no-such-tuning"})
        assert "no-such-rack" in str(caught.value.errors["rack"])
        assert "no-such-tuning" in str(caught.value.errors["tuning"])
    assert not any(key[1].startswith("no-such") for key in catalogue.shared_snapshot().resolved)


def test_overrides_and_frozen_price_lists_are_not_taken_from_the_memo():
    plain = design_resolve(spec=SPEC)
    composed = design_resolve(spec={**SPEC, "metadata": {**SPEC["metadata"], "mdt": {"mdts": 2}}})
    assert composed.metadata is not plain.metadata and composed.metadata.mdt.mdts == 2
    frozen = dict(catalogue.shared_snapshot().price_lists["illustrative"], pue=2.0)
    priced = design_resolve(spec=SPEC, prices=frozen)
    assert priced.prices.pue == 2.0 and plain.prices.pue != 2.0
    assert design_resolve(spec=SPEC).prices is plain.prices


def test_a_catalogue_change_starts_a_new_memo():
    from hardware_catalog.models import Rack

    before = design_resolve(spec=SPEC)
    rack = Rack.objects.get(slug=before.rack.slug)
    rack.power_budget_w += 1000
    rack.save()
    after = design_resolve(spec=SPEC)
    assert after.rack is not before.rack
    assert after.rack.power_budget_w == before.rack.power_budget_w + 1000


def test_a_changed_disk_reaches_the_next_design():
    from hardware_catalog.models import Disk

    before = design_resolve(spec=SPEC)
    disk = Disk.objects.get(slug=before.bricks[0].disk.slug)
    disk.read_mbps += 10
    disk.save()
    after = design_resolve(spec=SPEC)
    assert after.bricks[0].disk.read_mbps == before.bricks[0].disk.read_mbps + 10
