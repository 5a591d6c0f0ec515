"""The vectorised batch agrees with single evaluations; rack fit; bill of materials and prices."""

import numpy as np
import pytest

from planner.engine import BatchInput, evaluate, evaluate_batch
from planner.engine.inputs import PartParams
from planner.engine.layout import rack_layouts

from . import factories as f


def _designs():
    out = []
    for n_perf in range(0, 12, 3):
        for n_cap in range(0, 5, 2):
            if n_perf + n_cap == 0:
                continue
            for placement in ("none", "in_rack", "separate_rack"):
                for failover in ("none", "paired"):
                    bricks = []
                    if n_perf:
                        bricks.append(f.brick(count=n_perf))
                    if n_cap:
                        bricks.append(f.brick(count=n_cap, expansions=2, disk=f.DISK6))
                    out.append(f.design(*bricks, placement=placement, failover=failover))
    return out


def test_batch_of_many_equals_each_single_evaluation():
    designs = _designs()
    res = evaluate_batch(BatchInput.from_designs(designs))
    assert res.read_gbps.shape == (len(designs),)
    for i, d in enumerate(designs):
        single = evaluate(d)
        assert res.read_gbps[i] == pytest.approx(single.read_gbps)
        assert res.write_gbps[i] == pytest.approx(single.write_gbps)
        assert res.usable_bytes[i] / 2**50 == pytest.approx(single.usable_pib)
        assert res.rack_count[i] == single.rack_count
        assert res.total[i] == pytest.approx(single.price["total"], abs=0.05)


def test_designs_sharing_a_rack_and_metadata_cell_differ_where_their_other_inputs_do():
    """`from_designs` gathers design-level figures once for designs that share their rack, metadata
    cell, prices, tuning, clients and fabric: a design that shares some of them but not all must still
    get its own price, client limit and metadata parts."""
    import dataclasses

    dearer = dataclasses.replace(f.PRICES, unit_prices={**f.PRICES.unit_prices, ("rack", "r42"): 9000, ("switch", "sw"): 7000})
    base = f.design(f.brick(count=4), placement="in_rack")
    designs = [
        base,
        dataclasses.replace(base, prices=dearer),
        dataclasses.replace(base, clients=f.clients(2)),
        dataclasses.replace(base, placement="separate_rack"),
        dataclasses.replace(base, placement="none", metadata=None),
        base,
    ]
    batch = BatchInput.from_designs(designs)
    res = evaluate_batch(batch)
    for i, d in enumerate(designs):
        single = evaluate(d)
        assert res.read_gbps[i] == pytest.approx(single.read_gbps)
        assert res.total[i] == pytest.approx(single.price["total"], abs=0.05)
        assert res.rack_count[i] == single.rack_count
        assert batch.keys[i] == BatchInput.from_designs([d]).keys[0]
    assert res.total[1] > res.total[0] and res.read_gbps[2] < res.read_gbps[0]
    assert res.total[4] < res.total[0]  # no metadata cell to pay for


def test_vectorised_rack_count_equals_the_detailed_layout():
    rng = np.random.default_rng(7)
    for _ in range(60):
        bricks = [f.brick(count=int(rng.integers(1, 25)))]
        if rng.random() < 0.6:
            bricks.append(f.brick(count=int(rng.integers(1, 9)), expansions=int(rng.integers(1, 3))))
        d = f.design(*bricks, placement=str(rng.choice(["none", "in_rack", "separate_rack"])), failover=str(rng.choice(["none", "paired"])))
        batch = BatchInput.from_designs([d])
        res = evaluate_batch(batch)
        layouts = rack_layouts(d, batch, res, 0)
        assert int(res.rack_count[0]) == len(layouts)
        assert int(res.units_used[0]) == sum(r.units_used for r in layouts)
        assert res.power_w[0] == pytest.approx(sum(r.power_w for r in layouts))
        assert res.weight_kg[0] == pytest.approx(sum(r.weight_kg for r in layouts))


def test_a_standby_server_on_a_jbod_with_four_host_ports_is_counted_alike_in_the_layout_and_the_totals():
    """A JBOD's 4 host ports are shared by the lone brick's OSS and the standby (2 + 2 SAS cables): the
    totals count 4 cables for that pair, and each OSS in the rack layout still carries its own 4."""
    import dataclasses

    cable = PartParams(slug="sas", name="SAS cable", kind="cable", weight_kg=0.4)
    jbod = dataclasses.replace(f.HEAD, kind="jbod", uplink_ports=4, controllers=0)
    brick = f.brick(count=3, head=jbod, hba=dataclasses.replace(f.HBA, cable=cable))
    d = f.design(brick, failover="paired")
    batch = BatchInput.from_designs([d])
    res = evaluate_batch(batch)
    assert res.standby[0, 0] == 1
    layouts = rack_layouts(d, batch, res, 0)
    assert res.weight_kg[0] == pytest.approx(sum(r.weight_kg for r in layouts))
    cables = next(line for line in evaluate(d).price["lines"] if line["item"] == "sas")
    assert cables["quantity"] == 3 * 4  # not 3 x 4 + 4 for the standby: the third JBOD has no free port


def test_rack_fit_packs_heaviest_first_with_switches_on_top():
    d = f.design(f.brick(count=2), f.brick(count=1, expansions=2), placement="in_rack")
    batch = BatchInput.from_designs([d])
    [rack] = rack_layouts(d, batch, evaluate_batch(batch), 0)
    items = sorted(rack.items, key=lambda it: it.u)
    assert items[0].u == 1 and items[0].group == "cap"  # the 13U capacity brick (heaviest) at the bottom
    assert [it.kind for it in items[-2:]] == ["switch", "switch"]
    assert items[-1].u + items[-1].height - 1 == 42
    used = set()
    for it in items:  # no two devices share a rack unit
        span = set(range(it.u, it.u + it.height))
        assert not used & span
        used |= span


@pytest.mark.parametrize("placement, perf_max, cap_max", [("in_rack", 6, 2), ("none", 8, 3)])
def test_rack_fit_limits_of_the_study(placement, perf_max, cap_max):
    for kind, most, exp in (("perf", perf_max, 0), ("cap", cap_max, 2)):
        fits = evaluate(f.design(f.brick(count=most, expansions=exp), placement=placement, failover="paired"))
        spills = evaluate(f.design(f.brick(count=most + 1, expansions=exp), placement=placement, failover="paired"))
        assert fits.rack_count == 1, kind
        assert spills.rack_count == 2, kind


def test_a_new_rack_is_opened_when_one_is_full_and_power_is_checked():
    ev = evaluate(f.design(f.brick(count=20)))
    assert ev.rack_count == 3
    assert [r["units_used"] for r in ev.racks] == [42, 42, 22]
    hot = f.RACK.__class__(**{**f.RACK.__dict__, "power_budget_w": 3000})
    ev = evaluate(f.design(f.brick(count=4), rack=hot))
    assert any("power budget" in w for w in ev.warnings)


def test_separate_metadata_rack_is_counted():
    ev = evaluate(f.design(f.brick(count=8), placement="separate_rack"))
    assert ev.rack_count == 2
    assert [it["group"] for it in ev.racks[1]["items"] if it["kind"] != "switch"] == ["metadata"] * 5


def test_bill_of_materials_lines_add_up_to_the_price():
    ev = evaluate(f.design(f.brick(count=3), failover="paired", placement="in_rack"))
    lines = {(line["kind"], line["item"]): line for line in ev.price["lines"]}
    assert lines[("server", "srv")]["quantity"] == 3 + 1 + 4  # OSS, standby, metadata servers
    assert lines[("disk", "d4")]["quantity"] == 180
    assert lines[("service", "support-per-server-year")]["quantity"] == 8 * 5
    hardware = sum(line["total"] for line in ev.price["lines"] if line["kind"] != "service")
    assert ev.price["hardware"] == pytest.approx(hardware)
    assert ev.price["total"] == pytest.approx(ev.price["capex"] + ev.price["opex"])
    assert ev.price["opex"] == pytest.approx(ev.power_w / 1000 * 8766 * 5 * 1.5 * 0.1, rel=1e-6)


def test_unpriced_parts_are_warned_about_not_hidden():
    prices = f.PRICES.__class__(**{**f.PRICES.__dict__, "unit_prices": {}})
    d = f.design(f.brick())
    d = d.__class__(**{**d.__dict__, "prices": prices})
    ev = evaluate(d)
    assert any("No price for disk 'd4'" in w for w in ev.warnings)


def test_batch_handles_large_arrays_without_python_loops_over_designs():
    base = BatchInput.from_designs([f.design(f.brick(count=1))])
    n = 10_000
    batch = base.repeat(n)
    groups = batch.groups
    groups["count"] = np.arange(1, n + 1, dtype=float)[:, None] % 40 + 1
    res = evaluate_batch(batch)
    assert res.read_gbps.shape == (n,)
    assert res.read_gbps[0] == pytest.approx(groups["count"][0, 0] * 4.5)
    assert np.all(np.diff(res.rack_count[:39]) >= 0)
