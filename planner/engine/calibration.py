"""Calibration: fit the Universal Scalability Law to an obdfilter-survey thread sweep, and relate
IOR (end to end) to it (back end). Pure numpy/scipy.

USL: X(N) = lam * N / (1 + sigma (N - 1) + kappa N (N - 1)), N = threads (summed over OSTs as the
survey reports them); sigma is contention, kappa coherency (retrograde) cost. The peak is at
N* = sqrt((1 - sigma) / kappa) when kappa > 0. A peak beyond the largest tested count is not claimed: the curve is then "still rising" and the
peak is taken at the largest count measured. The recommended OSS thread count is the smallest
tested count reaching 95 % of the fitted peak. Uncertainty comes from a parametric bootstrap over
the fit's residuals.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass

import numpy as np

MIN_POINTS = 4
SATURATION = 0.95


class FitError(ValueError):
    """The data cannot support a fit (too few points, flat or broken); the message says why."""


def usl(n, lam, sigma, kappa):
    """Throughput at concurrency n under the Universal Scalability Law."""
    n = np.asarray(n, dtype=float)
    return lam * n / (1.0 + sigma * (n - 1.0) + kappa * n * (n - 1.0))


@dataclass
class UslFit:
    """A fitted curve: parameters, peak (GB/s) and where it is, residuals and uncertainty."""

    operation: str
    lam: float
    sigma: float
    kappa: float
    peak_gbps: float
    peak_threads: float
    saturation_threads: int
    recommended_threads: int
    rms_residual_gbps: float
    max_abs_residual_gbps: float
    r_squared: float
    peak_gbps_low: float
    peak_gbps_high: float
    points: list
    residuals: list
    curve: list

    def as_dict(self) -> dict:
        return asdict(self)


def _fit_params(n, x):
    from scipy.optimize import curve_fit

    lam0 = float(np.max(x / n)) if np.all(n > 0) else float(x.max())
    p0 = (lam0, 0.05, 0.001)
    params, _ = curve_fit(usl, n, x, p0=p0, bounds=([0.0, 0.0, 0.0], [np.inf, 1.0, 1.0]), maxfev=20000)
    return params


def _peak(lam, sigma, kappa, n_max):
    if kappa > 1e-12 and sigma < 1.0:
        n_star = float(np.sqrt((1.0 - sigma) / kappa))
    else:
        n_star = float(n_max)  # still rising (or flat) at the largest tested count
    n_star = min(max(1.0, n_star), float(n_max))  # never claim a peak beyond what was measured
    return n_star, float(usl(n_star, lam, sigma, kappa))


def fit_usl(threads, gbps, *, operation: str, rng_seed: int = 0, bootstrap: int = 200) -> UslFit:
    """Fit X(N) to (threads, GB/s) points; refuse with a clear reason when there are too few."""
    n = np.asarray(threads, dtype=float)
    x = np.asarray(gbps, dtype=float)
    ok = np.isfinite(n) & np.isfinite(x) & (n > 0) & (x > 0)
    n, x = n[ok], x[ok]
    distinct = np.unique(n)
    if distinct.size < MIN_POINTS:
        raise FitError(
            f"{operation}: a fit needs results at {MIN_POINTS} or more different thread counts; "
            f"this sweep has {distinct.size} ({', '.join(str(int(v)) for v in distinct) or 'none'}). "
            "Run obdfilter-survey with a wider thrlo..thrhi range."
        )
    try:
        lam, sigma, kappa = _fit_params(n, x)
    except (RuntimeError, ValueError) as exc:
        raise FitError(f"{operation}: the curve could not be fitted ({exc})") from exc
    predicted = usl(n, lam, sigma, kappa)
    residuals = x - predicted
    ss_res = float(np.sum(residuals**2))
    ss_tot = float(np.sum((x - x.mean()) ** 2)) or 1e-12
    n_star, peak = _peak(lam, sigma, kappa, distinct.max())

    # parametric bootstrap: refit on the fitted curve plus resampled residuals
    rng = np.random.default_rng(rng_seed)
    peaks = []
    for _ in range(bootstrap):
        sample = predicted + rng.choice(residuals, size=residuals.size, replace=True)
        try:
            b = _fit_params(n, np.maximum(sample, 1e-9))
        except (RuntimeError, ValueError):
            continue
        peaks.append(_peak(*b, distinct.max())[1])
    low, high = (float(np.percentile(peaks, 2.5)), float(np.percentile(peaks, 97.5))) if len(peaks) >= 20 else (peak, peak)

    grid = np.unique(np.concatenate([distinct, np.linspace(distinct.min(), max(distinct.max(), n_star), 60)]))
    curve_y = usl(grid, lam, sigma, kappa)
    reach = distinct[usl(distinct, lam, sigma, kappa) >= SATURATION * peak]
    recommended = int(reach.min()) if reach.size else int(distinct.max())
    saturation = int(np.ceil(grid[curve_y >= SATURATION * peak].min())) if np.any(curve_y >= SATURATION * peak) else int(distinct.max())
    return UslFit(
        operation=operation,
        lam=float(lam),
        sigma=float(sigma),
        kappa=float(kappa),
        peak_gbps=peak,
        peak_threads=n_star,
        saturation_threads=saturation,
        recommended_threads=recommended,
        rms_residual_gbps=float(np.sqrt(ss_res / x.size)),
        max_abs_residual_gbps=float(np.max(np.abs(residuals))),
        r_squared=1.0 - ss_res / ss_tot,
        peak_gbps_low=low,
        peak_gbps_high=high,
        points=[[float(a), float(b)] for a, b in zip(n, x, strict=True)],
        residuals=[float(r) for r in residuals],
        curve=[[float(a), float(b)] for a, b in zip(grid, curve_y, strict=True)],
    )


def sweep_points(rows, operation: str) -> tuple[list[float], list[float]]:
    """(threads, GB/s) from obdfilter-survey rows: for each thread count the best over object counts."""
    best: dict[int, float] = {}
    for row in rows:
        value = row.gbps(operation)
        if value is None:
            continue
        best[row.threads] = max(best.get(row.threads, 0.0), value)
    keys = sorted(best)
    return [float(k) for k in keys], [best[k] for k in keys]
