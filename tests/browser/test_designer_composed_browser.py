"""The designer's composed-brick fields in a real Chromium: adapters and storage ports per server, the
RAID editor, automatic failover, clients' RPC round trip and OSTs per client, the fabric; API field
errors shown next to their fields; a line saved as a brick template of one's own."""

import pytest

from .conftest import screenshot
from .test_designer_browser import _sign_in

pytestmark = pytest.mark.browser


def _errors(page) -> list[str]:
    return [t for t in page.locator(".field-error").all_inner_texts() if t.strip()]


def _build_grid_line(page):
    """20 x R730xd internal, 6 TB, 10GbE, RAID6 14+2, by clicking and typing."""
    page.goto(page.base_url + "/designer/")
    page.click("#start-blank")
    assert page.input_value("#failover") == ""  # automatic is the default for a new design
    page.click("#add-brick")
    page.select_option("#b0-template", "r730xd-internal")
    page.fill("#b0-count", "20")
    page.select_option("#b0-disk", "nl-sas-6tb")
    page.select_option("#b0-adapter", "eth-10g")
    page.select_option("#b0-raid-level", "raid6")
    page.fill("#b0-raid-data", "14")
    assert page.input_value("#b0-raid-parity") == "2"
    assert page.input_value("#b0-raid-groups") == "1" and page.input_value("#b0-raid-spares") == "0"
    assert page.input_value("#b0-adapters") == "1" and page.input_value("#b0-ports") == "2"
    page.select_option("#placement", "none")


def test_build_twenty_r730xd_with_raid6_14_2_and_no_failover(page):
    page.set_viewport_size({"width": 1440, "height": 900})
    _build_grid_line(page)
    page.select_option("#failover", "none")
    page.wait_for_function("document.getElementById('usable-pib').textContent === '1.49'")
    page.wait_for_function("document.getElementById('status').textContent.includes('20 bricks, 20 servers, 320 disks')")
    assert _errors(page) == []
    assert "error" not in (page.get_attribute("#status", "class") or "")
    overflow = page.evaluate("document.documentElement.scrollWidth - document.documentElement.clientWidth")
    assert overflow <= 1, "the designer scrolls sideways at 1440 px"
    screenshot(page, "designer-composed-1440")


def test_paired_failover_on_internal_bays_shows_the_message_next_to_failover(page):
    _build_grid_line(page)
    page.wait_for_function("document.getElementById('usable-pib').textContent === '1.49'")  # automatic: none here
    page.select_option("#failover", "paired")
    page.wait_for_function("document.querySelector('[data-error=\"failover\"]').textContent.length > 0")
    assert "keeps its disks inside its server" in page.inner_text('[data-error="failover"]')
    assert page.locator("#status.error").count() == 1
    screenshot(page, "designer-failover-error")
    page.select_option("#failover", "")
    page.wait_for_function("document.querySelector('[data-error=\"failover\"]').textContent === ''")


def test_raid_and_adapter_errors_appear_next_to_their_fields_and_only_changes_are_sent(page):
    _build_grid_line(page)
    page.wait_for_function("document.getElementById('usable-pib').textContent === '1.49'")
    page.fill("#b0-raid-groups", "2")
    page.wait_for_function("document.querySelector('[data-error=\"bricks.0.raid\"]').textContent.length > 0")
    assert "holds 16" in page.inner_text('[data-error="bricks.0.raid"]')
    page.fill("#b0-raid-groups", "1")
    page.select_option("#b0-raid-level", "raid10")
    page.fill("#b0-raid-data", "8")
    assert page.input_value("#b0-raid-parity") == "8"  # parity follows data for RAID 10
    page.wait_for_function("document.getElementById('usable-pib').textContent === '0.85'")  # 20 x 8 x 6 TB
    page.fill("#b0-adapters", "7")
    page.wait_for_function("document.querySelector('[data-error=\"bricks.0.adapters_per_server\"]').textContent.length > 0")
    assert "6 PCIe slots" in page.inner_text('[data-error="bricks.0.adapters_per_server"]')
    page.select_option("#b0-raid-level", "raid6")
    page.fill("#b0-raid-data", "14")

    def back_to_one_adapter(r):  # the request for this change, not one still leaving for the raid edits
        if not r.url.endswith("/designer/evaluate/"):
            return False
        line = ((r.post_data_json or {}).get("spec") or {}).get("bricks", [{}])[0]
        return line.get("adapters_per_server") != 7 and (line.get("raid") or {}).get("data") in (None, 14)

    with page.expect_request(back_to_one_adapter) as sent:
        page.fill("#b0-adapters", "1")  # back to the template's: no longer sent
    line = sent.value.post_data_json["spec"]["bricks"][0]
    assert "adapters_per_server" not in line and "raid" not in line and "storage_ports" not in line
    assert sent.value.post_data_json["spec"]["failover"] is None
    page.wait_for_function("document.getElementById('usable-pib').textContent === '1.49'")
    assert _errors(page) == []


def test_clients_and_fabric_fields_reach_the_spec(page):
    page.goto(page.base_url + "/designer/?example=study-d")
    page.wait_for_function("document.getElementById('read-gbps').textContent === '36.0'")
    page.check("#clients-on")
    page.fill("#clients-count", "16")
    page.fill("#clients-rtt", "2")
    page.fill("#clients-streams", "4")
    page.check("#fabric-on")
    # the request that carries the new value: ticking #fabric-on sent one of its own (oversubscription 1),
    # which on a loaded machine may leave after this block starts
    with page.expect_request(
        lambda r: r.url.endswith("/designer/evaluate/")
        and (r.post_data_json or {}).get("spec", {}).get("fabric") == {"oversubscription": 2}
    ) as sent:
        page.fill("#fabric-oversubscription", "2")
    spec = sent.value.post_data_json["spec"]
    assert spec["clients"] == {"count": 16, "adapter": "ib-fdr", "rpc_round_trip_ms": 2, "streams": 4}
    assert spec["fabric"] == {"oversubscription": 2}
    page.wait_for_function("document.getElementById('status').textContent.includes('bricks,')")
    assert _errors(page) == []
    page.fill("#clients-streams", "0")
    page.wait_for_function("document.querySelector('[data-error=\"clients.streams\"]').textContent.length > 0")


def test_save_a_line_as_a_template_of_your_own_and_use_it(page):
    from hardware_catalog.models import BrickTemplate

    _sign_in(page, "tess", "pw-tess-123456")
    _build_grid_line(page)
    page.wait_for_function("document.getElementById('usable-pib').textContent === '1.49'")
    page.click("#b0-save-template")
    page.wait_for_selector("#template-dialog[open]")
    assert page.input_value("#template-slug") == "tess-r730xd-internal-nl-sas-6tb"
    page.fill("#template-name", "R730xd, 16 x 6 TB, 10GbE")
    page.fill("#template-slug", "md3460-performance")  # taken: the message names it
    page.click("#template-save")
    page.wait_for_function("document.querySelector('[data-template-error=\"slug\"]').textContent.length > 0")
    assert "'md3460-performance' is taken" in page.inner_text('[data-template-error="slug"]')
    page.fill("#template-slug", "tess-grid")
    page.click("#template-save")
    page.wait_for_selector("#template-dialog", state="hidden")
    assert page.input_value("#b0-template") == "tess-grid"
    assert page.locator('#b0-template optgroup[label="Your templates"] option[value="tess-grid"]').count() == 1
    assert page.locator('#b0-template optgroup[label="Catalogue presets"] option').count() >= 6
    page.wait_for_function("document.getElementById('save-status').textContent.includes('tess-grid')")
    page.wait_for_function("document.getElementById('usable-pib').textContent === '1.49'")
    t = BrickTemplate.objects.get(slug="tess-grid")
    assert (t.owner.username, t.disk.slug, t.network_adapter.slug, t.raid_level, t.raid_data_disks) == (
        "tess",
        "nl-sas-6tb",
        "eth-10g",
        "raid6",
        14,
    )
    page.goto(page.base_url + "/designer/")  # a new page lists it among your own
    page.click("#add-brick")
    assert page.locator('optgroup[label="Your templates"] option[value="tess-grid"]').count() == 1
