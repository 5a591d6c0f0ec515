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


def test_a_single_ior_file_with_a_client_sweep_is_fitted_and_its_effect_shown(page, tmp_path):
    import numpy as np

    from tests.calibration.test_synthetic_brick import IOR_BRICKS, _ior_text

    ior = tmp_path / "ior-sweep.txt"
    ior.write_text(_ior_text(np.random.default_rng(2)))
    _sign_in(page, "solo", "pw-solo-123456")
    page.goto(page.base_url + "/calibrations/")
    page.fill("#cal-name", "IOR sweep alone")
    page.select_option("#cal-template", "md3460-performance")
    page.set_input_files("#cal-ior", str(ior))  # one file: no obdfilter-survey
    page.fill("#cal-bricks", str(IOR_BRICKS))
    page.click("#calibration-form button[type=submit]")
    page.wait_for_selector("#clients-chart .main-svg")
    page.wait_for_selector("#pm-chart .main-svg")
    text = page.inner_text("main")
    assert "over client nodes" in text and "Client nodes (IOR, 95 % of the peak" in text
    assert page.locator("text=Apply to a new design").count() == 1
    page.select_option("#effect-design", label="Study rack D: performance, metadata elsewhere")
    page.fill("#effect-clients", "16")
    page.click("#effect-run")
    page.wait_for_selector("#effect-table:not([hidden])")
    totals = page.locator("#effect-table tbody tr").last.inner_text()
    assert totals.startswith("Design total")
    cells = totals.split("\t")
    assert float(cells[1]) != float(cells[2])  # read before and after differ: 16 clients on 8 bricks
    screenshot(page, "calibration-clients-effect")
    page.click("text=Apply to study rack D")
    page.wait_for_function("document.getElementById('status').textContent.includes('calibrated')")
    assert page.inner_text("#read-gbps") != "36.0"  # the IOR-only calibration's figures, not the data sheets
