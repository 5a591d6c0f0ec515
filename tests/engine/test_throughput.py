"""Throughput: RAID write cost, per-stage limits, bottlenecks, tuning, clients and failover."""

import numpy as np
import pytest

from planner.engine import evaluate
from planner.engine.raid import write_amplification

from . import factories as f


@pytest.mark.parametrize(
    "request_kib, segment, n, p, code, expected",
    [
        (1024, 128, 8, 2, 0, 1.25),  # aligned full stripe: (8+2)/8
        (4096, 128, 8, 2, 0, 1.25),  # four full stripes
        (512, 128, 8, 2, 0, 2.5),  # half stripe: reconstruct-write, 10 I/Os for 4 data segments
        (128, 128, 8, 2, 0, 6.0),  # one segment: read-modify-write, 2 x (1+2) I/Os
        (1536, 128, 8, 2, 0, 10 / 8 * 8 / 12 + 10 / 12),  # 1.5 stripes: (10 + 10) / 12 segments
        (1024, 128, 8, 8, 1, 2.0),  # RAID 10 mirrors
        (640, 64, 10, 2, 0, 1.2),  # 10+2 with 64 KiB segments, aligned
    ],
)
def test_write_amplification_matches_raid_arithmetic(request_kib, segment, n, p, code, expected):
    assert float(write_amplification(request_kib, segment, n, p, code)) == pytest.approx(expected)


def _stage(ev, name, brick=None):
    rows = [s for s in ev.stages if s["stage"] == name and (brick is None or s["brick"] == brick)]
    assert len(rows) == 1, rows
    return rows[0]


def test_tuned_brick_is_limited_by_the_controllers():
    ev = evaluate(f.design(f.brick()))
    assert ev.read_gbps == pytest.approx(4.5)
    assert ev.write_gbps == pytest.approx(4.5)
    assert ev.bottleneck.items() >= {"read": "raid_controller", "write": "raid_controller"}.items()
    disks = _stage(ev, "disks")
    assert disks["read_gbps"] == pytest.approx(48 * 0.175)
    assert disks["write_gbps"] == pytest.approx(48 * 0.175)  # full stripes: every disk writes, 8 of 10 carry data
    assert _stage(ev, "raid_controller")["limiting"] == {"read": True, "write": True}
    assert [s["stage"] for s in ev.stages] == ["disks", "raid_controller", "host_links", "server", "network"]


def test_stock_512k_requests_halve_throughput():
    tuned = evaluate(f.design(f.brick()))
    stock = evaluate(f.design(f.brick(), tuning=f.STOCK))
    assert 0.4 <= stock.read_gbps / tuned.read_gbps <= 0.6
    assert 0.4 <= stock.write_gbps / tuned.write_gbps <= 0.6
    assert _stage(stock, "disks")["write_gbps"] == pytest.approx(60 * 0.175 / 2.5)


def test_expansion_enclosures_add_capacity_but_not_speed():
    perf = evaluate(f.design(f.brick()))
    cap = evaluate(f.design(f.brick(expansions=2)))
    assert cap.usable_tib == pytest.approx(3 * perf.usable_tib)
    assert cap.read_gbps <= perf.read_gbps + 1e-9
    link = _stage(cap, "expansion_link")
    # 12 of 18 OSTs share the 6 Gb/s link: the brick can reach link x 18/12 before the link saturates
    assert link["read_gbps"] == pytest.approx(2 * 4 * 6 * 0.736 / 8 * 18 / 12)


def test_expansion_link_limits_when_the_controllers_are_fast():
    fast_head = f.HEAD.__class__(
        **{**f.HEAD.__dict__, "controller_read_mbps": 50000, "controller_write_mbps": 50000, "controller_requests_per_s": 1e6}
    )
    ev = evaluate(f.design(f.brick(expansions=2, head=fast_head, hba_count=4), clients=None))
    assert ev.bottleneck["read"] in ("expansion_link", "network")
    ev = evaluate(f.design(f.brick(expansions=2, head=fast_head, network_count=4, hba_count=4)))
    assert ev.bottleneck["read"] == "expansion_link"


def test_network_adapter_can_be_the_bottleneck():
    slow = f.NET.__class__(slug="eth", name="10 GbE", kind="eth_nic", effective_gbps=1.186)
    ev = evaluate(f.design(f.brick(network=slow)))
    assert ev.bottleneck.items() >= {"read": "network", "write": "network"}.items()
    # the network figure is its protocol's goodput already: Lustre's efficiency is not applied again
    assert ev.read_gbps == pytest.approx(1.186)


def test_clients_cap_the_system_and_are_named():
    ev = evaluate(f.design(f.brick(count=8), clients=f.clients(4, gbps=6.0)))
    assert ev.read_gbps == pytest.approx(24.0)
    assert ev.bottleneck.items() >= {"read": "clients", "write": "clients"}.items()
    assert any("clients" in w for w in ev.warnings)
    roomy = evaluate(f.design(f.brick(count=8), clients=f.clients(64)))
    assert roomy.read_gbps == pytest.approx(36.0)


def test_system_throughput_is_the_sum_over_mixed_bricks():
    ev = evaluate(f.design(f.brick(count=2), f.brick(count=1, expansions=2)))
    assert ev.read_gbps == pytest.approx(3 * 4.5)
    assert {b["template"] for b in ev.bricks} == {"perf", "cap"}


def test_failover_pairing_halves_host_ports_and_reports_degraded_throughput():
    none = evaluate(f.design(f.brick(count=2), failover="none"))
    paired = evaluate(f.design(f.brick(count=2), failover="paired"))
    assert _stage(paired, "host_links")["read_gbps"] == pytest.approx(_stage(none, "host_links")["read_gbps"] / 2)
    assert paired.read_gbps == none.read_gbps == pytest.approx(9.0)
    # one server down: its partner carries both bricks through one 6 GB/s adapter (x 0.9)
    assert paired.degraded["read_gbps"] == pytest.approx(6.0, abs=0.01)  # one FDR adapter carries both bricks (goodput, no efficiency)
    # without failover the brick's OSTs go offline
    assert none.degraded["read_gbps"] == pytest.approx(4.5)


def test_failover_pairing_adds_a_standby_server_for_an_odd_count():
    ev = evaluate(f.design(f.brick(count=3), failover="paired"))
    assert ev.counts["servers"] == 4
    assert any("standby" in w for w in ev.warnings)
    assert evaluate(f.design(f.brick(count=3), failover="none")).counts["servers"] == 3


def test_stage_arrays_are_finite_for_present_stages():
    ev = evaluate(f.design(f.brick(expansions=1)))
    assert all(np.isfinite([s["read_gbps"], s["write_gbps"]]).all() for s in ev.stages)
