"""POST /api/v1/evaluate/: the study's figures through the API, and field-level 400s for bad specs."""

import pytest

from tests.helpers import rack_spec, short_errors

pytestmark = pytest.mark.django_db

URL = "/api/v1/evaluate/"


@pytest.mark.parametrize("rack_id", list("ABCDEF"))
def test_evaluate_reproduces_the_reference_racks(api, study, rack_id):
    row = next(r for r in study["racks"] if r["id"] == rack_id)
    tol = study["tolerance"]
    response = api.post(URL, rack_spec(row), format="json")
    assert response.status_code == 200, response.content
    body = response.json()
    assert body["usable_pib"] == pytest.approx(row["usable_pib"], rel=tol["usable_pib_relative"])
    assert body["read_gbps"] == pytest.approx(row["gbps"], rel=tol["gbps_relative"])
    assert body["write_gbps"] == pytest.approx(row["gbps"], rel=tol["gbps_relative"])
    assert body["rack_count"] == 1
    assert body["bottleneck"] == {
        "read": "raid_controller",
        "write": "raid_controller",
        "read_label": "RAID controllers",
        "write_label": "RAID controllers",
    }


@pytest.mark.parametrize(
    "template, label",
    [("jbod-zfs", "Software RAID (servers)"), ("iscsi-ps6500", "Array controllers"), ("r730xd-internal", "Server's RAID controller")],
)
def test_the_raid_stage_is_named_for_what_does_the_raid(api, template, label):
    """A ZFS JBOD has no RAID controllers: its RAID stage is the servers' software RAID (it used to read
    'limited by RAID controllers'); a SAN array's is its controllers, a server's own bays its RAID card."""
    body = api.post(URL, {"bricks": [{"template": template, "count": 2}]}, format="json").json()
    raid = [s for s in body["stages"] if s["stage"] == "raid_controller"]
    assert raid and all(s["label"] == label for s in raid)
    for op in ("read", "write"):
        expected = label if body["bottleneck"][op] == "raid_controller" else None
        if expected:
            assert body["bottleneck"][f"{op}_label"] == expected
            assert body["bricks"][0]["bottleneck"][f"{op}_label"] == expected


def test_evaluate_relative_price_pairs_through_the_api(api, study):
    rows = {r["id"]: r for r in study["racks"]}
    totals = {k: api.post(URL, rack_spec(r), format="json").json()["price"]["total"] for k, r in rows.items()}
    assert totals["A"] / totals["B"] == pytest.approx(0.65, abs=0.03)
    assert totals["C"] / totals["D"] == pytest.approx(0.65, abs=0.03)
    assert totals["E"] / totals["F"] == pytest.approx(0.65, abs=0.05)


def test_evaluate_returns_the_contract_fields(api):
    body = api.post(URL, {"bricks": [{"template": "md3460-performance", "count": 8}]}, format="json").json()
    for key in (
        "usable_pib",
        "usable_tib",
        "raw_tb",
        "read_gbps",
        "write_gbps",
        "bottleneck",
        "stages",
        "price",
        "rack_count",
        "racks",
        "counts",
        "warnings",
    ):
        assert key in body
    assert set(body["price"]) >= {"total", "currency", "capex", "opex", "lines"}
    assert body["price"]["currency"] == "USD"
    assert set(body["counts"]) >= {"bricks", "servers", "enclosures", "disks", "osts"}
    assert body["racks"][0]["items"][0] == {**body["racks"][0]["items"][0], "u": 1}
    stage = body["stages"][0]
    assert set(stage) >= {"brick", "stage", "read_gbps", "write_gbps"}
    assert any("illustrative" in w for w in body["warnings"])


def test_evaluate_defaults_fill_everything_but_bricks(api):
    body = api.post(URL, {"bricks": [{"template": "md3460-capacity", "count": 1}]}, format="json").json()
    assert body["counts"]["servers"] == 1 + 1 + 4  # paired by default: a standby; metadata cell in the rack by default
    assert body["price"]["price_list"] == "illustrative"
    assert body["degraded"]["failover"] == "paired"  # the automatic failover, as resolved
    internal = api.post(URL, {"bricks": [{"template": "r730xd-internal", "count": 2}]}, format="json").json()
    assert internal["degraded"]["failover"] == "none"  # no partner can reach disks inside a server


@pytest.mark.parametrize(
    "spec, expected",
    [
        ({"bricks": [{"template": "md3460-performance", "count": 0}]}, {"bricks": [{"count": ["must be between 1 and 500"]}]}),
        ({"bricks": [{"template": "md3460-performance", "count": -3}]}, {"bricks": [{"count": ["must be between 1 and 500"]}]}),
        ({"bricks": [{"template": "md3460-performance", "count": 10**9}]}, {"bricks": [{"count": ["must be between 1 and 500"]}]}),
        ({"bricks": [{"template": "md3460-performance", "count": "many"}]}, {"bricks": [{"count": ["A valid integer is required."]}]}),
        ({"bricks": [{"template": "no-such-brick", "count": 1}]}, {"bricks": [{"template": ["unknown brick template 'no-such-brick'"]}]}),
        ({"bricks": [{"template": "md3460-performance", "count": 1, "disk": "floppy"}]}, {"bricks": [{"disk": ["unknown disk 'floppy'"]}]}),
        (
            {"bricks": [{"template": "md3460-performance", "count": 1, "expansions": 5}]},
            {"bricks": [{"expansions": ["the PowerVault MD3460 supports at most 2 expansion enclosures, not 5"]}]},
        ),
        (
            {"bricks": [{"template": "md3460-performance", "count": 1, "adapter": "sas-hba-12g"}]},
            {"bricks": [{"adapter": ["'sas-hba-12g' is a SAS HBA, not a network adapter"]}]},
        ),
        ({}, {"bricks": ["This field is required."]}),
        ({"bricks": []}, {"bricks": ["This list may not be empty."]}),
        ({"bricks": "eight"}, {"bricks": ['Expected a list of items but got type "str".']}),
        ({"bricks": [{"template": "md3460-performance", "count": 1}], "rack": "rack-99u"}, {"rack": ["unknown rack 'rack-99u'"]}),
        ({"bricks": [{"template": "md3460-performance", "count": 1}], "tuning": "turbo"}, {"tuning": ["unknown tuning profile 'turbo'"]}),
        (
            {"bricks": [{"template": "md3460-performance", "count": 1}], "failover": "maybe"},
            {"failover": ['"maybe" is not a valid choice.']},
        ),
        (
            {"bricks": [{"template": "md3460-performance", "count": 1}], "metadata": {"placement": "attic"}},
            {"metadata": {"placement": ['"attic" is not a valid choice.']}},
        ),
        ({"bricks": [{"template": "md3460-performance", "count": 1}], "price_list": "gold"}, {"price_list": ["unknown price list 'gold'"]}),
        (
            {"bricks": [{"template": "md3460-performance", "count": 1}], "clients": {"count": 10, "adapter": "pigeon"}},
            {"clients": {"adapter": ["unknown network adapter 'pigeon'"]}},
        ),
        (
            {"bricks": [{"template": "md3460-performance", "count": 1}], "colour": "blue"},
            {
                "colour": [
                    "unknown field; expected one of: name, bricks, metadata, rack, tuning, failover, clients, fabric, price_list, calibration"
                ]
            },
        ),
    ],
)
def test_evaluate_rejects_bad_specs_with_field_messages(api, spec, expected):
    response = api.post(URL, spec, format="json")
    assert response.status_code == 400
    assert short_errors(response.json()) == expected


@pytest.mark.parametrize(
    "spec, field_path",
    [
        ({"bricks": [{"template": "md3460-capacity", "count": 2, "expansion": 0}]}, ("bricks", 0, "expansion")),
        ({"bricks": [{"template": "md3460-capacity", "count": 2}], "metadata": {"placement": "none", "extra": 1}}, ("metadata", "extra")),
        (
            {"bricks": [{"template": "md3460-capacity", "count": 2}], "clients": {"count": 2, "adapter": "ib-fdr", "speed": 9}},
            ("clients", "speed"),
        ),
    ],
)
def test_evaluate_refuses_unknown_nested_fields_instead_of_ignoring_them(api, spec, field_path):
    body = api.post(URL, spec, format="json").json()
    node = body
    for key in field_path:
        node = node[key]
    assert node[0].startswith("unknown field; expected one of:")


def test_evaluate_clients_must_have_a_network_adapter(api):
    spec = {"bricks": [{"template": "md3460-capacity", "count": 2}], "clients": {"count": 1, "adapter": "sas-hba-12g"}}
    body = api.post(URL, spec, format="json").json()
    assert body["clients"]["adapter"][0].startswith("'sas-hba-12g' is a SAS HBA, not a network adapter; network adapters: eth-100g")


def test_evaluate_unknown_slugs_list_the_choices(api):
    body = api.post(URL, {"bricks": [{"template": "md3460-performance", "count": 1}], "rack": "rack-99u"}, format="json").json()
    assert body == {"rack": ["unknown rack 'rack-99u'; known: rack-42u, rack-42u-eth100, rack-48u"]}
    long_slug = "x" * 80
    body = api.post(URL, {"bricks": [{"template": long_slug, "count": 1}]}, format="json").json()
    assert len(body["bricks"][0]["template"][0]) < 300


def test_evaluate_answers_without_the_trailing_slash(api):
    response = api.post("/api/v1/evaluate", {"bricks": [{"template": "md3460-performance", "count": 1}]}, format="json")
    assert response.status_code == 200
    assert api.get("/api/v1/catalogue/disks").status_code == 200


def test_unknown_api_paths_answer_json_404(api):
    response = api.get("/api/v1/catalogue/floppies/")
    assert response.status_code == 404 and "No API endpoint" in response.json()["detail"]


def test_evaluate_deeply_nested_json_is_a_400_not_a_500(api):
    body = '{"bricks":' + "[" * 5000 + "]" * 5000 + "}"
    response = api.post(URL, body, content_type="application/json")
    assert response.status_code == 400
    assert "nested too deeply" in response.json()["detail"]


def test_evaluate_refuses_specs_too_large_to_evaluate_quickly(api):
    spec = {"bricks": [{"template": "md3460-performance", "count": 500}] * 5}
    response = api.post(URL, spec, format="json")
    assert response.status_code == 400
    assert "too large to evaluate quickly" in response.json()["bricks"][0]


@pytest.mark.parametrize("body", ["not json", "[1, 2]", "null", '{"bricks": [null]}', '{"bricks": [{"template": 7, "count": 1.5}]}'])
def test_evaluate_never_500s_on_garbage(api, body):
    response = api.post(URL, body, content_type="application/json")
    assert response.status_code == 400


def test_evaluate_is_open_to_anonymous_users_and_stores_nothing(api, django_assert_max_num_queries):
    with django_assert_max_num_queries(40):
        response = api.post(URL, {"bricks": [{"template": "md3460-performance", "count": 2}]}, format="json")
    assert response.status_code == 200


def test_evaluate_refuses_oversized_bodies_with_413(api):
    body = '{"bricks": [{"template": "md3460-performance", "count": 1}], "name": "' + "x" * (2 * 1024 * 1024) + '"}'
    response = api.post(URL, body, content_type="application/json")
    assert response.status_code == 413
    assert "limit" in response.json()["detail"]


def test_a_null_character_in_a_query_is_a_400_object(api):
    response = api.get("/api/v1/catalogue/servers/", {"search": "a\x00b"})
    assert response.status_code == 400 and response.json() == {"detail": "Null characters are not allowed."}


def test_odd_api_paths_with_control_characters_answer_json_404(api):
    response = api.get("/api/v1/exports/%C2%AA%12e%0A%07I/download/")
    assert response.status_code == 404 and response["Content-Type"] == "application/json"


def test_an_adapter_faster_than_the_racks_leaf_switch_is_warned_about_and_the_figures_are_kept(api):
    """The jbod-zfs template has EDR HCAs; the catalogue's racks carry an FDR leaf switch (SX6036)."""
    edr = api.post(URL, {"bricks": [{"template": "jbod-zfs", "count": 2}], "metadata": {"placement": "none"}}, format="json").json()
    notes = [w for w in edr["warnings"] if "train down" in w]
    assert len(notes) == 1, edr["warnings"]
    assert "103.125 Gb/s" in notes[0] and "56 Gb/s" in notes[0]
    # the EDR card's own line code and protocol figures at the switch's rate: 56 x 0.9697 x 0.976 / 8; at its own, 103.125 x ...
    assert "6.6 GB/s an adapter instead of 12.2" in notes[0]
    as_fdr = api.post(
        URL, {"bricks": [{"template": "jbod-zfs", "count": 2, "adapter": "ib-fdr"}], "metadata": {"placement": "none"}}, format="json"
    ).json()
    assert not [w for w in as_fdr["warnings"] if "train down" in w]
    edr_net = next(s for s in edr["stages"] if s["stage"] == "network")
    fdr_net = next(s for s in as_fdr["stages"] if s["stage"] == "network")
    assert edr_net["read_gbps"] > 1.8 * fdr_net["read_gbps"]  # not capped: the warning says so instead


def _network_stage(body):
    return next(s for s in body["stages"] if s["stage"] == "network")


def test_a_newer_pcie_card_in_an_older_servers_slot_works_at_the_slots_rate(api):
    """An HDR HCA is a PCIe 4.0 x16 card (26 GB/s usable); the R6415 of the jbod-zfs template has PCIe
    3.0 slots: 26 x 0.985 / 1.969 = 13.0 GB/s, not the 21.25 of its 200 Gb/s port."""
    spec = {"bricks": [{"template": "jbod-zfs", "count": 2, "adapter": "ib-hdr"}], "metadata": {"placement": "none"}}
    body = api.post(URL, spec, format="json").json()
    assert _network_stage(body)["read_gbps"] == pytest.approx(13.0, abs=0.01)
    notes = [w for w in body["warnings"] if "PCIe 4.0 x16" in w]
    assert len(notes) == 1 and "PCIe 3.0" in notes[0] and "13.0 GB/s, not 21.2" in notes[0], body["warnings"]
    # and an FDR card (PCIe 3.0 x8) in the R510's PCIe 2.0 slots: 6.0 x 0.5 / 0.985
    r510 = api.post(
        URL, {"bricks": [{"template": "r510-internal", "count": 2, "adapter": "ib-fdr"}], "metadata": {"placement": "none"}}, format="json"
    ).json()
    assert _network_stage(r510)["read_gbps"] == pytest.approx(6.0 * 0.5 / (128 / 130), abs=0.01)
    # a card of the server's own generation is left alone
    edr = api.post(URL, {"bricks": [{"template": "jbod-zfs", "count": 2}], "metadata": {"placement": "none"}}, format="json").json()
    assert not [w for w in edr["warnings"] if "PCIe" in w]


def test_network_adapters_without_a_switch_of_their_kind_in_the_rack_are_warned_about(api):
    """Ethernet adapters in a rack model whose data switch is InfiniBand: the bill buys no switch for
    them. The 100GbE rack model carries one (and then warns about InfiniBand HCAs instead)."""
    eth = {"bricks": [{"template": "jbod-zfs", "count": 2, "adapter": "eth-100g"}], "metadata": {"placement": "none"}}
    body = api.post(URL, eth, format="json").json()
    notes = [w for w in body["warnings"] if "needs an Ethernet switch" in w]
    assert len(notes) == 1 and "at least 100 Gb/s" in notes[0] and "42U rack, 100GbE" in notes[0], body["warnings"]
    in_eth_rack = api.post(URL, {**eth, "rack": "rack-42u-eth100"}, format="json").json()
    assert not [w for w in in_eth_rack["warnings"] if "needs an" in w]
    switches = {line["item"] for line in in_eth_rack["price"]["lines"] if line["kind"] == "switch"}
    assert switches == {"eth-sn2700", "eth-n2048"}
    ib_in_eth_rack = api.post(
        URL,
        {"bricks": [{"template": "md3460-performance", "count": 2}], "metadata": {"placement": "none"}, "rack": "rack-42u-eth100"},
        format="json",
    ).json()
    assert [w for w in ib_in_eth_rack["warnings"] if "needs an InfiniBand switch" in w], ib_in_eth_rack["warnings"]
    # 4 x 1 GbE to the clients (the iSCSI brick): the rack's 1 GbE switch manages servers, it is not a data switch
    iscsi = {"bricks": [{"template": "iscsi-ps6500", "count": 2}], "metadata": {"placement": "none"}}
    body = api.post(URL, iscsi, format="json").json()
    assert [w for w in body["warnings"] if "needs an Ethernet switch for data" in w and "42U rack, 100GbE" in w], body["warnings"]
    in_eth_rack = api.post(URL, {**iscsi, "rack": "rack-42u-eth100"}, format="json").json()
    assert not [w for w in in_eth_rack["warnings"] if "needs an" in w]


def test_a_line_of_internal_bays_beside_shared_storage_leaves_the_other_lines_paired(api):
    """Failover left out: paired where a partner can reach the storage, per line. Three MD3460 bricks
    keep their HA pairs and standby server when an R730xd line (internal bays) joins them; the R730xd
    brick is the one left unpaired, and the design says so."""
    md = {"bricks": [{"template": "md3460-performance", "count": 3}], "metadata": {"placement": "none"}}
    alone = api.post(URL, md, format="json").json()
    mixed_spec = {"bricks": [*md["bricks"], {"template": "r730xd-internal", "count": 1}], "metadata": {"placement": "none"}}
    mixed = api.post(URL, mixed_spec, format="json").json()
    assert alone["counts"]["servers"] == 4  # 3 OSS + a standby for the odd line
    assert mixed["counts"]["servers"] == 5  # ... + the R730xd, and the standby stays
    assert mixed["degraded"]["failover"] == "paired" and "internal bays" in mixed["degraded"]["scenario"]
    tags = {(item["item"], item["pair"]) for rack in mixed["racks"] for item in rack["items"] if item["kind"] == "server"}
    assert all(pair is None for item, pair in tags if item == "r730xd"), tags
    assert any(pair for item, pair in tags if item == "r620"), tags
    assert [w for w in mixed["warnings"] if "not paired" in w], mixed["warnings"]
    # one server down, the worst line: the R730xd brick's whole throughput, or what an MD3460 pair loses
    r730 = next(b for b in mixed["bricks"] if b["template"] == "r730xd-internal")
    md_pair_loss = alone["read_gbps"] - alone["degraded"]["read_gbps"]
    assert mixed["degraded"]["read_gbps"] == pytest.approx(mixed["read_gbps"] - max(r730["read_gbps"], md_pair_loss), abs=0.02)
    # asking for `paired` is the same; refused only where no line can pair
    explicit = api.post(URL, {**mixed_spec, "failover": "paired"}, format="json")
    assert explicit.status_code == 200 and explicit.json()["counts"]["servers"] == 5
    only_internal = {"bricks": [{"template": "r730xd-internal", "count": 2}], "failover": "paired", "metadata": {"placement": "none"}}
    assert api.post(URL, only_internal, format="json").status_code == 400


def test_the_metadata_cells_adapters_get_their_cables_and_its_disks_sit_in_its_enclosure(api):
    """The mds-cell buys 3 dual-port SAS HBAs and 3 FDR HCAs: the bill counts a cable per port used, as
    for the bricks' adapters; in the rack, its 24 MDT disks add to the MD3420 that holds them."""

    def lines(placement):
        body = api.post(
            URL, {"bricks": [{"template": "md3460-capacity", "count": 3}], "metadata": {"placement": placement}}, format="json"
        ).json()
        return body, {line["item"]: line["quantity"] for line in body["price"]["lines"]}

    plain, without = lines("none")
    body, with_cell = lines("in_rack")
    assert with_cell["cable-sas-hd-2m"] - without["cable-sas-hd-2m"] == 3 * 2
    # 4 uplinks a rack to the core; the cell may need a rack more
    assert with_cell["cable-ib-qsfp-3m"] - 4 * body["rack_count"] - (without["cable-ib-qsfp-3m"] - 4 * plain["rack_count"]) == 3
    items = [item for rack in body["racks"] for item in rack["items"] if item["group"] == "metadata"]
    md3420 = next(item for item in items if item["item"] == "md3420")
    disk_w = next(line for line in body["price"]["lines"] if line["item"] == "sas-15k-300gb")
    assert disk_w["quantity"] == 24
    mds = [item for item in items if item["kind"] == "server"]
    assert len({item["power_w"] for item in mds}) == 1  # the adapters shared by the servers, not all on the first
    assert md3420["power_w"] > max(item["power_w"] for item in mds)  # 200 W + 24 disks


def test_an_ha_pair_split_over_two_racks_is_warned_about(api):
    """Capacity bricks are 13U: three fill a 42U rack under its switches, so the second HA pair (bricks 3
    and 4) spans racks 1 and 2 and its cross-cabled SAS links run between racks."""
    body = api.post(URL, {"bricks": [{"template": "md3460-capacity", "count": 8}], "metadata": {"placement": "none"}}, format="json").json()
    notes = [w for w in body["warnings"] if "span" in w and "HA pair" in w]
    assert len(notes) == 1 and "HA 2 in racks 1 and 2" in notes[0], body["warnings"]
    perf = api.post(
        URL, {"bricks": [{"template": "md3460-performance", "count": 8}], "metadata": {"placement": "none"}}, format="json"
    ).json()
    assert not [w for w in perf["warnings"] if "HA pair" in w]


def test_a_rack_needing_more_switch_ports_than_its_switch_has_is_warned_about(api):
    """20 R730xd bricks with two FDR HCAs each fill a 42U rack: 40 adapter ports + 4 uplinks against the
    SX6036's 36 ports. With one HCA each they fit (24)."""
    two = {"bricks": [{"template": "r730xd-internal", "count": 20, "adapters_per_server": 2}], "metadata": {"placement": "none"}}
    body = api.post(URL, two, format="json").json()
    notes = [w for w in body["warnings"] if "switch ports" in w]
    assert len(notes) == 1 and "needs 44 InfiniBand switch ports" in notes[0] and "have 36" in notes[0], body["warnings"]
    one = api.post(URL, {**two, "bricks": [{"template": "r730xd-internal", "count": 20}]}, format="json").json()
    assert not [w for w in one["warnings"] if "switch ports" in w]
    # 25 GbE links into the 100GbE leaf: four to a port through breakout cables, 8 links + 4 uplinks fit its 32
    eth = {
        "bricks": [{"template": "jbod-zfs", "count": 8, "adapter": "eth-25g"}],
        "metadata": {"placement": "none"},
        "rack": "rack-42u-eth100",
    }
    assert not [w for w in api.post(URL, eth, format="json").json()["warnings"] if "switch ports" in w]
