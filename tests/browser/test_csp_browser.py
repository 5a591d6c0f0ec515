"""The pages work under their Content-Security-Policy in a real Chromium: no console message or page error
about the policy (a blocked inline script, eval or style) nor any other error, and the scripts still draw
what they should."""

from pathlib import Path

import pytest

from .conftest import screenshot
from .test_designer_browser import _sign_in

pytestmark = pytest.mark.browser
DATA = Path(__file__).resolve().parents[1] / "calibration" / "data"


@pytest.fixture
def page(browser, live_server, transactional_db):
    """Like conftest's page, but with the Content-Security-Policy enforced (conftest's bypasses it)."""
    from hardware_catalog.importers import load_catalogue

    load_catalogue()
    context = browser.new_context(viewport={"width": 1400, "height": 900}, bypass_csp=False)
    page = context.new_page()
    page.base_url = live_server.url
    yield page
    context.close()


@pytest.fixture
def csp_messages(page):
    messages = []
    page.on("console", lambda m: messages.append(f"console {m.type}: {m.text}"))
    page.on("pageerror", lambda e: messages.append(f"page error: {e}"))
    return messages


def _violations(messages):
    return [m for m in messages if "content security policy" in m.lower() or "content-security-policy" in m.lower()]


def _check(page, messages, name):
    # a policy violation, and any other error the page logs (a pattern attribute the browser cannot
    # compile is only reported on the console, and its field is then not checked at all)
    problems = _violations(messages) + [
        m for m in messages if m.startswith(("console error", "page error")) and m not in _violations(messages)
    ]
    if problems:
        screenshot(page, f"csp-{name}")
    assert problems == [], problems


def test_the_check_sees_a_violation(page, csp_messages):
    """The policy is in force: an injected inline script is refused and reported on the console."""
    page.goto(page.base_url + "/catalogue/")
    page.evaluate("() => { const s = document.createElement('script'); s.textContent = 'window.__ran = 1'; document.body.appendChild(s); }")
    page.wait_for_timeout(200)
    assert page.evaluate("() => window.__ran") is None
    assert _violations(csp_messages)


def test_designer_under_the_policy(page, csp_messages):
    _sign_in(page, "csp-bea", "pw-bea-1234567")  # signed in: the brick template dialog is on the page too
    page.goto(page.base_url + "/designer/?example=study-d")
    page.wait_for_selector("#read-gbps:not(:empty)")  # the moved scripts evaluated the design
    page.wait_for_selector(".main-svg")  # plotly drew its charts
    page.wait_for_selector("#rack-panel svg")
    # the brick template dialog's slug field: its pattern compiles and refuses what a slug cannot hold
    mismatch = "(v) => { const f = document.querySelector('#template-slug'); f.value = v; return f.validity.patternMismatch; }"
    assert page.evaluate(mismatch, "not a slug!") and not page.evaluate(mismatch, "my-brick_2")
    _check(page, csp_messages, "designer")


def test_solve_under_the_policy(page, csp_messages):
    page.goto(page.base_url + "/solve/")
    page.fill("#usable_pib", "1")
    page.fill("#read_gbps", "9")
    page.fill("#max_bricks", "60")
    page.fill("#max_loss_probability", "one in a thousand")  # a field with a pattern attribute: the browser compiles it
    assert page.evaluate("() => document.querySelector('#max_loss_probability').validity.patternMismatch")
    page.fill("#max_loss_probability", "1e-3")
    assert page.evaluate("() => document.querySelector('#max_loss_probability').validity.valid")
    page.click("#solve-form button[type=submit]")
    page.wait_for_selector("#solve-results")
    page.wait_for_selector("#frontier-chart .main-svg")  # the moved script drew the frontier
    _check(page, csp_messages, "solve")


def test_calibration_under_the_policy(page, csp_messages):
    _sign_in(page, "csp-calla", "pw-calla-123456")
    page.goto(page.base_url + "/calibrations/")
    page.fill("#cal-name", "CSP sweep")
    page.select_option("#cal-template", "md3460-performance")
    page.set_input_files("#cal-obdfilter", str(DATA / "obdfilter_sweep.txt"))
    page.set_input_files("#cal-ior", str(DATA / "ior_330.txt"))
    page.fill("#cal-bricks", "8")
    page.click("#calibration-form button[type=submit]")
    page.wait_for_selector("#fit-chart .main-svg")
    page.wait_for_selector("#pm-chart .main-svg")
    if page.locator("#effect-run").count():
        page.click("#effect-run")
        page.wait_for_selector("#effect-table:not([hidden])")
    _check(page, csp_messages, "calibration")


def test_catalogue_and_my_designs_under_the_policy(page, csp_messages):
    page.goto(page.base_url + "/catalogue/")
    page.wait_for_load_state("load")
    _check(page, csp_messages, "catalogue")
    _sign_in(page, "csp-dana", "pw-dana-123456")
    page.goto(page.base_url + "/designs/")
    page.wait_for_load_state("load")
    _check(page, csp_messages, "designs")


def test_api_docs_under_the_policy(page, csp_messages):
    page.goto(page.base_url + "/api/docs/")
    page.wait_for_selector(".swagger-ui .opblock", timeout=20000)  # Swagger UI started and read the schema
    _check(page, csp_messages, "api-docs")
