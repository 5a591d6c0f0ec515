"""A design as DCIM inventory: names, U positions, device types and cables, checked by hand against the
study's rack B (six MD3460 performance bricks in HA pairs, the metadata cell in the rack)."""

from collections import Counter

import pytest

from dcim.inventory import default_prefix, inventory_for_design, inventory_for_spec
from planner.services.evaluation import design_evaluate

pytestmark = pytest.mark.django_db

STUDY_B = {
    "name": "Study rack B: performance, metadata in the rack",
    "bricks": [{"template": "md3460-performance", "count": 6, "disk": "nl-sas-4tb"}],
    "metadata": {"cell": "mds-cell", "placement": "in_rack"},
}


def _cable_ends(inv):
    return Counter(end for c in inv.cables for end in ((c.a_device, c.a_interface), (c.b_device, c.b_interface)))


def _check_cables(inv):
    """Every cable end is an interface of that device's type, and no interface has two cables."""
    types = {t.slug: t for t in inv.device_types}
    devices = {d.name: d for d in inv.devices}
    for cable in inv.cables:
        for device, iface in ((cable.a_device, cable.a_interface), (cable.b_device, cable.b_interface)):
            assert types[devices[device].device_type].interface(iface) is not None, (device, iface)
    assert max(_cable_ends(inv).values()) == 1


def test_prefix_from_design_name():
    assert default_prefix("Study rack B: performance, metadata in the rack") == "study-rack-b"
    assert default_prefix("") == "design"
    assert default_prefix("!!!") == "design"


def test_study_rack_b_devices_and_positions():
    inv = inventory_for_spec(STUDY_B)
    assert inv.prefix == "study-rack-b"
    assert [(r.name, r.u_height) for r in inv.racks] == [("study-rack-b-rack1", 42)]
    where = {d.name: (d.position, d.face, d.role) for d in inv.devices}
    # bricks from U1 up: MD3460 (4U) then its R620 (1U), 5U a brick
    for n in range(1, 7):
        base = 1 + 5 * (n - 1)
        assert where[f"study-rack-b-raid0{n}"] == (base, "front", "RAID enclosure")
        assert where[f"study-rack-b-oss0{n}"] == (base + 4, "front", "Storage server")
    # the metadata cell above them (30U of bricks): 2 MDS, MGS, management server, MD3420 (2U)
    assert [where[f"study-rack-b-{n}"][0] for n in ("mds1", "mds2", "mgs1", "mgmt1", "mdt1")] == [31, 32, 33, 34, 35]
    assert where["study-rack-b-mdt1"][2] == "Metadata storage"
    # switches at the top: the InfiniBand leaf in U42, the management switch under it; PDUs 0U at the rear
    assert where["study-rack-b-rack1-sw-ib1"] == (42, "front", "Switch")
    assert where["study-rack-b-rack1-sw-eth1"] == (41, "front", "Switch")
    assert where["study-rack-b-rack1-pdu-a"] == (None, "rear", "PDU")
    assert where["study-rack-b-rack1-pdu-b"] == (None, "rear", "PDU")
    assert len(inv.devices) == 6 + 6 + 5 + 2 + 2
    assert {d.status for d in inv.devices} == {"planned"}
    # HA pairs: bricks 1+2, 3+4, 5+6
    tags = {d.name: d.tags for d in inv.devices}
    assert tags["study-rack-b-oss01"] == tags["study-rack-b-raid02"] == ("ha-1",)
    assert tags["study-rack-b-oss06"] == ("ha-3",)
    assert tags["study-rack-b-mds1"] == ()


def test_study_rack_b_device_types():
    inv = inventory_for_spec(STUDY_B)
    assert inv.manufacturers == ("APC", "Dell", "Mellanox")
    oss = inv.device_type(inv.device("study-rack-b-oss01").device_type)
    assert oss.manufacturer == "Dell" and oss.u_height == 1.0 and oss.weight == 19.9 and oss.weight_unit == "kg"
    names = {i.name: i for i in oss.interfaces}
    # two dual-port SAS HBAs (4 ports, all used), one FDR HCA port, a management port
    assert sorted(names) == ["ib1-1", "mgmt", "sas1-1", "sas1-2", "sas2-1", "sas2-2"]
    assert names["ib1-1"].type == "infiniband-fdr"
    assert names["sas1-1"].type == "other"  # no SAS type in NetBox or Nautobot: said in the comments
    assert "no SAS interface type" in oss.comments
    assert names["mgmt"].mgmt_only and names["mgmt"].type == "1000base-t"
    assert "reference study" in oss.comments  # the catalogue's source notes travel with the type
    head = inv.device_type("dell-powervault-md3460")
    assert head.model == "PowerVault MD3460" and head.u_height == 4.0 and head.catalogue_slug == "md3460"
    host = [i.name for i in head.interfaces if "host" in i.name]
    assert len(host) == 8  # 4 SAS host ports per controller (catalogue: 8 uplink ports, 2 controllers)
    assert {"ctrl0-exp", "ctrl1-exp", "ctrl0-mgmt", "ctrl1-mgmt"} <= {i.name for i in head.interfaces}
    ib = inv.device_type("mellanox-sx6036")
    assert len([i for i in ib.interfaces if i.name.startswith("port")]) == 36
    assert {i.type for i in ib.interfaces if i.name.startswith("port")} == {"infiniband-fdr"}
    pdu = inv.device_type(inv.device("study-rack-b-rack1-pdu-a").device_type)
    assert pdu.u_height == 0 and pdu.power_ports[0].type == "iec-60309-3p-n-e-6h"
    assert pdu.power_ports[0].maximum_draw == 3 * 230 * 32


def test_study_rack_b_cables_match_the_bill_of_materials():
    inv = inventory_for_spec(STUDY_B)
    _check_cables(inv)
    kinds = Counter(c.kind for c in inv.cables)
    # 6 OSS x 4 SAS ports; 6 FDR ports; 10 servers + 6 MD3460 and 1 MD3420 x 2 controllers + the IB switch
    assert kinds == {"storage": 24, "network": 6, "management": 10 + 7 * 2 + 1}
    lines = {line["item"]: line["quantity"] for line in design_evaluate(spec=STUDY_B).price["lines"]}
    # + the metadata cell's cables, one per adapter port (3 dual-port SAS HBAs, 3 FDR HCAs), in the bill, not exported
    assert lines["cable-sas-hd-2m"] == kinds["storage"] + 3 * 2
    assert lines["cable-ib-qsfp-3m"] == kinds["network"] + 4 + 3  # + the rack's 4 uplinks to the core, not exported
    assert any("data cables (in the bill of materials, one per adapter port) are not exported" in note for note in inv.notes)
    assert any("uplinks" in note for note in inv.notes)
    assert any("does not count them" in note for note in inv.notes)
    # HA pair: each OSS gives half its SAS ports to its own head, half to its partner's, over both controllers
    oss1 = sorted(
        (c.a_interface, c.b_device, c.b_interface) for c in inv.cables if c.a_device == "study-rack-b-oss01" and c.kind == "storage"
    )
    assert oss1 == [
        ("sas1-1", "study-rack-b-raid01", "ctrl0-host0"),
        ("sas1-2", "study-rack-b-raid02", "ctrl0-host0"),
        ("sas2-1", "study-rack-b-raid01", "ctrl1-host0"),
        ("sas2-2", "study-rack-b-raid02", "ctrl1-host0"),
    ]
    net = [c for c in inv.cables if c.kind == "network"]
    assert {c.b_device for c in net} == {"study-rack-b-rack1-sw-ib1"} and {c.type for c in net} == {"dac-passive"}
    sas = next(c for c in inv.cables if c.kind == "storage")
    assert sas.length == 2.0 and sas.type == ""  # no SAS cable type in the DCIM tools


def test_expansion_enclosures_are_daisy_chained():
    inv = inventory_for_spec({"name": "Study rack A", "bricks": [{"template": "md3460-capacity", "count": 2}]})
    _check_cables(inv)
    where = {d.name: d.position for d in inv.devices}
    # MD3460 U1, MD3060e U5 and U9, R620 U13; the second brick from U14
    assert [where[n] for n in ("study-rack-a-raid01", "study-rack-a-exp01-1", "study-rack-a-exp01-2", "study-rack-a-oss01")] == [
        1,
        5,
        9,
        13,
    ]
    assert where["study-rack-a-raid02"] == 14
    assert inv.device("study-rack-a-exp01-1").role == "Expansion enclosure"
    chain = sorted((c.a_device, c.a_interface, c.b_device, c.b_interface) for c in inv.cables if c.kind == "expansion")
    assert len(chain) == 2 * 2 * 2  # 2 bricks x 2 expansions x 2 paths, as the BOM counts them
    assert ("study-rack-a-raid01", "ctrl0-exp", "study-rack-a-exp01-1", "emm0-in") in chain
    assert ("study-rack-a-exp01-1", "emm1-out", "study-rack-a-exp01-2", "emm1-in") in chain
    lines = {
        line["item"]: line["quantity"]
        for line in design_evaluate(spec={"bricks": [{"template": "md3460-capacity", "count": 2}]}).price["lines"]
    }
    # + 6 for the metadata cell's three dual-port SAS HBAs (in the bill, not exported)
    assert lines["cable-sas-hd-2m"] - 3 * 2 == sum(1 for c in inv.cables if c.kind in ("storage", "expansion")) == 8 + 8


def test_standby_server_and_several_racks():
    spec = {"name": "Big", "bricks": [{"template": "md3460-performance", "count": 9}], "metadata": {"placement": "none"}}
    inv = inventory_for_spec(spec)
    _check_cables(inv)
    # 8 bricks of 5U fill rack 1 under its 2U of switches; brick 9 and the standby server go to rack 2
    assert [r.name for r in inv.racks] == ["big-rack1", "big-rack2"]
    standby = inv.device("big-oss09-standby")
    assert standby.rack == "big-rack2" and standby.tags == ("ha-5",) and inv.device("big-oss09").tags == ("ha-5",)
    assert inv.device("big-raid09").position == 1 and inv.device("big-oss09").position == 5 and standby.position == 6
    # brick 9 has no partner brick: its OSS and the standby each give all 4 ports to its head (8 of 8)
    to_head9 = [c for c in inv.cables if c.b_device == "big-raid09" and c.kind == "storage"]
    assert Counter(c.a_device for c in to_head9) == {"big-oss09": 4, "big-oss09-standby": 4}
    # each OSS goes to the InfiniBand switch of its own rack
    net = {c.a_device: c.b_device for c in inv.cables if c.kind == "network"}
    assert net["big-oss01"] == "big-rack1-sw-ib1" and net["big-oss09"] == net["big-oss09-standby"] == "big-rack2-sw-ib1"
    lines = {line["item"]: line["quantity"] for line in design_evaluate(spec=spec).price["lines"]}
    assert lines["cable-sas-hd-2m"] == sum(1 for c in inv.cables if c.kind == "storage") == 10 * 4
    assert lines["cable-ib-qsfp-3m"] == sum(1 for c in inv.cables if c.kind == "network") + 2 * 4 == 10 + 8


def test_names_stay_when_the_design_grows():
    small = inventory_for_spec(
        {"name": "Grow", "bricks": [{"template": "md3460-performance", "count": 8}], "metadata": {"placement": "none"}}
    )
    large = inventory_for_spec(
        {"name": "Grow", "bricks": [{"template": "md3460-performance", "count": 12}], "metadata": {"placement": "none"}}
    )
    before = {d.name: (d.device_type, d.rack, d.position) for d in small.devices}
    after = {d.name: (d.device_type, d.rack, d.position) for d in large.devices}
    assert set(before) <= set(after)
    assert all(after[name] == before[name] for name in before)


def test_links_without_a_switch_are_left_out_and_said():
    spec = {
        "name": "Ten gig",
        "bricks": [{"template": "r730xd-internal", "count": 2, "adapter": "eth-10g"}],
        "failover": "none",
        "metadata": {"placement": "none"},
    }
    inv = inventory_for_spec(spec)
    _check_cables(inv)
    server = inv.device_type(inv.device("ten-gig-oss01").device_type)
    assert {i.name: i.type for i in server.interfaces} == {"mgmt": "1000base-t", "eth1-1": "10gbase-x-sfpp"}
    assert not [c for c in inv.cables if c.kind == "network"]
    assert any("2 cables left out: no switch of the rack model takes the 10 Gb/s ethernet" in note for note in inv.notes)


def test_inventory_for_a_saved_design(django_user_model):
    from planner.services.designs import design_create

    owner = django_user_model.objects.create_user("ann", password="pw-123456789")
    design = design_create(owner=owner, name="Saved B", spec={k: v for k, v in STUDY_B.items() if k != "name"})
    inv = inventory_for_design(design)
    assert inv.design_name == "Saved B" and inv.prefix == "saved-b"
    assert inventory_for_design(design, prefix="lustre1").devices[0].name == "lustre1-raid01"


def test_jbod_pair_and_infiniband_faster_than_the_switch():
    spec = {"name": "Zfs", "bricks": [{"template": "jbod-zfs", "count": 2}], "metadata": {"placement": "none"}}
    inv = inventory_for_spec(spec)
    _check_cables(inv)
    assert inv.device("zfs-jbod01").role == "JBOD"
    # each OSS: 2 of its 4 SAS ports to its own JBOD, 2 to its partner's: the JBOD's 4 host ports all used
    to_jbod1 = Counter(c.a_device for c in inv.cables if c.b_device == "zfs-jbod01")
    assert to_jbod1 == {"zfs-oss01": 2, "zfs-oss02": 2}
    # EDR HCAs (103.125 Gb/s) cabled to the rack's FDR switch, said in the notes
    net = [c for c in inv.cables if c.kind == "network"]
    assert len(net) == 2 and {c.b_device for c in net} == {"zfs-rack1-sw-ib1"}
    server = inv.device_type(inv.device("zfs-oss01").device_type)
    assert server.interface("ib1-1").type == "infiniband-edr"
    assert any("2 InfiniBand links of 103.125 Gb/s" in note and "56 Gb/s" in note for note in inv.notes)


def test_jbod_line_with_a_standby_server_splits_the_jbods_host_ports_and_matches_the_bill_of_materials():
    """Three JBOD bricks under HA pairing: the third has no partner and gets a standby server. The JBOD has
    4 host ports and each OSS 4 SAS ports: the lone OSS and the standby take 2 each (they were counted as
    4 + 4 = 8 cables into 4 ports, and the standby's 4 could not be placed)."""
    spec = {"name": "Zfs3", "bricks": [{"template": "jbod-zfs", "count": 3}], "metadata": {"placement": "none"}, "failover": "paired"}
    inv = inventory_for_spec(spec)
    _check_cables(inv)
    to_jbod3 = Counter(c.a_device for c in inv.cables if c.b_device == "zfs3-jbod03" and c.kind == "storage")
    assert to_jbod3 == {"zfs3-oss03": 2, "zfs3-oss03-standby": 2}
    storage = sum(1 for c in inv.cables if c.kind == "storage")
    assert storage == 3 * 4  # every JBOD's 4 host ports, no more
    evaluation = design_evaluate(spec=spec)
    lines = {line["item"]: line["quantity"] for line in evaluation.price["lines"]}
    sas_cable = next(line["item"] for line in evaluation.price["lines"] if line["kind"] == "accessory" and "sas" in line["item"])
    assert lines[sas_cable] == storage, lines
    assert not [n for n in inv.notes if "no free port" in n or "cannot" in n.lower()], inv.notes
