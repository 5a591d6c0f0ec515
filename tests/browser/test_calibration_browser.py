"""Calibration in a real Chromium: upload a sweep and IOR output, see the fit, apply it to study rack D."""

from pathlib import Path

import pytest

from .conftest import screenshot
from .test_designer_browser import _sign_in, _wait_for_value

pytestmark = pytest.mark.browser
DATA = Path(__file__).resolve().parents[1] / "calibration" / "data"


def test_upload_see_the_fit_and_apply_it(page):
    _sign_in(page, "calla", "pw-calla-123456")
    page.goto(page.base_url + "/calibrations/")
    page.fill("#cal-name", "OSS 1 sweep, November")
    page.select_option("#cal-template", "md3460-performance")
    page.set_input_files("#cal-obdfilter", str(DATA / "obdfilter_sweep.txt"))
    page.set_input_files("#cal-ior", str(DATA / "ior_330.txt"))
    page.fill("#cal-bricks", "8")
    page.click("#calibration-form button[type=submit]")
    page.wait_for_selector("#fit-chart .main-svg")
    page.wait_for_selector("#pm-chart .main-svg")
    assert "recommended OSS threads" in page.inner_text("main")
    screenshot(page, "calibration-detail")
    page.click("text=Apply to study rack D")
    page.wait_for_function("document.getElementById('status').textContent.includes('calibrated')")
    assert page.input_value("#calibration") != ""
    assert page.inner_text("#read-gbps") != "36.0"  # the site's measured figures, not the study's
    screenshot(page, "designer-calibrated")
    page.select_option("#calibration", "")
    _wait_for_value(page, "#read-gbps", "36.0")
