"""Issue 13 in Chromium: the price relative to a chosen reference in the designer's totals and in
"My designs" (sort, tick two, Compare)."""

import pytest

from .conftest import screenshot
from .test_designer_browser import _wait_for_value

pytestmark = pytest.mark.browser


def test_designer_shows_the_price_relative_to_a_chosen_reference(page):
    page.goto(page.base_url + "/designer/?example=study-a")
    _wait_for_value(page, "#read-gbps", "9.0")
    assert page.locator("#relative-line").is_hidden()
    page.select_option("#reference", "ex:study-b")
    _wait_for_value(page, "#relative-price", "0.65×")
    assert "Study rack B" in page.inner_text("#reference-name")
    assert "ref=ex%3Astudy-b" in page.url or "ref=ex:study-b" in page.url
    assert page.input_value("#export-reference") == "ex:study-b" if page.locator("#export-reference").count() else True
    screenshot(page, "designer-relative-price")
    page.reload()  # the reference is kept in the address
    _wait_for_value(page, "#relative-price", "0.65×")
    page.select_option("#reference", "")
    page.wait_for_selector("#relative-line", state="hidden")


def test_my_designs_sorts_and_compares_the_ticked_designs(page, django_user_model):
    from planner.services import design_create, example_design

    ann = django_user_model.objects.create_user("ann", password="pw-ann-123456")
    for slug in ("study-a", "study-d", "study-f"):
        ex = example_design(slug=slug)
        design_create(owner=ann, name=ex["name"].split(":")[0], spec=ex["spec"])
    page.goto(page.base_url + "/accounts/login/?next=/designs/")
    page.fill("#id_username", "ann")
    page.fill("#id_password", "pw-ann-123456")
    page.click("form.panel button[type=submit]")
    page.wait_for_url("**/designs/")
    page.select_option("#ref", "ex:study-d")
    page.click("#reference-form button")
    page.wait_for_selector("#reference-note")
    page.click("a[data-sort=price_total]")
    page.wait_for_url("**sort=*price_total*")
    names = page.locator("#designs-table tbody tr td:nth-child(2) a").all_inner_texts()
    assert len(names) == 3
    rels = page.locator("#designs-table td.relative-price").all_inner_texts()
    values = [float(r.rstrip("×")) for r in rels]
    assert values == sorted(values, reverse="-price_total" in page.url)
    assert any(v == 1.0 for v in values)  # the reference design itself
    screenshot(page, "my-designs-relative")
    assert page.is_disabled("#compare-chosen")
    boxes = page.locator("#designs-table tbody input[type=checkbox]")
    boxes.nth(0).check()
    assert page.is_disabled("#compare-chosen")
    boxes.nth(1).check()
    page.click("#compare-chosen")
    page.wait_for_selector("#compare-table")
    assert page.locator("#compare-table tbody tr").count() == 3  # the two ticked and the reference
    assert page.locator("#compare-table tr.reference").count() == 1
