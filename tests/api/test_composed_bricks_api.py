"""Bricks composed from parts through POST /api/v1/evaluate/: overrides, the kinds of storage,
refusals of what the parts cannot hold (400 naming the field and the limit), and the shipped
examples beyond the study."""

import pytest

from hardware_catalog import models as cat
from planner.services import example_designs

pytestmark = pytest.mark.django_db

URL = "/api/v1/evaluate/"
PIB = 2**50


def _post(api, spec):
    return api.post(URL, spec, format="json")


def test_grid_site_r730xd_with_16_bays_as_14_plus_2_gives_the_full_capacity(api):
    line = {
        "template": "r730xd-internal",
        "count": 20,
        "disk": "nl-sas-6tb",
        "adapter": "eth-10g",
        "adapters_per_server": 1,
        "raid": {"level": "raid6", "data": 14, "parity": 2, "groups": 1, "spares": 0},
    }
    response = _post(api, {"bricks": [line], "failover": "none", "metadata": {"placement": "none"}})
    assert response.status_code == 200, response.content
    body = response.json()
    # 20 x 14 data disks x 6 TB, less the ldiskfs overhead of 0.032 %: 1.49 PiB (was 1.07 with 12 bays as 10+2)
    assert body["usable_pib"] == pytest.approx(20 * 14 * 6e12 * (1 - 0.00032) / PIB, rel=1e-3)
    assert body["counts"]["disks"] == 320
    assert body["bricks"][0]["raid"] == {"level": "raid6", "data": 14, "parity": 2, "groups": 1, "spares": 0, "segment_kib": 128}
    # one 10GbE port per server: 10 Gb/s x 0.9415 TCP goodput / 8 = 1.18 GB/s per brick at most
    assert body["read_gbps"] <= 20 * 1.177 + 1e-6
    assert body["bottleneck"]["read"] == "network"


def test_failover_left_out_is_none_for_internal_bays_and_paired_for_shared_heads(api):
    internal = _post(api, {"bricks": [{"template": "r730xd-internal", "count": 2}], "metadata": {"placement": "none"}}).json()
    assert "Failover: none." in internal["assumptions"]
    shared = _post(api, {"bricks": [{"template": "md3460-performance", "count": 2}], "metadata": {"placement": "none"}}).json()
    assert "Failover: paired." in shared["assumptions"]


@pytest.mark.parametrize(
    "line, extra, field, words",
    [
        (
            {"template": "r730xd-internal", "count": 1, "raid": {"level": "raid6", "data": 16, "parity": 2}},
            {"failover": "none"},
            ("bricks", 0, "raid"),
            "the Dell PowerEdge R730xd holds 16 x 3.5-inch drives, this line asks for 18",
        ),
        (
            {"template": "md3460-performance", "count": 1, "raid": {"level": "raid6", "data": 8, "parity": 2, "groups": 7}},
            {},
            ("bricks", 0, "raid"),
            "the PowerVault MD3460 holds 60 x 3.5-inch drives, this line asks for 70",
        ),
        (
            {"template": "r730xd-internal", "count": 2},
            {"failover": "paired"},
            ("failover",),
            "keeps its disks inside its server: no failover partner can reach them",
        ),
        (
            {"template": "md3460-performance", "count": 1, "adapters_per_server": 2},
            {},
            ("bricks", 0, "adapters_per_server"),
            "the Dell PowerEdge R620 has 3 PCIe slots; 2 storage adapters + 2 network adapters need 4",
        ),
        (
            {"template": "md3460-performance", "count": 1, "storage_ports": 6},
            {},
            ("bricks", 0, "storage_ports"),
            "at most 4 storage ports per server",
        ),
        (
            {"template": "md3460-performance", "count": 1, "raid": {"level": "raid10", "data": 5, "parity": 4}},
            {},
            ("bricks", 0, "raid", "parity"),
            "RAID 10 mirrors every data disk: parity must equal data (5), not 4",
        ),
        (
            {"template": "md3460-performance", "count": 1, "raid": {"level": "raid6", "data": 8, "parity": 3}},
            {},
            ("bricks", 0, "raid", "parity"),
            "raid6 has 2 parity disks per group, not 3",
        ),
        (
            {"template": "md3460-performance", "count": 1, "raid": {"level": "raidz2", "data": 8}},
            {},
            ("bricks", 0, "raid", "level"),
            "raidz2 is ZFS software RAID and needs disks the server sees directly",
        ),
        (
            {"template": "iscsi-ps6500", "count": 1, "expansions": 16},
            {"failover": "none"},
            ("bricks", 0, "expansions"),
            "supports at most 15 further members, not 16",
        ),
        (
            {"template": "md3460-performance", "count": 1, "raid": {"level": "raid7"}},
            {},
            ("bricks", 0, "raid", "level"),
            "is not a valid choice",
        ),
    ],
)
def test_what_the_parts_cannot_hold_is_a_400_naming_the_field_and_the_limit(api, line, extra, field, words):
    response = _post(api, {"bricks": [line], "metadata": {"placement": "none"}, **extra})
    assert response.status_code == 400, response.content
    node = response.json()
    for key in field:
        node = node[key]
    assert any(words in message for message in node), node


def test_a_35_inch_disk_in_25_inch_bays_is_refused(api):
    head = cat.Enclosure.objects.get(slug="md3420")
    base = cat.BrickTemplate.objects.get(slug="md3460-performance")
    cat.BrickTemplate.objects.create(
        slug="md3420-test",
        name="MD3420 brick",
        server=base.server,
        hba=base.hba,
        hba_count=2,
        network_adapter=base.network_adapter,
        head=head,
        disk=cat.Disk.objects.get(slug="sas-10k-600gb"),
        raid_level="raid6",
        raid_data_disks=8,
        raid_parity_disks=2,
        groups_per_enclosure=2,
        host_ports=4,
        sources=base.sources,
    )
    response = _post(api, {"bricks": [{"template": "md3420-test", "count": 1, "disk": "nl-sas-4tb"}], "metadata": {"placement": "none"}})
    assert response.status_code == 400
    assert "a 3.5-inch disk does not fit the PowerVault MD3420's 2.5-inch bays" in response.json()["bricks"][0]["disk"]


def test_a_design_error_for_a_saved_design_names_the_spec_field(api, django_user_model):
    user = django_user_model.objects.create_user("ann", password="x")
    api.force_authenticate(user)
    response = api.post(
        "/api/v1/designs/",
        {"name": "x", "spec": {"bricks": [{"template": "r730xd-internal", "count": 1}], "failover": "paired"}},
        format="json",
    )
    assert response.status_code == 400
    assert "failover" in response.json()["spec"]


@pytest.mark.parametrize("example", [e["slug"] for e in example_designs()])
def test_every_shipped_example_evaluates_and_opens_in_the_designer(api, client, example):
    spec = next(e for e in example_designs() if e["slug"] == example)["spec"]
    response = _post(api, spec)
    assert response.status_code == 200, response.content
    body = response.json()
    assert body["usable_pib"] > 0 and body["read_gbps"] > 0 and body["write_gbps"] > 0
    page = client.get(f"/designer/?example={example}")
    assert page.status_code == 200
    assert example.encode() in page.content or spec["bricks"][0]["template"].encode() in page.content


def test_iscsi_data_movers_are_bounded_by_their_1gbe_ports_and_the_arrays(api):
    spec = next(e for e in example_designs() if e["slug"] == "iscsi-data-movers")["spec"]
    body = _post(api, spec).json()
    # each OSS: 4 x 1GbE at 0.9415 TCP goodput = 0.471 GB/s to the SAN and to the clients
    assert body["read_gbps"] <= 3 * 4 * 0.11769 + 1e-3
    stages = {s["stage"]: s for s in body["stages"]}
    assert stages["host_links"]["read_gbps"] == pytest.approx(4 * 1 * 0.9415 / 8, abs=1e-3)
    assert stages["network"]["read_gbps"] == pytest.approx(4 * 1 * 0.9415 / 8, abs=1e-3)
    assert body["bricks"][0]["kind"] == "iscsi_array"


def test_jbod_io_cell_shares_its_jbods_over_an_ha_pair_and_reports_zfs_capacity(api):
    spec = next(e for e in example_designs() if e["slug"] == "jbod-io-cell")["spec"]
    body = _post(api, spec).json()
    # 2 JBODs x 6 raidz2 vdevs of 10 x 8 TB: about 0.76 of raw as df shows it
    assert body["usable_tib"] * 2**40 / (body["raw_tb"] * 1e12) == pytest.approx(0.758, abs=0.01)
    stages = {s["stage"]: s for s in body["stages"]}
    assert stages["host_links"]["read_gbps"] == pytest.approx(2 * 4 * 12 * 0.736 / 8, abs=1e-3)  # half of 4 ports each


def test_ssd_metadata_cell_reports_four_mdts_and_their_inodes(api):
    spec = next(e for e in example_designs() if e["slug"] == "ssd-metadata-cell")["spec"]
    body = _post(api, spec).json()
    md = body["metadata"]
    assert md["mdt_count"] == 4 and md["mdt_disks"] == 42
    assert md["mdt_usable_tib"] == pytest.approx(4 * 5 * 3.84e12 / 2**40, abs=0.01)
    assert md["inodes"] == 4 * 4_000_000_000 and md["inodes_capped_by_ldiskfs"]
    lines = {(line["kind"], line["item"]): line["quantity"] for line in body["price"]["lines"]}
    assert lines[("disk", "ssd-sas-3-84tb")] == 42
    assert lines[("enclosure", "md3420")] == 2  # 42 SSDs in 24-bay enclosures


def test_the_metadata_cell_is_composed_in_the_spec(api):
    spec = {
        "bricks": [{"template": "md3460-performance", "count": 2}],
        "metadata": {
            "cell": "mds-cell",
            "placement": "in_rack",
            "mdt": {"disk": "ssd-sas-3-84tb", "disks": 42, "raid": {"level": "raid10", "data": 5, "groups": 4}, "mdts": 4},
        },
    }
    response = _post(api, spec)
    assert response.status_code == 200, response.content
    md = response.json()["metadata"]
    assert md["mdt_count"] == 4 and md["mdt_disks"] == 42 and md["mdt_raid"]["parity"] == 5
    assert md["mdt_usable_tib"] == pytest.approx(4 * 5 * 3.84e12 / 2**40, abs=0.01)
    bad = {
        **spec,
        "metadata": {
            **spec["metadata"],
            "mdt": {"disk": "ssd-sas-3-84tb", "disks": 30, "raid": {"level": "raid10", "data": 5, "groups": 4}},
        },
    }
    response = _post(api, bad)
    assert response.status_code == 400
    assert "4 x 5+5 needs 40 disks, not 30" in response.json()["metadata"]["mdt"]["disks"]
    big = {**spec, "metadata": {**spec["metadata"], "mdt": {"disk": "nl-sas-4tb"}}}
    response = _post(api, big)
    assert "a 3.5-inch disk does not fit the PowerVault MD3420's 2.5-inch bays" in response.json()["metadata"]["mdt"]["disk"]
