"""Hand-computed figures for each stage and each kind of storage, and properties over random designs.

Every expected number below is worked out in the comment beside it from the inputs in
`factories.py` (or the ones given here), not by calling the function under test.
"""

import dataclasses

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from planner.engine import BatchInput, evaluate, evaluate_batch, evaluate_many
from planner.engine.capacity import mdt_figures
from planner.engine.inputs import FabricParams, MdtStorage, PartParams, RaidLayout
from planner.engine.raid import raidz_write_amplification, zfs_deflate_ratio, zfs_usable_bytes

from . import factories as f

GIB = 2**30


def approx(value):
    """Stage figures are reported to 1 MB/s (three decimals of GB/s)."""
    return pytest.approx(value, abs=6e-4)


def _stage(ev, name, brick=None):
    rows = [s for s in ev.stages if s["stage"] == name and (brick is None or s["brick"] == brick)]
    assert len(rows) == 1, rows
    return rows[0]


def _replace(obj, **kw):
    return dataclasses.replace(obj, **kw)


# ------------------------------------------------------------------ disks


def test_disks_stream_at_the_average_of_outer_and_inner_zone():
    zoned = _replace(f.DISK4, inner_mbps=83)
    ev = evaluate(f.design(f.brick(disk=zoned)))
    # (175 + 83) / 2 = 129 MB/s; 6 groups x 8 data disks = 48 readers
    assert _stage(ev, "disks")["read_gbps"] == approx(48 * 0.129)
    # full stripes: all 60 disks write, 10/8 disk bytes per data byte
    assert _stage(ev, "disks")["write_gbps"] == approx(60 * 0.129 / 1.25)
    assert any("129 MB/s over the surface" in a for a in ev.assumptions)


def test_raid10_reads_are_served_by_both_mirrors_and_writes_cost_two():
    mirrored = RaidLayout(level="raid10", data=5, parity=5, groups=6, spares=0, segment_kib=128)
    ev = evaluate(f.design(f.brick(raid=mirrored)))
    assert _stage(ev, "disks")["read_gbps"] == approx(60 * 0.175)  # every disk of every mirror reads
    assert _stage(ev, "disks")["write_gbps"] == approx(60 * 0.175 / 2)  # each byte written twice
    # capacity: 6 groups x 5 mirrors x 4 TB
    assert ev.usable_tib == pytest.approx(6 * 5 * 4e12 / 2**40)


@pytest.mark.parametrize("merge, amp", [(0.0, 2.5), (0.5, 0.5 * 1.25 + 0.5 * 2.5), (1.0, 1.25)])
def test_write_back_cache_merging_sequential_partial_stripes(merge, amp):
    # 512 KiB requests on 8+2 x 128 KiB: half a stripe, reconstruct-write 10 I/Os per 4 data segments (2.5)
    head = _replace(f.HEAD, cache_merge=merge)
    ev = evaluate(f.design(f.brick(head=head), tuning=f.STOCK))
    assert _stage(ev, "disks")["write_gbps"] == approx(60 * 0.175 / amp)
    # controllers: 5.0 GB/s at full-stripe cost (1.25) over the actual cost, and 4,800 x 512 KiB requests
    assert _stage(ev, "raid_controller")["write_gbps"] == approx(min(5.0 * 1.25 / amp, 4800 * 512 * 1024 / 1e9))


# ------------------------------------------------------------------ efficiency and the network


def test_lustre_efficiency_applies_to_the_back_end_not_to_the_network():
    net = _replace(f.NET, effective_gbps=4.0)
    ev = evaluate(f.design(f.brick(network=net)))
    # back end 5.0 x 0.9 = 4.5 > network goodput 4.0: the brick delivers 4.0, not 4.0 x 0.9
    assert ev.read_gbps == pytest.approx(4.0)
    assert ev.bottleneck["read"] == "network"
    assert ev.bricks[0]["backend_gbps_per_brick"]["read"] == pytest.approx(4.5)
    fast = _replace(f.NET, effective_gbps=12.0)
    assert evaluate(f.design(f.brick(network=fast))).read_gbps == pytest.approx(4.5)  # 5.0 x 0.9


# ------------------------------------------------------------------ kinds of storage and failover


def _san_brick(expansions=0, storage_ports=4):
    array = _replace(
        f.HEAD,
        slug="arr",
        name="Array",
        kind="iscsi_array",
        drive_slots=48,
        controllers=2,
        controller_read_mbps=450,
        controller_write_mbps=350,
        controller_requests_per_s=4000,
        uplink_ports=4,
        uplink_port_gbps=0.1177,
        max_expansions=15,
    )
    nic = f.AdapterParams(slug="nic4", name="4 x 1GbE", kind="eth_nic", effective_gbps=4 * 0.1177, ports=4, port_gbps=0.1177)
    return f.brick(
        head=array,
        expansion=array,
        expansions=expansions,
        hba=nic,
        hba_count=1,
        storage_ports=storage_ports,
        network=nic,
        raid=RaidLayout(level="raid6", data=21, parity=2, groups=2, spares=2, segment_kib=64),
    )


def test_san_ports_all_stay_in_use_under_failover():
    none = evaluate(f.design(_san_brick(), failover="none"))
    paired = evaluate(f.design(_san_brick(), failover="paired"))
    host = 4 * 0.1177  # four 1GbE ports from the OSS, four on the array's active controller
    assert _stage(none, "host_links")["read_gbps"] == approx(host)
    assert _stage(paired, "host_links")["read_gbps"] == approx(host)


def test_san_members_scale_controllers_ports_and_disks():
    one = evaluate(f.design(_san_brick(expansions=0, storage_ports=4)))
    three = evaluate(f.design(_san_brick(expansions=2, storage_ports=4)))
    assert _stage(three, "raid_controller")["read_gbps"] == approx(3 * 0.45)  # three members' controllers
    assert three.counts["disks"] == 3 * 48
    assert three.usable_tib == pytest.approx(3 * one.usable_tib)
    # the OSS's 4 ports now bound it: the three arrays offer 12
    assert _stage(three, "host_links")["read_gbps"] == approx(4 * 0.1177)
    assert not [s for s in three.stages if s["stage"] == "expansion_link"]  # members are not behind a shared link


def test_shared_head_under_failover_gives_each_server_half_its_ports():
    none = evaluate(f.design(f.brick(count=2), failover="none"))
    paired = evaluate(f.design(f.brick(count=2), failover="paired"))
    port = f.HEAD.uplink_port_gbps
    assert _stage(none, "host_links")["read_gbps"] == approx(4 * port)
    assert _stage(paired, "host_links")["read_gbps"] == approx(2 * port)


def test_software_raid_jbod_is_limited_by_the_server_and_zfs_never_writes_partial_stripes():
    jbod = _replace(f.HEAD, kind="jbod", controllers=0, controller_read_mbps=0, controller_write_mbps=0, controller_requests_per_s=0)
    raidz = RaidLayout(level="raidz2", data=8, parity=2, groups=6, spares=0, segment_kib=128)
    brick = f.brick(head=jbod, raid=raidz, software_raid_read_mbps=3000, software_raid_write_mbps=2000)
    ev = evaluate(f.design(brick, tuning=f.STOCK))
    assert _stage(ev, "raid_controller")["read_gbps"] == approx(3.0)
    # a 1 MiB record on 8+2 at 4 KiB sectors: 256 data + 32 rows x 2 parity = 320, padded to a multiple of 3: 321
    amp = 321 / 256
    assert float(raidz_write_amplification(8, 2)) == pytest.approx(amp)
    assert _stage(ev, "disks")["write_gbps"] == approx(60 * 0.175 / amp)  # stock 512 KiB requests change nothing
    assert _stage(ev, "raid_controller")["write_gbps"] == approx(2.0)


def test_one_server_down_keeps_what_belongs_to_the_storage_and_loses_what_belongs_to_the_server():
    """Two software-RAID JBOD bricks in an HA pair with one OSS down: the survivor computes the parity
    for both JBODs, so the pair gets one server's software RAID (x efficiency), not two bricks' worth
    less one network adapter; disks and host ports still count for both enclosures."""
    jbod = _replace(f.HEAD, kind="jbod", controllers=0, controller_read_mbps=0, controller_write_mbps=0, controller_requests_per_s=0)
    raidz = RaidLayout(level="raidz2", data=8, parity=2, groups=6, spares=0, segment_kib=128)
    fast = _replace(f.NET, effective_gbps=12.0)  # the network does not hide the back end
    brick = f.brick(count=2, head=jbod, raid=raidz, network=fast, software_raid_read_mbps=3000, software_raid_write_mbps=2000)
    ev = evaluate(f.design(brick, failover="paired"))
    assert ev.read_gbps == pytest.approx(2 * 3.0 * 0.9)  # each server's software RAID x Lustre's efficiency
    assert ev.degraded["read_gbps"] == pytest.approx(3.0 * 0.9, abs=0.01)  # one server's software RAID for both
    assert ev.degraded["write_gbps"] == pytest.approx(2.0 * 0.9, abs=0.01)
    # a RAID head's controllers sit in the enclosures: the survivor drives both, and only its HBAs
    # (2 x 6.7 GB/s) and its adapter (12 GB/s) are one server's
    heads = evaluate(f.design(f.brick(count=2, network=fast), failover="paired"))
    assert heads.read_gbps == pytest.approx(2 * 4.5)
    assert heads.degraded["read_gbps"] == pytest.approx(2 * 4.5, abs=0.01)  # 2 x 5.0 x 0.9 = 9.0 < 12 and < 13.4 x 0.9
    slow_hba = _replace(f.HBA, effective_gbps=3.0)
    capped = evaluate(f.design(f.brick(count=2, network=fast, hba=slow_hba), failover="paired"))
    assert capped.degraded["read_gbps"] == pytest.approx(2 * 3.0 * 0.9, abs=0.01)  # the survivor's own two HBAs


def test_one_server_down_on_a_san_keeps_the_arrays_ports_but_not_the_servers():
    fast_net = f.AdapterParams(slug="n", name="fast", kind="eth_nic", effective_gbps=12.0)
    paired = evaluate(f.design(_replace(_san_brick(), count=2, network=fast_net), failover="paired"))
    assert paired.read_gbps == pytest.approx(2 * 0.45 * 0.9)  # each array's controllers (450 MB/s) x efficiency
    # the survivor reaches both arrays through its own four 1GbE ports (and its one NIC of four):
    # 0.47 GB/s, where the two arrays' controllers and ports would give 0.9
    assert paired.degraded["read_gbps"] == pytest.approx(4 * 0.1177 * 0.9, abs=0.01)


def test_zfs_capacity_as_df_shows_it():
    # raidz2 of 10 x 8 TB, ashift 12: a 128 KiB block takes 32 data + 8 parity = 40 sectors, padded to 42;
    # ZFS reports 131072 / (42 x 4096 / 512) = 390 (integer) / 512 of the raw space
    assert float(zfs_deflate_ratio(8, 2)) == pytest.approx(390 / 512)
    per_disk = 8e12 - (4 * 256 * 1024 + 3.5 * 2**20)  # less labels and boot area
    asize = 10 * per_disk
    metaslab = 16 * GIB  # about 200 metaslabs would be 400 GB each: capped at 16 GiB
    count = asize // metaslab
    normal = (count * metaslab - metaslab) * 390 / 512  # one metaslab kept for the ZIL
    slop = min(normal / 32, 128 * GIB)  # 1/32, at most 128 GiB (OpenZFS 2.1+)
    slop -= min(metaslab * 390 / 512, slop / 2)
    expected = normal - slop
    assert float(zfs_usable_bytes(8, 2, 8e12)) == pytest.approx(expected)
    assert 0.75 < expected / 80e12 < 0.77


# ------------------------------------------------------------------ tuning, clients, fabric


def test_a_4mib_rpc_helps_only_where_every_layer_passes_4mib():
    split = f.TuningParams(
        slug="4m-split",
        name="4 MiB RPC, 1 MiB sectors",
        rpc_kib=4096,
        max_sectors_kib=1024,
        sg_entries=256,
        software_read_efficiency=0.9,
        software_write_efficiency=0.9,
    )
    whole = f.TuningParams(
        slug="4m",
        name="4 MiB whole",
        rpc_kib=4096,
        max_sectors_kib=4096,
        sg_entries=1024,
        software_read_efficiency=0.9,
        software_write_efficiency=0.9,
    )
    assert split.request_kib == 1024 and whole.request_kib == 4096
    slow_rate = _replace(f.HEAD, controller_requests_per_s=1000)
    # 1,000 requests/s x 1 MiB = 1.05 GB/s; x 4 MiB = 4.19 GB/s (under the 5.0 GB/s streaming limit)
    assert _stage(evaluate(f.design(f.brick(head=slow_rate), tuning=split)), "raid_controller")["read_gbps"] == approx(1000 * 2**20 / 1e9)
    assert _stage(evaluate(f.design(f.brick(head=slow_rate), tuning=whole)), "raid_controller")["read_gbps"] == approx(
        1000 * 4 * 2**20 / 1e9
    )
    capped = _replace(slow_rate, max_request_kib=1024)  # a controller taking at most 1 MiB at a time
    assert _stage(evaluate(f.design(f.brick(head=capped), tuning=whole)), "raid_controller")["read_gbps"] == approx(1000 * 2**20 / 1e9)


def test_lustre_limits_each_client_by_rpcs_in_flight_over_the_round_trip():
    tuning = _replace(f.TUNED, rpcs_in_flight=8)
    clients = f.ClientParams(count=10, adapter=f.clients(1).adapter, rpc_round_trip_ms=10.0, streams=2)
    ev = evaluate(f.design(f.brick(count=8), tuning=tuning, clients=clients))
    # per client: 2 OSCs x 8 RPCs x 1 MiB / 10 ms = 1.678 GB/s (under its 6.0 GB/s link); 10 clients
    assert ev.read_gbps == pytest.approx(10 * 2 * 8 * 2**20 / 0.010 / 1e9)
    assert ev.bottleneck.items() >= {"read": "clients", "write": "clients"}.items()


def test_an_oversubscribed_fabric_and_its_core_cap_the_system():
    d = f.design(f.brick(count=8), clients=f.clients(8, gbps=6.0))
    assert evaluate(d).read_gbps == pytest.approx(36.0)  # 8 bricks x 4.5; clients 48
    over = evaluate(_replace(d, fabric=FabricParams(oversubscription=2.0)))
    assert over.read_gbps == pytest.approx(24.0)  # 48 / 2
    assert over.bottleneck["read"] == "clients"
    core = evaluate(_replace(d, fabric=FabricParams(core_gbps=20.0)))
    assert core.read_gbps == pytest.approx(20.0)
    assert core.bottleneck["read"] == "fabric"


# ------------------------------------------------------------------ metadata cell


def test_metadata_cell_reports_mdt_capacity_inodes_and_count():
    ssd = f.DiskParams(
        slug="ssd", name="3.84 TB SSD", capacity_bytes=3.84e12, read_mbps=1200, write_mbps=1000, power_w=9, weight_kg=0.2, form_factor="2.5"
    )
    mdt = MdtStorage(
        disk=ssd,
        disks=42,
        raid=RaidLayout(level="raid10", data=5, parity=5, groups=4, spares=2),
        mdts=4,
        bytes_per_inode=2560,
        enclosure=PartParams(slug="md", name="MD storage", kind="enclosure", height_u=2, power_w=200, weight_kg=16),
        enclosure_slots=24,
    )
    figures = mdt_figures(mdt)
    assert figures["usable_bytes"] == pytest.approx(4 * 5 * 3.84e12)
    # 19.2 TB per MDT / 2,560 B = 7.5 billion inodes, over ldiskfs's 4 billion per MDT: capped at 4 x 4e9
    assert figures["inodes"] == 16e9 and figures["capped"]
    cell = _replace(f.METADATA, mdt=mdt)
    d = _replace(f.design(f.brick(), placement="in_rack"), metadata=cell)
    ev = evaluate(d)
    assert ev.metadata["mdt_count"] == 4
    assert ev.metadata["mdt_usable_tib"] == pytest.approx(4 * 5 * 3.84e12 / 2**40, abs=0.01)
    lines = {(line["kind"], line["item"]): line["quantity"] for line in ev.price["lines"]}
    assert lines[("disk", "ssd")] == 42
    assert lines[("enclosure", "md")] == 1 + 2  # the cell's own MD line and two enclosures for 42 disks in 24 bays


# ------------------------------------------------------------------ properties over random designs

random_bricks = st.builds(
    lambda count, exp, groups, data, ports: f.brick(
        count=count,
        expansions=exp,
        storage_ports=ports,
        raid=RaidLayout(level="raid6", data=data, parity=2, groups=groups, spares=0, segment_kib=128),
    ),
    st.integers(1, 40),
    st.integers(0, 2),
    st.integers(1, 5),
    st.integers(2, 10),
    st.integers(1, 4),
)


@settings(max_examples=60, deadline=None)
@given(brick=random_bricks, failover=st.sampled_from(["none", "paired"]), extra=st.integers(1, 5))
def test_more_disks_never_give_less_capacity(brick, failover, extra):
    base = evaluate(f.design(brick, failover=failover))
    more = evaluate(f.design(_replace(brick, raid=_replace(brick.raid, data=brick.raid.data + extra)), failover=failover))
    assert more.usable_tib >= base.usable_tib
    more_groups = _replace(brick, raid=_replace(brick.raid, groups=brick.raid.groups + 1))
    assert evaluate(f.design(more_groups, failover=failover)).usable_tib >= base.usable_tib


@settings(max_examples=60, deadline=None)
@given(brick=random_bricks, failover=st.sampled_from(["none", "paired"]), extra=st.integers(1, 20), clients=st.integers(0, 50))
def test_more_bricks_never_give_less_throughput_unless_clients_cap_it(brick, failover, extra, clients):
    c = f.clients(clients) if clients else None
    base = evaluate(f.design(brick, failover=failover, clients=c))
    more = evaluate(f.design(_replace(brick, count=brick.count + extra), failover=failover, clients=c))
    for op in ("read_gbps", "write_gbps"):
        assert getattr(more, op) >= getattr(base, op) - 1e-9 or more.bottleneck[op[:-5]] == "clients"


@settings(max_examples=25, deadline=None)
@given(
    st.lists(
        st.tuples(random_bricks, st.sampled_from(["none", "paired"]), st.sampled_from(["none", "in_rack", "separate_rack"])),
        min_size=1,
        max_size=6,
    )
)
def test_batch_row_i_equals_the_single_evaluation_of_design_i(entries):
    designs = [f.design(brick, failover=failover, placement=placement) for brick, failover, placement in entries]
    together = evaluate_many(designs)
    res = evaluate_batch(BatchInput.from_designs(designs))
    for i, d in enumerate(designs):
        alone = evaluate(d).as_dict()
        assert together[i].as_dict() == alone
        assert res.total[i] == pytest.approx(alone["price"]["total"], abs=0.01)
        assert np.isclose(res.read_gbps[i], alone["read_gbps"], atol=0.01)
