"""Plan timelines with figures computed by hand: capacity run-out years, end of support, costs per year."""

import pytest

from planner.services import plans

pytestmark = pytest.mark.django_db

PIB = 2**50
# md3460-performance: 60 x 4 TB in six RAID6 8+2 groups = 192 TB of data per brick, less the ldiskfs overhead of
# 0.032 % (fixtures/bricks.yaml, from the Lustre Operations Manual's OST defaults): 0.17048 PiB
BRICK_PIB = 6 * 8 * 4e12 * (1 - 0.00032) / PIB
SPEC_2 = {"bricks": [{"template": "md3460-performance", "count": 2}], "metadata": {"placement": "none"}}
SPEC_4 = {"bricks": [{"template": "md3460-performance", "count": 4}], "metadata": {"placement": "none"}}


@pytest.fixture
def ann(django_user_model):
    return django_user_model.objects.create_user("ann")


def _body(**settings):
    return {
        "start_year": 2026,
        "demand": {
            "usable_pib": 0.3,
            "growth_per_year": 0.25,
            "throughput": {"job_slots": 100, "read_mbps_per_job": 50, "write_mbps_per_job": 20},
        },
        "phases": [
            {"year": 2026, "add": [{"spec": SPEC_2, "label": "A"}]},
            {"year": 2027, "add": [{"spec": SPEC_4, "label": "B"}]},
        ],
        "settings": {"horizon_years": 8, "propose": False, **settings},
    }


def test_plan_two_phases_capacity_runs_out_in_the_year_computed_by_hand(ann):
    # By hand: supply 2 x 0.17048 = 0.3410 PiB in 2026, 6 x 0.17048 = 1.0229 PiB from 2027 (nothing retires in 10 years).
    # Demand 0.3 x 1.25^n: 0.300, 0.375, 0.469, 0.586, 0.732, 0.916 (2031), 1.144 (2032) > 1.0229: runs out in 2032.
    out = plans.plan_timeline(body=_body(end_of_support_years=10), owner=ann)
    rows = {r["year"]: r for r in out["rows"]}
    assert rows[2026]["supply"]["usable_pib"] == pytest.approx(2 * BRICK_PIB, abs=1e-4)
    assert rows[2027]["supply"]["usable_pib"] == pytest.approx(6 * BRICK_PIB, abs=1e-4)
    assert rows[2031]["demand"]["usable_pib"] == pytest.approx(0.3 * 1.25**5, abs=1e-4)
    assert not rows[2031]["short"]["capacity"] and rows[2032]["short"]["capacity"]
    assert out["run_out"]["capacity"] == 2032
    assert rows[2032]["shortfall"]["capacity"] == pytest.approx(0.3 * 1.25**6 - 6 * BRICK_PIB, abs=1e-4)
    # throughput: 100 jobs x 50 MB/s = 5 GB/s read, 2 GB/s write; two bricks give 9 GB/s: never short
    assert rows[2026]["demand"]["read_gbps"] == pytest.approx(5.0) and rows[2026]["demand"]["write_gbps"] == pytest.approx(2.0)
    assert out["run_out"]["read"] is None and out["run_out"]["write"] is None


def test_plan_end_of_support_retires_the_first_phase_and_capacity_runs_out_earlier(ann):
    # The price list's five years of service: A (2026) leaves in 2031, supply falls to 4 bricks = 0.6819 PiB < 0.916.
    out = plans.plan_timeline(body=_body(), owner=ann)
    rows = {r["year"]: r for r in out["rows"]}
    assert rows[2031]["retired"] == ["A"] and rows[2031]["in_service"] == ["B"]
    assert rows[2031]["supply"]["usable_pib"] == pytest.approx(4 * BRICK_PIB, abs=1e-4)
    assert out["run_out"]["capacity"] == 2031


def test_plan_retire_by_label_in_a_later_phase(ann):
    body = _body(end_of_support_years=10)
    body["phases"].append({"year": 2029, "retire": ["A"]})
    out = plans.plan_timeline(body=body, owner=ann)
    rows = {r["year"]: r for r in out["rows"]}
    assert rows[2028]["in_service"] == ["A", "B"] and rows[2029]["in_service"] == ["B"]
    # B alone from 2029: 0.6819 PiB; demand 0.586 in 2029, 0.732 in 2030: capacity runs out in 2030
    assert out["run_out"]["capacity"] == 2030


def test_plan_costs_per_year_by_hand(ann):
    out = plans.plan_timeline(body=_body(end_of_support_years=10), owner=ann)
    a, b = out["designs"]
    ev_b = plans.design_evaluate(spec=SPEC_4)
    disks_b = sum(line["total"] for line in ev_b.price["lines"] if line["kind"] == "disk")
    # capex of B in 2027: disk lines 10 % cheaper, the rest 3 % cheaper than the start year's prices
    assert b["capex"] == pytest.approx(disks_b * 0.9 + (ev_b.price["hardware"] - disks_b) * 0.97, abs=0.01)
    # support: the illustrative list's support line is 10,000 per server-year (100,000 for 2 servers over 5 years)
    assert a["support_per_year"] == pytest.approx(2 * 10_000) and b["support_per_year"] == pytest.approx(4 * 10_000)
    # energy: W / 1000 x 8766 h x PUE 1.5 x 0.12 per kWh; space: U x 300 per U-year
    assert a["energy_per_year"] == pytest.approx(a["power_w"] / 1000 * 8766 * 1.5 * 0.12, rel=1e-4)
    assert a["space_per_year"] == pytest.approx(a["units_used"] * 300)
    rows = {r["year"]: r for r in out["rows"]}
    assert rows[2026]["costs"]["capex"] == pytest.approx(a["capex"], abs=0.01)
    assert rows[2027]["costs"]["capex"] == pytest.approx(b["capex"], abs=0.01)
    running = sum(d[k] for d in (a, b) for k in ("support_per_year", "energy_per_year", "space_per_year"))
    assert rows[2028]["costs"]["capex"] == 0 and rows[2028]["costs"]["total"] == pytest.approx(running, abs=0.05)
    assert out["totals"]["total"] == pytest.approx(sum(r["costs"]["total"] for r in out["rows"]), abs=0.1)
    pib_years = 2 * BRICK_PIB + 7 * 6 * BRICK_PIB
    assert out["totals"]["per_usable_pib_year"] == pytest.approx(out["totals"]["total"] / pib_years, rel=1e-4)


def test_plan_demand_table_is_interpolated_and_flat_beyond(ann):
    body = _body()
    body["demand"] = {"years": [{"year": 2026, "usable_pib": 0.2}, {"year": 2030, "usable_pib": 1.0}]}
    rows = plans.plan_timeline(body=body, owner=ann)["rows"]
    assert [r["demand"]["usable_pib"] for r in rows] == pytest.approx([0.2, 0.4, 0.6, 0.8, 1.0, 1.0, 1.0, 1.0])


def test_plan_proposal_covers_the_shortfall(ann):
    body = _body(end_of_support_years=10, propose=True, horizon_years=6)
    out = plans.plan_timeline(body=body, owner=ann)
    assert out["run_out"]["capacity"] is None and out["proposals"] == []  # 2032 is past a six-year horizon (2026-2031)
    body["demand"]["growth_per_year"] = 0.6  # 0.3 x 1.6^3 = 1.229 > 1.0232: short from 2029
    out = plans.plan_timeline(body=body, owner=ann)
    assert out["run_out"]["capacity"] == 2029
    first = out["proposals"][0]
    assert first["year"] == 2029 and first["feasible"]
    assert first["shortfall"]["capacity"] == pytest.approx(0.3 * 1.6**3 - 6 * BRICK_PIB, abs=1e-4)
    # it covers the larger shortfall of 2029 and 2030 (two years by default): 0.3 x 1.6^4 - 1.0229
    assert first["covers"]["capacity"] == pytest.approx(0.3 * 1.6**4 - 6 * BRICK_PIB, abs=1e-4)
    assert first["usable_pib"] >= first["covers"]["capacity"]
    assert first["covers_through"] == 2030  # the years it is sized for, shown beside the shortfall it answers
    assert [p["year"] for p in out["proposals"]] == sorted({p["year"] for p in out["proposals"]})  # one per year, in order


def test_plan_mixed_generations_add_up_and_warn_about_uneven_osts(ann):
    # 2026: two bricks of 4 TB disks; 2027: two more with 8 TB disks. Capacity and throughput add up; OSTs of
    # 8 x 4 TB and 8 x 8 TB (less 0.032 %) are 29.09 and 58.18 TiB, 100 % apart (> 17 %): once the 4 TB OSTs
    # are full only the 8 TB bricks take new data, at their own throughput.
    new = {"bricks": [{"template": "md3460-performance", "count": 2, "disk": "nl-sas-8tb"}], "metadata": {"placement": "none"}}
    body = _body(end_of_support_years=10)
    body["phases"] = [{"year": 2026, "add": [{"spec": SPEC_2, "label": "old"}]}, {"year": 2027, "add": [{"spec": new, "label": "new"}]}]
    out = plans.plan_timeline(body=body, owner=ann)
    rows = {r["year"]: r for r in out["rows"]}
    ev_new = plans.design_evaluate(spec=new)
    assert rows[2027]["supply"]["usable_pib"] == pytest.approx(2 * BRICK_PIB + ev_new.usable_pib, abs=1e-4)
    assert ev_new.usable_pib == pytest.approx(4 * BRICK_PIB, abs=1e-4)  # twice the disk, twice the capacity
    assert rows[2027]["supply"]["read_gbps"] == pytest.approx(9.0 + ev_new.read_gbps, abs=1e-3)
    assert rows[2026]["ost_balance"] is None
    balance = rows[2027]["ost_balance"]
    ost_4tb = 8 * 4e12 * (1 - 0.00032) / 2**40
    assert balance["ost_tib_smallest"] == pytest.approx(ost_4tb, abs=0.01) and balance["ost_tib_largest"] == pytest.approx(
        2 * ost_4tb, abs=0.01
    )
    assert balance["spread"] == pytest.approx(1.0, abs=1e-3) and balance["largest"] == ["new"]
    assert balance["write_gbps_once_smaller_full"] == pytest.approx(ev_new.write_gbps, abs=1e-3)
    assert any(w.startswith("From 2027, OSTs of") for w in out["warnings"])


def test_plan_sheet_puts_the_cost_chart_with_the_year_table_and_prints_amounts_with_separators(ann):
    """The cost chart used to sit alone on page 2 (the three charts do not fit on page 1): it now opens
    page 2 above the year-by-year table it sums; its axis reads 150,000, not 150000."""
    import io

    import matplotlib
    from pypdf import PdfReader

    from planner.models import Plan
    from planner.rendering.plan_sheet import cost_chart_svg

    body = _body(propose=False, horizon_years=8)
    plan = Plan.objects.create(owner=ann, name="Scratch plan", body=body)
    pages = [" ".join(p.extract_text().split()) for p in PdfReader(io.BytesIO(plans.plan_sheet(plan=plan))).pages]
    assert "Cost per year" not in pages[0]
    assert "Cost per year" in pages[1] and "Year by year" in pages[1]
    with matplotlib.rc_context({"svg.fonttype": "none"}):  # text as text, to read the tick labels
        svg = cost_chart_svg(plans.plan_timeline(body=body, owner=ann))
    assert "100,000" in svg and "USD a year" in svg
