"""Complete racks: PDUs sized from the rack model, cables per brick, rail kits, blanking panels, heat.

Counts are worked out by hand from the catalogue's topology: each OSS cables its storage ports
(SAS to the head) and its network ports (to the top-of-rack switch); each expansion enclosure its
uplink ports; every rack-mounted server or enclosure gets a rail kit; every free unit a blanking
panel; every rack two PDUs (A and B feeds) and four uplinks to the core."""

import pytest

pytestmark = pytest.mark.django_db
URL = "/api/v1/evaluate/"


def _lines(body):
    return {(line["kind"], line["item"]): line["quantity"] for line in body["price"]["lines"]}


def test_study_rack_d_is_complete_with_pdus_cables_rails_and_no_gaps(api):
    body = api.post(
        URL, {"bricks": [{"template": "md3460-performance", "count": 8}], "metadata": {"placement": "none"}}, format="json"
    ).json()
    lines = _lines(body)
    assert lines[("accessory", "pdu-3ph-32a")] == 2  # one rack, A and B feeds
    assert lines[("accessory", "cable-sas-hd-2m")] == 8 * 4  # 4 SAS storage ports per OSS
    assert lines[("accessory", "cable-ib-qsfp-3m")] == 8 * 1 + 4  # one FDR port per OSS, four uplinks
    assert lines[("accessory", "rail-kit")] == 8 + 8  # 8 servers and 8 MD3460
    assert ("accessory", "blank-1u") not in lines  # 8 x 5U + 2U switches = 42U: no free unit
    [rack] = body["racks"]
    assert rack["blanking_units"] == 0
    assert rack["heat_btu_per_h"] == pytest.approx(rack["power_w"] * 3.412, rel=1e-3)
    assert body["heat_btu_per_h"] == pytest.approx(body["power_w"] * 3.412, rel=1e-3)
    assert rack["pdu"] == {
        "item": "pdu-3ph-32a",
        "name": rack["pdu"]["name"],
        "count": 2,
        "capacity_w_each": 17664,
        "phases": 3,
        "inlet": rack["pdu"]["inlet"],
    }
    pdus = [it for it in rack["items"] if it["role"] == "pdu"]
    assert len(pdus) == 2 and all(it["face"] == "rear" and it["height"] == 0 for it in pdus)
    # the rack's weight holds its PDUs, rails and cables: the sum of its items plus the cabinet and uplinks
    assert body["weight_kg"] == pytest.approx(sum(r["weight_kg"] for r in body["racks"]), abs=0.5)
    assert body["power_w"] == pytest.approx(sum(r["power_w"] for r in body["racks"]), abs=0.5)


def test_capacity_bricks_cable_their_expansions_and_free_units_get_blanking_panels(api):
    body = api.post(URL, {"bricks": [{"template": "md3460-capacity", "count": 2}], "metadata": {"placement": "none"}}, format="json").json()
    lines = _lines(body)
    # 2 bricks x 2 MD3060e x 2 uplink ports, plus 2 OSS x 4 storage ports
    assert lines[("accessory", "cable-sas-hd-2m")] == 2 * 2 * 2 + 2 * 4
    assert lines[("accessory", "rail-kit")] == 2 * (1 + 1 + 2)
    # 2 x 13U + 2U switches = 28U of 42: 14 blanking panels
    assert lines[("accessory", "blank-1u")] == 14
    assert body["racks"][0]["blanking_units"] == 14


def test_ha_partners_share_a_tag_and_roles_name_each_device(api):
    body = api.post(
        URL,
        {"bricks": [{"template": "md3460-performance", "count": 3}], "failover": "paired", "metadata": {"placement": "in_rack"}},
        format="json",
    ).json()
    items = body["racks"][0]["items"]
    by_pair = {}
    for it in items:
        if it["pair"]:
            by_pair.setdefault(it["pair"], []).append(it)
    assert sorted(by_pair) == ["HA 1", "HA 2"]
    assert sum(1 for it in by_pair["HA 1"] if it["role"] == "oss") == 2  # bricks 1 and 2
    assert sum(1 for it in by_pair["HA 2"] if it["role"] == "oss") == 2  # brick 3 and the standby server
    roles = {it["role"] for it in items}
    assert roles >= {"oss", "raid_head", "switch", "pdu", "mds", "mgs", "management", "metadata"}


def test_a_rack_drawing_more_than_one_pdu_can_carry_loses_its_redundancy(api):
    from hardware_catalog import models as cat

    pdu = cat.Accessory.objects.create(
        slug="pdu-1ph-32a",
        name="0U PDU, 1-phase 230 V 32 A",
        kind="pdu",
        weight_kg=5,
        power_w=10,
        pdu_phases=1,
        pdu_volts=230,
        pdu_amps=32,
        pdu_derating=0.8,
        sources={
            "height_u": "test",
            "power_w": "test",
            "weight_kg": "test",
            "pdu_phases": "test",
            "pdu_volts": "test",
            "pdu_amps": "test",
            "pdu_derating": "test",
        },
    )
    rack = cat.Rack.objects.get(slug="rack-42u")
    rack.pdu = pdu
    rack.save()
    # study rack D draws about 11 kW; one 1-phase 32 A PDU carries 230 x 32 x 0.8 = 5.9 kW, two carry 11.8 kW
    body = api.post(
        URL, {"bricks": [{"template": "md3460-performance", "count": 8}], "metadata": {"placement": "none"}}, format="json"
    ).json()
    power = body["racks"][0]["power_w"]
    assert 5888 < power < 11776
    assert any("loses its power redundancy" in w for w in body["warnings"])
    assert body["racks"][0]["pdu"]["capacity_w_each"] == 5888


def test_where_the_money_goes_adds_up_to_the_total(api):
    body = api.post(
        URL, {"bricks": [{"template": "md3460-performance", "count": 8}], "metadata": {"placement": "none"}}, format="json"
    ).json()
    rows = body["price"]["by_kind"]
    assert [r["total"] for r in rows] == sorted((r["total"] for r in rows), reverse=True)
    assert sum(r["total"] for r in rows) == pytest.approx(body["price"]["total"], abs=1.0)
    assert sum(r["share"] for r in rows) == pytest.approx(1.0, abs=0.001)
    labels = {r["kind"]: r["label"] for r in rows}
    assert labels["accessory"] == "Rack accessories" and labels["energy"] == "Energy"
