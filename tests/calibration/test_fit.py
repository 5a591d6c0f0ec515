"""The USL fit: known parameters recovered from synthetic data; too few points refused."""

import numpy as np
import pytest

from planner.engine.calibration import FitError, fit_usl, usl


def test_fit_recovers_known_parameters_from_noisy_data():
    n = np.array([1, 2, 4, 8, 16, 32, 64, 128, 256, 384])
    truth = dict(lam=0.5, sigma=0.03, kappa=0.0004)
    x = usl(n, **truth) * (1 + np.random.default_rng(7).normal(0, 0.01, n.size))
    fit = fit_usl(n, x, operation="write")
    assert fit.lam == pytest.approx(truth["lam"], rel=0.1)
    assert fit.sigma == pytest.approx(truth["sigma"], abs=0.01)
    assert fit.kappa == pytest.approx(truth["kappa"], rel=0.25)
    true_peak_n = np.sqrt((1 - truth["sigma"]) / truth["kappa"])
    assert fit.peak_threads == pytest.approx(true_peak_n, rel=0.15)
    assert fit.peak_gbps == pytest.approx(float(usl(true_peak_n, **truth)), rel=0.03)
    assert fit.peak_gbps_low <= fit.peak_gbps <= fit.peak_gbps_high
    assert fit.r_squared > 0.99 and fit.rms_residual_gbps < 0.1
    assert fit.recommended_threads in n and usl(fit.recommended_threads, fit.lam, fit.sigma, fit.kappa) >= 0.95 * fit.peak_gbps


def test_fit_of_a_curve_still_rising_peaks_at_the_largest_count():
    n = np.array([4, 8, 16, 32, 64])
    fit = fit_usl(n, usl(n, 0.2, 0.01, 0.0), operation="read")
    assert fit.peak_threads == pytest.approx(64, rel=0.05)


@pytest.mark.parametrize("n", [[8, 16, 32], [8, 8, 8, 16], []])
def test_too_few_points_are_refused_with_a_reason(n):
    with pytest.raises(FitError, match="4 or more different thread counts"):
        fit_usl(n, [1.0] * len(n), operation="write")


def test_the_peak_is_no_higher_than_the_data_support_and_its_range_holds_the_measured_maximum():
    rng = np.random.default_rng(3)
    n = np.repeat(np.array([24, 48, 96, 144, 192, 288]), 3)  # three object counts at each thread count
    truth = dict(lam=0.12, sigma=0.02, kappa=0.00002)
    x = usl(n, **truth) * (1 + rng.normal(0, 0.04, n.size))
    fit = fit_usl(n, x, operation="write")
    assert fit.peak_gbps <= x.max() + fit.rms_residual_gbps + 1e-9
    assert fit.peak_gbps_low <= x.max() <= fit.peak_gbps_high
    assert fit.measured_max_gbps == pytest.approx(x.max())
    assert len(fit.points) == n.size  # every object count is a point, not only the best


def test_a_curve_that_falls_again_says_where():
    n = np.array([1, 2, 4, 8, 16, 32, 64, 128])
    fit = fit_usl(n, usl(n, 1.0, 0.05, 0.002), operation="read", axis="clients")
    peak_n = np.sqrt(0.95 / 0.002)  # about 21.8
    assert fit.peak_threads == pytest.approx(peak_n, rel=0.05)
    assert fit.falls_after is not None and fit.falls_after > peak_n
    assert usl(fit.falls_after, 1.0, 0.05, 0.002) == pytest.approx(0.95 * usl(peak_n, 1.0, 0.05, 0.002), rel=0.02)
    with pytest.raises(FitError, match="client counts"):
        fit_usl([1, 2], [1.0, 2.0], operation="read", axis="clients")
