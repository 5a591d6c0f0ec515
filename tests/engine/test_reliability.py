"""Rebuild time, MTTDL and the annual data-loss probability, OSTs of mixed sizes, and migration
time: figures computed by hand here, against the formulas cited in planner/engine/reliability.py."""

import math
from dataclasses import replace

import pytest

from planner.engine import DiskParams, RaidLayout, evaluate
from planner.engine import reliability as rel
from planner.engine.units import HOURS_PER_YEAR

from .factories import DISK4, HEAD, brick, design

# 4 TB disk, 200 MB/s outer and 100 MB/s inner zone -> 150 MB/s over the surface;
# AFR 0.8766 % -> MTTF = 8766 h / 0.008766 = 1,000,000 h; 1 unrecoverable error in 10^15 bits.
DISK = DiskParams(
    slug="d",
    name="4 TB",
    capacity_bytes=4e12,
    read_mbps=200,
    write_mbps=200,
    inner_mbps=100,
    power_w=10,
    weight_kg=0.9,
    afr_percent=0.8766,
    ure_per_bit=1e-15,
)
JBOD = replace(HEAD, slug="jbod", name="JBOD", kind="jbod", controllers=0, controller_read_mbps=0, controller_write_mbps=0)
MTTF = 1_000_000.0
# hardware RAID: 150 MB/s x 0.30 = 45 MB/s; 4e12 B / 45e6 B/s = 88,888.9 s = 24.691358 h
MTTR_HW = 4e12 / 45e6 / 3600


def raid6(data=8, groups=6, spares=0, **kw):
    return RaidLayout(level="raid6", data=data, parity=2, groups=groups, spares=spares, **kw)


def test_mttf_and_rebuild_time_by_hand():
    assert rel.mttf_hours(0.8766) == pytest.approx(MTTF)
    assert MTTR_HW == pytest.approx(24.691358, rel=1e-6)
    line = rel.line_reliability(brick(disk=DISK, raid=raid6()), 1, DISK.read_mbps * DISK.sustained_factor, 3.0, 3.0)
    assert line.rebuild_share == 0.30
    assert line.rebuild_mbps == pytest.approx(45.0)
    assert line.rebuild_hours == pytest.approx(MTTR_HW)


def test_raid6_8_plus_2_mttdl_by_hand():
    # The classic RAID 6 formula without read errors (Chen et al. 1994):
    # MTTF^3 / (N (N-1) (N-2) MTTR^2) = 1e18 / (10 x 9 x 8 x 24.691358^2) = 1e18 / 438,957.5 = 2.278125e12 h
    assert rel.mttdl_hours("raid6", 10, 2, MTTF, MTTR_HW) == pytest.approx(2.278125e12, rel=1e-6)
    # With the read-error term: the second rebuild reads the 8 survivors, 8 x 4e12 B x 8 bit = 2.56e14 bits,
    # P_ure = 1 - exp(-2.56e14 x 1e-15) = 1 - exp(-0.256) = 0.225858
    p_ure = 1 - math.exp(-0.256)
    assert p_ure == pytest.approx(0.225858, rel=1e-5)
    # 1/MTTDL = 10 x 9 x MTTR / MTTF^2 x (8 x MTTR / MTTF + P_ure)
    #         = 90 x 24.691358 / 1e12 x (1.975309e-4 + 0.225858) = 2.222222e-9 x 0.2260555 = 5.023457e-10
    expected = 1 / 5.023457e-10  # 1.990661e9 h
    line = rel.line_reliability(brick(disk=DISK, raid=raid6(), count=10), 10, 150.0, 3.0, 3.0)
    assert line.p_ure_rebuild == pytest.approx(p_ure)
    assert line.mttdl_hours == pytest.approx(expected, rel=1e-5)
    # 10 bricks x 6 groups = 60 groups: P(loss in a year) = 1 - exp(-60 x 8766 / 1.990662e9) = 2.6418e-4
    assert line.units == 60
    assert rel.annual_loss_probability(60, line.mttdl_hours) == pytest.approx(1 - math.exp(-60 * 8766 / 1.990662e9), rel=1e-5)
    assert rel.annual_loss_probability(60, line.mttdl_hours) == pytest.approx(2.6418e-4, rel=1e-3)


def test_raid6_14_plus_2_mttdl_by_hand():
    # 16 disks; rebuild 24.691358 h as above (same disk, same controller share)
    # no read errors: 1e18 / (16 x 15 x 14 x 609.6632) = 1e18 / 2.048468e6 = 4.881696e11 h
    assert rel.mttdl_hours("raid6", 16, 2, MTTF, MTTR_HW) == pytest.approx(4.881696e11, rel=1e-6)
    # P_ure over 14 survivors: 14 x 3.2e13 bits x 1e-15 = 0.448; 1 - exp(-0.448) = 0.361095
    # 1/MTTDL = 16 x 15 x 24.691358 / 1e12 x (14 x 24.691358 / 1e6 + 0.361103)
    #         = 5.925926e-9 x (3.456790e-4 + 0.361095) = 5.925926e-9 x 0.3614410 = 2.141873e-9
    line = rel.line_reliability(brick(disk=DISK, raid=raid6(data=14, groups=3)), 1, 150.0, 3.0, 3.0)
    assert line.p_ure_rebuild == pytest.approx(0.361095, rel=1e-5)
    assert line.mttdl_hours == pytest.approx(1 / 2.141873e-9, rel=1e-5)
    # wider groups lose data more often than 8+2 (per group and per byte)
    assert line.mttdl_hours < rel.line_reliability(brick(disk=DISK, raid=raid6()), 1, 150.0, 3.0, 3.0).mttdl_hours


def test_raid5_formula_and_raid10_by_hand():
    # RAID 5 without read errors: MTTF^2 / (N (N-1) MTTR) = 1e12 / (9 x 8 x 10) = 1.388889e9 h
    assert rel.mttdl_hours("raid5", 9, 1, MTTF, 10.0) == pytest.approx(1.388889e9, rel=1e-6)
    # raidz3 without read errors: MTTF^4 / (N (N-1) (N-2) (N-3) MTTR^3) = 1e24 / (11 x 10 x 9 x 8 x 1000)
    assert rel.mttdl_hours("raidz3", 11, 3, MTTF, 10.0) == pytest.approx(1e24 / (11 * 10 * 9 * 8 * 1000), rel=1e-9)
    # RAID 10 of 4+4 (N = 8): 1/MTTDL = 8 / MTTF x (MTTR / MTTF + P_ure(1 disk))
    # P_ure(1 disk) = 1 - exp(-3.2e13 x 1e-15) = 1 - exp(-0.032) = 0.0314934
    # = 8e-6 x (2.4691358e-5 + 0.0314934) = 8e-6 x 0.0315181 = 2.521449e-7 -> MTTDL 3.965974e6 h
    raid10 = RaidLayout(level="raid10", data=4, parity=4, groups=7, spares=4)
    line = rel.line_reliability(brick(disk=DISK, raid=raid10), 1, 150.0, 3.0, 3.0)
    assert line.rebuild_hours == pytest.approx(MTTR_HW)
    assert line.mttdl_hours == pytest.approx(3.965974e6, rel=1e-6)


def test_raidz2_equals_raid6_of_the_same_width():
    # on the same JBOD (software RAID both: share 0.5, 150 x 0.5 = 75 MB/s, 4e12 / 75e6 / 3600 = 14.8148 h)
    md = rel.line_reliability(brick(disk=DISK, head=JBOD, raid=raid6()), 2, 150.0, 3.0, 3.0)
    zfs = rel.line_reliability(brick(disk=DISK, head=JBOD, raid=RaidLayout(level="raidz2", data=8, parity=2, groups=6)), 2, 150.0, 3.0, 3.0)
    assert md.rebuild_share == zfs.rebuild_share == 0.5
    assert md.rebuild_hours == zfs.rebuild_hours == pytest.approx(4e12 / 75e6 / 3600)
    assert zfs.mttdl_hours == pytest.approx(md.mttdl_hours)
    assert zfs.units == md.units == 12


def test_declustered_rebuilds_faster_than_its_classic_layout():
    classic = rel.line_reliability(brick(disk=DISK, raid=raid6()), 1, 150.0, 3.0, 3.0)
    declustered = rel.line_reliability(brick(disk=DISK, raid=raid6(declustered=True)), 1, 150.0, 3.0, 3.0)
    # pool of 6 x 10 = 60 disks, stripes of 10: 6 times faster, 24.691358 / 6 = 4.115226 h
    assert declustered.pool_disks == 60
    assert declustered.rebuild_hours == pytest.approx(MTTR_HW / 6)
    assert declustered.rebuild_hours < classic.rebuild_hours
    assert declustered.units_per_brick == 1  # one pool per enclosure
    # a "pool" of one stripe is no faster
    single = rel.line_reliability(brick(disk=DISK, raid=raid6(groups=1, declustered=True)), 1, 150.0, 3.0, 3.0)
    assert single.rebuild_hours == pytest.approx(MTTR_HW)


def test_throughput_while_rebuilding():
    # classic: one of the brick's 6 OSTs rebuilds, its share is lost: 3.0 x (1 - 1/6) = 2.5 GB/s
    line = rel.line_reliability(brick(disk=DISK, raid=raid6()), 1, 150.0, 3.0, 2.4)
    assert line.read_gbps_rebuilding == pytest.approx(2.5)
    assert line.write_gbps_rebuilding == pytest.approx(2.0)
    # declustered: every disk of the pool gives 30 % to the rebuild: 3.0 x 0.7 = 2.1 GB/s (for a sixth of the time)
    line = rel.line_reliability(brick(disk=DISK, raid=raid6(declustered=True)), 1, 150.0, 3.0, 2.4)
    assert line.read_gbps_rebuilding == pytest.approx(2.1)


def test_evaluation_carries_reliability_and_adds_only():
    e = evaluate(design(brick(count=10, disk=DISK, raid=raid6())))
    out = e.as_dict()
    for key in ("usable_pib", "read_gbps", "stages", "bricks", "warnings", "assumptions", "metadata"):
        assert key in out  # the contract's keys are unchanged
    r = out["reliability"]
    assert r["lines"][0]["rebuild_hours"] == pytest.approx(24.69, abs=0.01)
    assert r["groups"] == 60
    assert r["annual_loss_probability"] == pytest.approx(2.6418e-4, rel=1e-3)
    assert r["mttdl_hours"] == pytest.approx(1.990662e9 / 60, rel=1e-3)
    assert any("Chen et al." in text for text in r["assumptions"])
    per_brick = out["bricks"][0]["read_gbps_per_brick"]
    assert r["lines"][0]["read_gbps_per_brick_rebuilding"] == pytest.approx(per_brick * 5 / 6, abs=1e-3)
    assert out["ost_balance"] is None


def test_disk_without_figures_uses_stated_defaults():
    line = rel.line_reliability(brick(disk=DISK4), 1, 175.0, 3.0, 3.0)
    assert line.ure_per_bit == rel.DEFAULT_URE_PER_BIT
    assert line.mttf_hours == pytest.approx(8766 / (rel.DEFAULT_AFR_PERCENT / 100))


def test_solver_rate_is_linear_in_the_count():
    g = brick(disk=DISK, raid=raid6())
    rate = rel.group_loss_rate(g, 150.0)
    line = rel.line_reliability(replace(g, count=7), 7, 150.0, 0, 0)
    p7 = rel.annual_loss_probability(line.units, line.mttdl_hours)
    one = rel.line_reliability(replace(g, count=1), 1, 150.0, 0, 0)
    p1 = rel.annual_loss_probability(one.units, one.mttdl_hours)
    assert 0 < p1 < p7 < 1
    # seven bricks lose data as seven independent bricks would (computed from the one-brick line, not
    # from the solver's rate), and the solver's per-brick rate gives the same figure
    assert p7 == pytest.approx(1 - (1 - p1) ** 7)
    assert p7 == pytest.approx(1 - math.exp(-7 * rate * HOURS_PER_YEAR))
    # linear in the exponent: 14 bricks lose data as two independent sets of 7 would, and more than 7 do
    line14 = rel.line_reliability(replace(g, count=14), 14, 150.0, 0, 0)
    p14 = rel.annual_loss_probability(line14.units, line14.mttdl_hours)
    assert p14 == pytest.approx(1 - (1 - p7) ** 2) and p14 > p7 > 0


# -- mixed generations ----------------------------------------------------------------------

DISK10 = replace(DISK, slug="d10", name="10 TB", capacity_bytes=10e12)


def test_mixed_generations_warn_and_give_the_full_file_system_figure():
    old = brick(count=4, disk=DISK, raid=raid6())  # OST: 8 x 4e12 B = 29.10 TiB
    new = replace(brick(count=2, disk=DISK10, raid=raid6()), template="new")  # OST: 8 x 10e12 B = 72.76 TiB
    e = evaluate(design(old, new))
    bal = e.ost_balance
    assert bal["ost_tib"] == [round(32e12 / 2**40, 2), round(80e12 / 2**40, 2)]
    assert bal["spread"] == pytest.approx(1.5)  # 10 TB / 4 TB - 1
    assert bal["uneven"] and bal["largest_lines"] == ["new"]
    # same brick physics (one head of 60 disks at 150 MB/s), so once the 4 TB OSTs are full only the 2 new bricks
    # take new data: 2 x the brick's GB/s, a third of the 6 bricks' aggregate
    new_line = e.bricks[1]
    assert bal["write_gbps_once_smaller_full"] == pytest.approx(new_line["write_gbps"], abs=0.01)
    assert bal["read_gbps_once_smaller_full"] == pytest.approx(e.read_gbps / 3, abs=0.01)
    assert any("OST sizes differ by 150%" in w and "the new bricks" in w for w in e.warnings)
    # figures as the pages print them: one decimal, thousands separated (it read "... instead of 5070.00")
    said = next(w for w in e.warnings if "OST sizes differ" in w)
    assert f"instead of {e.write_gbps:,.1f} and {e.read_gbps:,.1f} GB/s." in said and ".00" not in said
    # both generations still aggregate in capacity and throughput
    assert e.usable_tib == pytest.approx((4 * 6 * 32e12 + 2 * 6 * 80e12) / 2**40, rel=1e-6)


def test_close_ost_sizes_do_not_warn():
    disk = replace(DISK, slug="d43", capacity_bytes=4.4e12)  # 10 % bigger: under Lustre's 17 %
    e = evaluate(design(brick(count=2, disk=DISK), replace(brick(count=2, disk=disk), template="b")))
    assert e.ost_balance["uneven"] is False
    assert not any("OST sizes" in w for w in e.warnings)


# -- migration ------------------------------------------------------------------------------


def test_migration_bounded_by_the_slower_side():
    # 1.5 PB; 12 clients at min(12.5 GB/s link, 0.25 GB/s per copy stream) = 3 GB/s; source 20 GB/s, target 2 GB/s:
    # the target bounds it: 1.5e15 B / 2e9 B/s = 750,000 s = 208.333 h = 8.68 days
    out = rel.time_to_copy(1.5e15, 12, 12.5, 20.0, 2.0, 0.25)
    assert out["bound_by"] == "target"
    assert out["rate_gbps"] == 2.0
    assert out["hours"] == pytest.approx(208.3333, rel=1e-6)
    # with 4 clients, 4 x 0.25 = 1 GB/s: the clients bound it, 1.5e6 s = 416.667 h
    out = rel.time_to_copy(1.5e15, 4, 12.5, 20.0, 2.0, 0.25)
    assert out["bound_by"] == "clients"
    assert out["hours"] == pytest.approx(416.6667, rel=1e-6)
    # a slow client link caps the per-client rate: 12 x 0.1 = 1.2 GB/s
    assert rel.time_to_copy(1.5e15, 12, 0.1, 20.0, 2.0, 0.25)["rate_gbps"] == pytest.approx(1.2)


# -- the solver's loss target ----------------------------------------------------------------


def test_solver_honours_max_loss_probability():
    from planner.engine import solver

    # RAID 5 14+1 x 4 per enclosure: 56 data disks, 0.199 PiB a brick, but each group loses data about 4.6 % a year
    # (1/MTTDL = 15 / 1e6 x (14 x 24.69 / 1e6 + 1 - exp(-0.448)) = 5.42e-6 per hour);
    # RAID 6 8+2 x 6: 48 data disks, 0.1705 PiB a brick, 6 x 8766 / 1.990661e9 = 2.642e-5 per brick a year
    risky = design(brick(disk=DISK, raid=RaidLayout(level="raid5", data=14, parity=1, groups=4)), name="raid5")
    safe = design(brick(disk=DISK, raid=raid6()), name="raid6")
    free = solver.solve([risky, safe], solver.Targets(usable_pib=0.35), max_count=20, limit=5)
    best = free.ranked[0]
    assert (best.option, best.count) == (0, 2)  # two RAID 5 bricks are the cheapest 0.35 PiB
    assert best.loss_probability > 0.1
    bound = solver.solve([risky, safe], solver.Targets(usable_pib=0.35, max_loss_probability=1e-4), max_count=20, limit=5)
    best = bound.ranked[0]
    # three RAID 6 bricks: 1 - exp(-3 x 6 x 8766 / 1.990661e9) = 7.93e-5 <= 1e-4 (four would be 1.06e-4)
    assert (best.option, best.count) == (1, 3)
    assert best.loss_probability == pytest.approx(7.926e-5, rel=1e-3)
    assert all(c.loss_probability <= 1e-4 for c in bound.ranked)
    assert max(c.count for c in bound.ranked if c.option == 1) == 3
    # a target nothing meets is named
    none = solver.solve([risky], solver.Targets(usable_pib=0.35, max_loss_probability=1e-4), max_count=20, limit=5)
    assert not none.feasible and none.unmet[0]["constraint"] == "max_loss_probability"


def test_solver_loss_rates_shared_between_options_equal_each_options_own():
    """`solver.loss_rates` computes a rate once for options whose reliability inputs agree: every
    option's rate still equals its own `group_loss_rate`, and options that differ in any of them
    (disk size, rate, failure figures, RAID layout, expansions, controllers) get their own."""
    from planner.engine import BatchInput
    from planner.engine.solver import loss_rates, with_option

    base = design(brick(count=1))
    hba2 = dict(hba_count=1)
    options = [
        base,
        with_option(base, **hba2),  # same inputs as base: shared
        with_option(base, expansions=1),
        with_option(base, disk=replace(DISK4, slug="big", capacity_bytes=8e12)),
        with_option(base, disk=replace(DISK4, slug="slow", read_mbps=120)),
        with_option(base, disk=replace(DISK4, slug="afr", afr_percent=2.0)),
        with_option(base, disk=replace(DISK4, slug="ure", ure_per_bit=1e-14)),
        with_option(base, raid=RaidLayout(level="raid6", data=14, parity=2, groups=4, spares=4, segment_kib=128)),
        with_option(base, head=replace(HEAD, controllers=0)),
    ]
    rates = loss_rates(options, BatchInput.from_designs(options))[:, 0]
    own = [rel.group_loss_rate(o.bricks[0], o.bricks[0].disk.read_mbps * o.bricks[0].disk.sustained_factor) for o in options]
    assert rates.tolist() == pytest.approx(own, rel=1e-12)
    assert rates[1] == rates[0]
    assert len(set(rates[2:].tolist()) | {rates[0]}) == len(options) - 1  # every other option its own rate
