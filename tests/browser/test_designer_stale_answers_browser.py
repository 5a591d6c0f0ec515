"""The designer asks the server on every edit after a short pause and never shows an answer older
than the newest request it sent (issue 15): typing "2" then "0" into a count field sends a request
for 2 within the pause between the keys, and when that answer is held back until after the answer
for 20 has been shown, the totals stay those of 20."""

import pytest
from playwright.sync_api import expect

pytestmark = pytest.mark.browser


def _text(page, selector) -> str:
    return page.inner_text(selector).strip()


def test_fast_typing_shows_the_final_value_never_a_late_earlier_answer(page):
    page.goto(page.base_url + "/designer/?example=study-d")  # 8 performance bricks, 36.0 GB/s
    expect(page.locator("#read-gbps")).to_have_text("36.0")

    counts_sent, held = [], []

    def hold_all_but_the_final_value(route):
        count = route.request.post_data_json["spec"]["bricks"][0]["count"]
        counts_sent.append(count)
        if count == 20:
            route.continue_()
        else:
            held.append(route)  # answered only after the final value's totals are on the page

    page.route("**/designer/evaluate/", hold_all_but_the_final_value)
    page.click("#b0-count", click_count=3)
    page.keyboard.type("2")
    page.wait_for_timeout(150)  # a pause between two keys, longer than the debounce (<= 80 ms)
    page.keyboard.type("0")

    expect(page.locator("#read-gbps")).to_have_text("90.0")
    assert counts_sent[0] == 2, f"no request for the intermediate value within 150 ms of its key: {counts_sent}"
    assert counts_sent[-1] == 20
    final = {sel: _text(page, sel) for sel in ("#usable-pib", "#raw-tb", "#read-gbps", "#write-gbps", "#price-total")}
    shown = page.get_attribute("body", "data-evaluated")

    # Now the earlier request's real answer arrives, late (unless the page already aborted it).
    for route in held:
        try:
            route.fulfill(response=route.fetch())
        except Exception:  # the page aborted the stale request: nothing left to answer
            pass
    page.wait_for_timeout(600)
    assert {sel: _text(page, sel) for sel in final} == final
    assert final["#read-gbps"] == "90.0" and final["#raw-tb"] == "4,800"
    assert page.get_attribute("body", "data-evaluated") == shown
    assert "bricks" in _text(page, "#status") and "20 bricks" in _text(page, "#status")
