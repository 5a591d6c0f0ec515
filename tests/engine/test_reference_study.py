"""The default catalogue and model reproduce the published MD3460 brick study (tests/data/reference_study.yaml)."""

import pytest

from planner.services import design_evaluate
from tests.helpers import rack_spec

pytestmark = pytest.mark.django_db


def _rows(study):
    return {row["id"]: row for row in study["racks"]}


@pytest.mark.parametrize("rack_id", list("ABCDEF"))
def test_reference_racks_capacity_throughput_and_fit(study, rack_id):
    row = _rows(study)[rack_id]
    tol = study["tolerance"]
    ev = design_evaluate(spec=rack_spec(row))
    assert ev.usable_pib == pytest.approx(row["usable_pib"], rel=tol["usable_pib_relative"])
    assert ev.read_gbps == pytest.approx(row["gbps"], rel=tol["gbps_relative"])
    assert ev.write_gbps == pytest.approx(row["gbps"], rel=tol["gbps_relative"])
    assert ev.rack_count == 1
    assert ev.racks[0]["units_used"] <= 42
    assert not [w for w in ev.warnings if "over-full" in w or "power budget" in w or "load rating" in w]


@pytest.mark.parametrize("capacity_id", ["A", "C", "E"])
def test_reference_capacity_racks_relative_price(study, capacity_id):
    rows = _rows(study)
    row = rows[capacity_id]
    pair = rows[row["pair"]]
    tol = study["tolerance"]["relative_price_absolute_6tb" if row["disk"] == "nl-sas-6tb" else "relative_price_absolute"]
    capacity_total = design_evaluate(spec=rack_spec(row)).price["total"]
    performance_total = design_evaluate(spec=rack_spec(pair)).price["total"]
    assert capacity_total / performance_total == pytest.approx(row["relative_price"], abs=tol)


def test_reference_single_brick_tuned_and_default(study):
    one = {"bricks": [{"template": "md3460-performance", "count": 1}], "metadata": {"placement": "none"}, "failover": "none"}
    tuned = design_evaluate(spec={**one, "tuning": "large-io"})
    stock = design_evaluate(spec={**one, "tuning": "default"})
    expected = study["single_brick"]["performance_brick_tuned_gbps"]
    tol = study["tolerance"]["gbps_relative"]
    assert tuned.read_gbps == pytest.approx(expected["read"], rel=tol)
    assert tuned.write_gbps == pytest.approx(expected["write"], rel=tol)
    low, high = study["single_brick"]["default_settings_fraction_of_tuned"]
    assert low <= stock.read_gbps / tuned.read_gbps <= high
    assert low <= stock.write_gbps / tuned.write_gbps <= high
    assert tuned.bottleneck.items() >= {"read": "raid_controller", "write": "raid_controller"}.items()


def test_reference_capacity_brick_is_no_faster_than_performance_brick(study):
    base = {"metadata": {"placement": "none"}, "failover": "none"}
    perf = design_evaluate(spec={**base, "bricks": [{"template": "md3460-performance", "count": 1}]})
    cap = design_evaluate(spec={**base, "bricks": [{"template": "md3460-capacity", "count": 1}]})
    assert cap.read_gbps <= perf.read_gbps and cap.write_gbps <= perf.write_gbps
    assert cap.read_gbps == pytest.approx(study["single_brick"]["capacity_brick_tuned_gbps"]["read"], rel=0.05)
    assert cap.counts["osts"] == 18 and perf.counts["osts"] == 6


def test_reference_ost_is_about_29_tib(study):
    ev = design_evaluate(spec={"bricks": [{"template": "md3460-performance", "count": 1}], "metadata": {"placement": "none"}})
    assert ev.usable_tib / ev.counts["osts"] == pytest.approx(study["single_brick"]["ost_usable_tib_4tb"], abs=0.5)


@pytest.mark.parametrize("placement", ["in_rack", "none"])
@pytest.mark.parametrize("template", ["md3460-performance", "md3460-capacity"])
def test_reference_rack_fit_limits(study, placement, template):
    most = study["rack_fit"][placement][template]
    spec = {"metadata": {"placement": placement}, "failover": "paired"}
    fits = design_evaluate(spec={**spec, "bricks": [{"template": template, "count": most}]})
    spills = design_evaluate(spec={**spec, "bricks": [{"template": template, "count": most + 1}]})
    assert fits.rack_count == 1
    assert spills.rack_count == 2
