"""Calibration: fit the Universal Scalability Law to an obdfilter-survey thread sweep (the back end
behind one OSS, per OST count) and to an IOR sweep over client nodes (end to end), and relate the
two. Pure numpy/scipy.

USL: X(N) = lam * N / (1 + sigma (N - 1) + kappa N (N - 1)), N = threads (summed over OSTs as the
survey reports them) or client nodes; sigma is contention, kappa coherency (retrograde) cost. The
peak is at N* = sqrt((1 - sigma) / kappa) when kappa > 0. A peak beyond the largest tested count
is not claimed (the curve is "still rising" and the peak is taken at the largest count measured),
and the peak's height is no higher than the data support: at most the best measured point plus
the fit's RMS residual (its noise). Every measured point is used (all object counts at a thread
count), so a lucky run does not lift the curve. The recommended count is the smallest tested one
reaching 95 % of the peak; where the curve falls again beyond the peak, by 5 %, is reported too.
The 95 % range of the peak comes from a bootstrap over the points and always contains the
measured maximum.
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
    falls_after: float | None
    """Count beyond the peak where the curve is 5 % below it again (oversubscription), None if not within 4x the largest tested."""
    measured_max_gbps: float
    axis: str
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


AXES = {
    "threads": ("thread counts", "Run obdfilter-survey with a wider thrlo..thrhi range."),
    "clients": ("client counts", "Run IOR at more client node counts."),
}


def fit_usl(threads, gbps, *, operation: str, axis: str = "threads", rng_seed: int = 0, bootstrap: int = 200) -> UslFit:
    """Fit X(N) to (count, GB/s) points; refuse with a clear reason when there are too few.

    `axis` names what N counts: "threads" (obdfilter-survey) or "clients" (IOR client nodes)."""
    what, advice = AXES[axis]
    n = np.asarray(threads, dtype=float)
    x = np.asarray(gbps, dtype=float)
    ok = np.isfinite(n) & np.isfinite(x) & (n > 0) & (x > 0)
    n, x = n[ok], x[ok]
    distinct = np.unique(n)
    if distinct.size < MIN_POINTS:
        raise FitError(
            f"{operation}: a fit needs results at {MIN_POINTS} or more different {what}; "
            f"this sweep has {distinct.size} ({', '.join(str(int(v)) for v in distinct) or 'none'}). {advice}"
        )
    try:
        lam, sigma, kappa = _fit_params(n, x)
    except (RuntimeError, ValueError) as exc:
        raise FitError(f"{operation}: the curve could not be fitted ({exc})") from exc
    predicted = usl(n, lam, sigma, kappa)
    residuals = x - predicted
    ss_res = float(np.sum(residuals**2))
    ss_tot = float(np.sum((x - x.mean()) ** 2)) or 1e-12
    rms = float(np.sqrt(ss_res / x.size))
    measured_max = float(x.max())
    n_star, fitted_peak = _peak(lam, sigma, kappa, distinct.max())
    peak = min(fitted_peak, measured_max + rms)

    # bootstrap over the points: refit on resampled (count, GB/s) pairs, with the same bound
    rng = np.random.default_rng(rng_seed)
    peaks = []
    for _ in range(bootstrap):
        pick = rng.integers(0, x.size, size=x.size)
        nb, xb = n[pick], x[pick]
        if np.unique(nb).size < 3:
            continue
        try:
            b = _fit_params(nb, xb)
        except (RuntimeError, ValueError):
            continue
        fb = usl(nb, *b)
        rms_b = float(np.sqrt(np.mean((xb - fb) ** 2)))
        peaks.append(min(_peak(*b, distinct.max())[1], float(xb.max()) + rms_b))
    low, high = (float(np.percentile(peaks, 2.5)), float(np.percentile(peaks, 97.5))) if len(peaks) >= 20 else (peak, peak)
    low, high = min(low, peak, measured_max), max(high, peak, measured_max)

    grid = np.unique(np.concatenate([distinct, np.linspace(distinct.min(), max(distinct.max(), n_star), 60)]))
    curve_y = usl(grid, lam, sigma, kappa)
    target = SATURATION * min(peak, fitted_peak)
    reach = distinct[usl(distinct, lam, sigma, kappa) >= target]
    recommended = int(reach.min()) if reach.size else int(distinct.max())
    saturation = int(np.ceil(grid[curve_y >= target].min())) if np.any(curve_y >= target) else int(distinct.max())
    falls_after = None
    if kappa > 1e-12:
        beyond = np.linspace(n_star, 4.0 * distinct.max(), 400)
        below = beyond[usl(beyond, lam, sigma, kappa) < SATURATION * fitted_peak]
        falls_after = float(below.min()) if below.size else None
    return UslFit(
        operation=operation,
        lam=float(lam),
        sigma=float(sigma),
        kappa=float(kappa),
        peak_gbps=peak,
        peak_threads=n_star,
        saturation_threads=saturation,
        recommended_threads=recommended,
        falls_after=falls_after,
        measured_max_gbps=measured_max,
        axis=axis,
        rms_residual_gbps=rms,
        max_abs_residual_gbps=float(np.max(np.abs(residuals))),
        r_squared=1.0 - ss_res / ss_tot,
        peak_gbps_low=low,
        peak_gbps_high=high,
        points=[[float(a), float(b)] for a, b in zip(n, x, strict=True)],
        residuals=[float(r) for r in residuals],
        curve=[[float(a), float(b)] for a, b in zip(grid, curve_y, strict=True)],
    )


def throughput_at(fit: dict, count: float) -> float:
    """A fitted curve's throughput (GB/s) at `count` (threads or client nodes), never above its peak."""
    return float(min(usl(count, fit["lam"], fit["sigma"], fit["kappa"]), fit["peak_gbps"]))


FLAGS = ("SHORT", "ERROR")
"""What obdfilter-survey prints in place of a case's per-OST [min, max]: ERROR when a test thread failed,
SHORT when it collected no per-OST statistics for the case (lustre-iokit's obdfilter-survey script). Either
way the aggregate is not a complete measurement, even when a rate is printed before the flag."""


def flagged(rows, operation: str) -> list:
    """The cases whose `operation` result obdfilter-survey flagged SHORT or ERROR: (line, OSTs, flag)."""
    out = []
    for r in rows:
        flag = ((r.results.get(operation) or {}).get("flag") or "").upper()
        if flag in FLAGS:
            out.append((r.line, r.osts, flag))
    return out


def sweep_points(rows, operation: str, osts: int | None = None) -> tuple[list[float], list[float]]:
    """(threads, GB/s) from obdfilter-survey rows of one OST count (all when `osts` is None):
    every case is a point, so several object counts at one thread count all count. Results flagged
    SHORT or ERROR are left out (see `FLAGS`)."""
    points = sorted(
        (float(r.threads), v)
        for r in rows
        if (osts is None or r.osts == osts)
        and (v := r.gbps(operation)) is not None
        and ((r.results.get(operation) or {}).get("flag") or "").upper() not in FLAGS
    )
    return [p[0] for p in points], [p[1] for p in points]


def ost_counts(rows) -> list[int]:
    """The OST counts an obdfilter-survey output swept, ascending."""
    return sorted({r.osts for r in rows})
