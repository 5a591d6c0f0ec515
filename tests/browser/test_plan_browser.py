"""The plan page in a real browser: build a three-phase plan from a saved design, see the timeline (run-out
year highlighted, charts drawn), and download the plan sheet (checked with pypdf)."""

import io

from tests.browser.conftest import screenshot

SPEC = {"bricks": [{"template": "md3460-performance", "count": 2}], "metadata": {"placement": "none"}}


def _sign_in(page, username="planner", password="pw-planner-123456"):
    from django.contrib.auth import get_user_model

    user = get_user_model().objects.create_user(username, password=password)
    page.goto(page.base_url + "/accounts/login/")
    page.fill("#id_username", username)
    page.fill("#id_password", password)
    page.click("button[type=submit]")
    page.wait_for_url(page.base_url + "/")
    return user


def test_plan_three_phases_from_a_saved_design_timeline_and_sheet(page):
    from planner import services
    from planner.services.plans import this_year

    user = _sign_in(page)
    design = services.design_create(owner=user, name="Rack P", spec=SPEC)  # 0.3410 PiB usable, 9 GB/s
    year = this_year()

    page.goto(page.base_url + "/plans/")
    page.fill("#new-plan-name", "Doubling scratch")
    page.click("#new-plan button[type=submit]")
    page.wait_for_url(page.base_url + "/plans/*/")
    page.wait_for_function("document.body.dataset.timeline === 'ready'")

    # demand: 0.3 PiB growing 50 % a year: 0.30, 0.45, 0.675, 1.0125, 1.519; three phases of one rack each
    # (0.341, 0.682, 1.023 PiB from the third year): 2026 ok, 2027 0.45 <= 0.682 ok, 2028 0.675 <= 1.023 ok,
    # 2029 1.0125 <= 1.0229 ok, 2030 1.519 > 1.023: capacity runs out in the fifth year
    page.fill("#demand-pib", "0.3")
    page.fill("#demand-growth-pct", "50")
    page.fill("#horizon", "5")
    for i in range(3):
        page.click("#add-phase")
        card = page.locator("#phases .phase").nth(i)
        card.locator(".phase-year").fill(str(year + i))
        card.locator(".add-design").select_option(str(design.pk))
        card.locator(".add-label").fill(f"rack {i + 1}")
    page.click("#settings-box summary")
    page.fill("#set-end_of_support_years", "10")
    page.click("#save")
    page.wait_for_function("document.getElementById('save-status').textContent.startsWith('Saved')")
    page.wait_for_function("document.body.dataset.timeline === 'ready'")

    assert page.inner_text('[data-run-out="capacity"] dd') == str(year + 4)
    assert "short" in page.get_attribute('[data-run-out="capacity"] dd', "class")
    assert page.locator(f'#years-table tr[data-year="{year + 4}"] td.short').count() == 1
    assert page.locator(f'#years-table tr[data-year="{year + 3}"] td.short').count() == 0
    assert page.locator("#purchases-table tbody tr").count() == 3
    assert page.locator("#chart-capacity .main-svg").count() > 0 and page.locator("#chart-cost .main-svg").count() > 0
    proposal = page.locator("#proposals-table tbody tr").first.locator("td")
    assert proposal.first.inner_text() == str(year + 4)
    assert page.locator("#proposals-table th").nth(1).inner_text() == "Shortfall left that year"
    assert "PiB" in proposal.nth(2).inner_text() and "GB/s" in proposal.nth(2).inner_text()  # what it is sized to cover
    # a panel's first heading sits at its top (there was a 2rem gap above "Plan" and "Proposed purchases")
    gaps = page.evaluate("[...document.querySelectorAll('.panel > h2:first-child')].map((h) => getComputedStyle(h).marginTop)")
    assert gaps and set(gaps) == {"0px"}
    screenshot(page, "plan-timeline")

    page.reload()  # saved: the editor shows the three phases again
    page.wait_for_function("document.body.dataset.timeline === 'ready'")
    assert page.locator("#phases .phase").count() == 3

    with page.expect_download() as download_info:
        page.click("#sheet-link")
    download = download_info.value
    assert download.suggested_filename.endswith("-plan-sheet.pdf")
    from pypdf import PdfReader

    reader = PdfReader(io.BytesIO(open(download.path(), "rb").read()))
    text = "".join(p.extract_text() for p in reader.pages)
    assert "Doubling scratch" in text and "rack 3" in text and str(year + 4) in text
    flat = " ".join(text.split())
    assert "Sized to cover" in flat and "what is left after the rows above it" in flat
