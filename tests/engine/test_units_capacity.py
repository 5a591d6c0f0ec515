"""Units and capacity: decimal disks, binary usable capacity, OSTs from RAID layout."""

import numpy as np
import pytest

from planner.engine import capacity, evaluate, units

from . import factories as f


def test_units_convert_decimal_and_binary():
    assert units.bytes_to_tib(2**40) == 1
    assert units.bytes_to_pib(2**50) == 1
    assert units.mibps_to_gbps(1000) == pytest.approx(1.048576)
    assert units.link_payload_gbps(4, 12, 0.8) == pytest.approx(4.8)


def test_capacity_eight_4tb_data_disks_make_about_29_tib_per_ost():
    per_ost = capacity.usable_bytes_per_ost(8, 2, 4e12, 0.0, 0)
    assert units.bytes_to_tib(per_ost) == pytest.approx(29.10, abs=0.01)


@pytest.mark.parametrize(
    "enclosures, groups, data, parity, spares, osts, disks",
    [(1, 6, 8, 2, 0, 6, 60), (3, 6, 8, 2, 0, 18, 180), (1, 2, 21, 2, 2, 2, 48), (1, 1, 10, 2, 0, 1, 12)],
)
def test_capacity_counts_osts_and_disks_from_the_raid_layout(enclosures, groups, data, parity, spares, osts, disks):
    assert capacity.osts_per_brick(enclosures, groups) == osts
    assert capacity.disks_per_brick(enclosures, groups, data, parity, spares) == disks


def test_capacity_of_a_design_is_binary_usable_and_decimal_raw():
    ev = evaluate(f.design(f.brick(count=8)))
    assert ev.raw_tb == pytest.approx(1920.0)
    assert ev.usable_tib == pytest.approx(8 * 48 * 4e12 / 2**40)
    assert ev.usable_pib == pytest.approx(ev.usable_tib / 1024)
    assert ev.counts["osts"] == 48 and ev.counts["disks"] == 480


def test_capacity_subtracts_the_file_system_overhead():
    plain = evaluate(f.design(f.brick(count=1)))
    with_overhead = evaluate(f.design(f.brick(count=1, fs_overhead_fraction=0.03)))
    assert with_overhead.usable_tib == pytest.approx(plain.usable_tib * 0.97)
    assert with_overhead.raw_tb == plain.raw_tb


def test_capacity_vectorised_over_arrays():
    per_ost = capacity.usable_bytes_per_ost(np.array([8, 8, 10]), 2, np.array([4e12, 6e12, 4e12]), 0.0, 0)
    assert per_ost.tolist() == [32e12, 48e12, 40e12]
