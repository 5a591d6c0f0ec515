"""Design to target: find the cheapest designs meeting the targets, rank them, and mark the Pareto
frontier over (price, usable PiB, GB/s), without evaluating every candidate.

A candidate is one brick line (a brick option: template, disk, expansions, adapter, and a count),
or two or three lines mixed, in the request's rack, tuning, failover, metadata placement and
price list. Pure numpy.

Brick counts: `max_count` caps the bricks of every candidate in all, its lines together (a single line
has 1..max_count bricks). Mixes also have a cap per line (`pair_max_count`, `triple_max_count`): a
two-line mix has 1..pair_max_count bricks on each line and at most max_count together.

How the search is pruned (`solve`):

- For a single line, usable capacity, read and write GB/s are non-decreasing in the brick count, and
  so are price, racks and rack fit, when the option passes `monotone_options` (checked from its
  arrays: a brick costs at least as much as the standby server it replaces, a standby server is no
  taller than a brick, blanking panels saved cost less than a brick, no retrograde client curve).
  For those options the smallest count meeting every "at least" target and the largest meeting
  every "at most" constraint are found by bisection (interpolation guesses plus a few evenly spaced
  probes per round), so the feasible counts are one interval per option, counted without
  evaluating it.
- Within an option, price does not fall as the count grows, so everything cheaper than the
  cheapest unevaluated count is known. Counts are evaluated cheapest first, in rounds, until at
  least `limit` frontier points lie below that price bound: the ranked list and the returned part
  of the frontier (both cheapest first) are then exactly those of the brute-force search.
- Options that fail the check, two-line mixes (1..30 bricks each) and three-line mixes (a few bricks
  each, only of options on the one- or two-line frontier) are evaluated in full: they are small.

A search can be split into parts over option ranges (`solve_part`), each returning its feasible
count, its best reachable figures, its cheapest `limit` feasible candidates and its frontier below a
price bound; `merge_parts` merges them exactly (or names the parts it needs again with a larger
frontier, when the merged frontier below every part's bound is shorter than `limit`).
"""

from __future__ import annotations

import dataclasses
import itertools
from dataclasses import dataclass, field

import numpy as np

from .batch import BatchInput, evaluate_batch
from .inputs import PARTS, DesignInput
from .reliability import OST_SPREAD_THRESHOLD, group_loss_rate, ost_bytes
from .units import GB, HOURS_PER_YEAR, PIB

EPS = 1e-9
PAIR_BLOCK = 10**9  # ordering key of two-line mixes: after every single line
TRIPLE_BLOCK = 2 * 10**9
TRIPLE_MAX_OPTIONS = 6  # three-line mixes: at most this many options (those on the one- or two-line frontier) ...
TRIPLE_MAX_COUNT = 8  # ... with 1 to 8 bricks on each line (per line; max_count still caps the three together)
EVAL_ROWS = 20_000  # designs per evaluate_batch call (bounded memory)
PROBES = 3  # evenly spaced probes per bisection round, besides the interpolation guesses


@dataclass
class Targets:
    """What the design must deliver. None means no constraint."""

    usable_pib: float | None = None
    read_gbps: float | None = None
    write_gbps: float | None = None
    budget: float | None = None
    max_racks: int | None = None
    max_loss_probability: float | None = None
    """Highest acceptable probability of data loss in a year (e.g. 1e-4), see `reliability.py`."""


@dataclass
class Candidate:
    option: int
    count: int
    usable_pib: float
    read_gbps: float
    write_gbps: float
    price: float
    rack_count: int
    units_used: int
    power_w: float = 0.0
    loss_probability: float = 0.0  # of data loss in a year
    on_frontier: bool = False
    option2: int | None = None  # a mix: a second brick line
    count2: int = 0
    option3: int | None = None  # a three-line mix: a third brick line
    count3: int = 0


@dataclass
class SolveResult:
    candidates_evaluated: int  # the size of the search space (every candidate it stands for)
    feasible: int
    ranked: list = field(default_factory=list)  # cheapest first (at most `limit`)
    frontier: list = field(default_factory=list)  # Pareto-optimal feasible candidates, by price
    unmet: list = field(default_factory=list)  # when nothing is feasible: which constraints cannot be met, with the best reachable
    designs_evaluated: int = 0  # designs the engine actually evaluated (pruning: far fewer than the space)


# ---------------------------------------------------------------------------------------------------------------
# Pareto frontier


def pareto_mask(price: np.ndarray, usable: np.ndarray, gbps: np.ndarray) -> np.ndarray:
    """True for points no other point beats on all of: lower (or equal) price, more (or equal) capacity,
    more (or equal) throughput. Of identical points the first is kept.

    Points are ordered by (price, -capacity, -throughput, position): a point is dominated exactly when
    an earlier one has at least its capacity and throughput. That question is answered for all pairs
    (earlier, later) at once by divide and conquer over the order (one level per power of two, each
    level a sort, a cumulative maximum and a binary search over every point): O(n log^2 n), with
    no Python loop over points.
    """
    price, usable, gbps = (np.asarray(a, dtype=float) for a in (price, usable, gbps))
    n = price.size
    if n < 2:
        return np.ones(n, dtype=bool)
    order = np.lexsort((-gbps, -usable, price))
    u, g = usable[order], gbps[order]
    ru = _dense_rank(-u)  # small rank: much capacity
    rg = _dense_rank(g)
    pos = np.arange(n, dtype=np.int64)
    dominated = np.zeros(n, dtype=bool)
    size = 1
    while size < n:
        block = pos // (2 * size)
        left = (pos // size) % 2 == 0
        li = pos[left]
        ri = pos[~left]
        if ri.size:
            key_l = block[li] * n + ru[li]
            srt = np.argsort(key_l, kind="stable")
            key_sorted = key_l[srt]
            # the most throughput among the left half's points with at least this much capacity (same block)
            best = np.maximum.accumulate(block[li][srt] * (n + 1) + rg[li][srt])
            q = block[ri] * n + ru[ri]
            at = np.searchsorted(key_sorted, q, side="right") - 1
            ok = at >= 0
            same = np.zeros(ri.size, dtype=bool)
            same[ok] = key_sorted[at[ok]] >= block[ri][ok] * n
            top = np.where(same, best[np.maximum(at, 0)] - block[ri] * (n + 1), -1)
            dominated[ri] |= top >= rg[ri]
        size *= 2
    mask = np.zeros(n, dtype=bool)
    mask[order] = ~dominated
    return mask


def _dense_rank(values: np.ndarray) -> np.ndarray:
    """0 for the smallest value, equal values equal ranks."""
    _, inverse = np.unique(values, return_inverse=True)
    return inverse.astype(np.int64).ravel()


# ---------------------------------------------------------------------------------------------------------------
# Which options may be bisected


def monotone_options(base: BatchInput) -> np.ndarray:
    """For each one-line design of `base` (count ignored): True when capacity, read and write GB/s, price,
    racks and rack fit are all non-decreasing in its brick count, as the search's bisection assumes.

    From the engine's own figures (`evaluate_batch`):
    - capacity is count x per-brick bytes; GB/s is count x a per-brick figure, capped by the clients and
      the fabric (constants of the design); a calibrated client curve X(n) at n = clients x bricks
      measured / count makes the line deliver lam x clients / (1 + sigma (n-1) + kappa n (n-1)), which
      grows with the count when sigma and kappa are not negative;
    - racks: bricks are packed next-fit, a standby server (HA pairing of an odd count) last; one brick
      more either appends a brick or replaces the standby with a brick, so the racks never fall when a
      standby server is no taller than a brick;
    - price: one brick more adds a brick's parts, support and energy and may drop the standby
      server's; the rack's blanking panels over the units it takes are saved. Non-decreasing when
      brick - standby - panels saved >= 0, with every price and power not negative.
    """
    g, parts, dp, d = base.groups, base.parts, base.dparts, base.designs
    paired = np.asarray(d["paired"], dtype=bool)
    energy = HOURS_PER_YEAR / 1000.0 * d["years"] * d["pue"] * d["energy_price"]  # per W of power
    support = d["support_per_server_year"] * d["years"]
    server = PARTS.index("server")
    line_cost = lambda qty: (  # noqa: E731 - price, energy and support of so many parts of the line, per design
        np.sum(qty * parts["price"], axis=(1, 2))
        + energy * np.sum(qty * parts["power"], axis=(1, 2))
        + support * np.sum(qty[..., server], axis=1)
    )
    brick = line_cost(parts["per_brick"])
    standby = np.where(paired, line_cost(parts["per_standby"]), 0.0)
    h = g["brick_height"][:, 0]
    sh = np.where(paired, g["standby_height"][:, 0], 0.0)
    panels = np.sum(np.ceil((h + sh)[:, None] * dp["per_free_unit"] - EPS) * (dp["price"] + energy[:, None] * dp["power"]), axis=1)
    ok = brick - standby - panels >= -EPS
    ok &= sh <= h
    ok &= np.all(parts["price"] >= 0, axis=(1, 2)) & np.all(parts["power"] >= 0, axis=(1, 2))
    ok &= np.all(dp["price"] >= 0, axis=1) & np.all(dp["power"] >= 0, axis=1) & (support >= 0) & (energy >= 0)
    curve = (g["cc_bricks"][:, 0] > 0) & (d["client_nodes"] > 0)
    for op in ("read", "write"):
        has = curve & (g[f"cc_{op}_lam"][:, 0] > 0)
        ok &= ~has | ((g[f"cc_{op}_sigma"][:, 0] >= 0) & (g[f"cc_{op}_kappa"][:, 0] >= 0))
    return ok


# ---------------------------------------------------------------------------------------------------------------
# Evaluation helpers


COLUMNS = ("usable", "read", "write", "price", "racks", "units", "power", "fits", "loss")
IDS = ("major", "minor", "option", "count", "option2", "count2", "option3", "count3")


class _Evaluator:
    """Evaluates rows of a base batch (one design per row, G lines) at given counts, bounded in memory."""

    def __init__(self, base: BatchInput, loss_rate: np.ndarray | None = None):
        self.base = base
        self.evaluated = 0
        self.loss_rate = loss_rate
        """(rows, lines): data-loss events per hour per brick (`reliability.group_loss_rate`)."""

    def __call__(self, rows: np.ndarray, counts: np.ndarray) -> dict:
        rows = np.asarray(rows, dtype=np.int64)
        counts = np.asarray(counts, dtype=float).reshape(rows.size, -1)
        out = {k: [] for k in COLUMNS}
        for start in range(0, rows.size, EVAL_ROWS):
            batch = self.base.at_counts(rows[start : start + EVAL_ROWS], counts[start : start + EVAL_ROWS])
            res = evaluate_batch(batch)
            for k, v in (
                ("usable", res.usable_bytes / PIB),
                ("read", res.read_gbps),
                ("write", res.write_gbps),
                ("price", res.total),
                ("racks", res.rack_count),
                ("units", res.units_used),
                ("power", res.power_w),
                ("fits", res.racks_fit),
                ("loss", self._loss(rows[start : start + EVAL_ROWS], counts[start : start + EVAL_ROWS])),
            ):
                out[k].append(np.asarray(v))
        self.evaluated += rows.size
        return {k: np.concatenate(v) if v else np.zeros(0) for k, v in out.items()}

    def _loss(self, rows: np.ndarray, counts: np.ndarray) -> np.ndarray:
        """P(data loss in a year) = 1 - exp(-8766 h x sum over lines of count x events per hour per brick)."""
        if self.loss_rate is None:
            return np.zeros(rows.size)
        rate = self.loss_rate[rows][:, : counts.shape[1]]
        return -np.expm1(-HOURS_PER_YEAR * np.add.reduce(counts * rate, axis=1))


def loss_rates(designs: list[DesignInput], batch: BatchInput) -> np.ndarray:
    """(designs, lines of the batch): each line's data-loss events per hour per brick, so that a count
    vector gives P(loss in a year) = 1 - exp(-8766 x sum(count x rate)) without evaluating anew."""
    width = batch.groups["count"].shape[1]
    rows = []
    known: dict = {}  # options differing only in adapters, counts of HBAs or prices share their rate
    for d in designs:
        row = [0.0] * width
        for j, g in enumerate(d.bricks):
            key = _loss_key(g)
            rate = known.get(key)
            if rate is None:
                rate = known[key] = group_loss_rate(g, g.disk.read_mbps * g.disk.sustained_factor)
            row[j] = rate
        rows.append(row)
    return np.array(rows, dtype=float).reshape(len(designs), width)


def _loss_key(g) -> tuple:
    """Everything `reliability.group_loss_rate` reads of a brick line: its RAID layout, the disk's size,
    rates and failure figures, whether a controller or software rebuilds, and how many enclosures."""
    disk = g.disk
    return (
        g.raid,
        disk.capacity_bytes,
        disk.read_mbps,
        disk.sustained_factor,
        disk.afr_percent,
        disk.ure_per_bit,
        g.head.controllers,
        g.enclosures,
    )


def _at_least(f: dict, targets: Targets) -> np.ndarray:
    return (
        (f["usable"] >= (targets.usable_pib or 0) - EPS)
        & (f["read"] >= (targets.read_gbps or 0) - EPS)
        & (f["write"] >= (targets.write_gbps or 0) - EPS)
    )


def _at_most(f: dict, targets: Targets) -> np.ndarray:
    ok = np.asarray(f["fits"], dtype=bool).copy()
    if targets.budget is not None:
        ok &= f["price"] <= targets.budget
    if targets.max_racks is not None:
        ok &= f["racks"] <= targets.max_racks
    if targets.max_loss_probability is not None:
        ok &= f["loss"] <= targets.max_loss_probability
    return ok


class _Points:
    """Evaluated candidates, as columns."""

    def __init__(self):
        self.parts: list[dict] = []

    def add(self, figures: dict, ids: dict) -> None:
        n = figures["price"].size
        if n:
            self.parts.append(
                {
                    **figures,
                    **{
                        k: np.broadcast_to(np.asarray(ids.get(k, -1 if k.startswith("option") and k != "option" else 0)), (n,)) for k in IDS
                    },
                }
            )

    def arrays(self) -> dict:
        if not self.parts:
            return {k: np.zeros(0) for k in COLUMNS + IDS}
        if len(self.parts) > 1:
            self.parts = [{k: np.concatenate([p[k] for p in self.parts]) for k in COLUMNS + IDS}]
        return self.parts[0]


def _stats_of(f: dict) -> dict:
    """The best reachable figure on each axis over some candidates (for targets nothing meets)."""
    if not f["price"].size:
        return {}
    return {
        "usable_pib": float(f["usable"].max()),
        "read_gbps": float(f["read"].max()),
        "write_gbps": float(f["write"].max()),
        "budget": float(f["price"].min()),
        "max_racks": int(f["racks"].min()),
        "max_loss_probability": float(f["loss"].min()),
    }


def _merge_stats(a: dict, b: dict) -> dict:
    if not a or not b:
        return a or b
    return {k: (min if k in ("budget", "max_racks", "max_loss_probability") else max)(a[k], b[k]) for k in a if k in b}


# ---------------------------------------------------------------------------------------------------------------
# Bisection of the feasible counts of monotone options


def _interp(a, b, fa, fb, target, up: bool):
    """Linear interpolation of the count where a figure crosses `target` between counts a and b."""
    with np.errstate(divide="ignore", invalid="ignore"):
        c = a + (target - fa) * (b - a) / (fb - fa)
    c = np.where(np.isfinite(c), c, (a + b) / 2.0)
    return np.ceil(c - EPS) if up else np.floor(c + EPS)


def _feasible_counts(evaluate: _Evaluator, rows: np.ndarray, targets: Targets, max_count: int, progress=None):
    """For each monotone option (row), the interval [lo, hi] of feasible counts (lo > hi: none), and the
    figures at counts 1 and max_count."""
    n = rows.size
    one = evaluate(rows, np.ones(n))
    top = evaluate(rows, np.full(n, float(max_count)))
    a_lo, b_lo = np.zeros(n), np.full(n, float(max_count))  # A false at a_lo (0: no bricks), true at b_lo
    a_hi, b_hi = np.ones(n), np.full(n, float(max_count + 1))  # B true at a_hi, false at b_hi
    at_least_1, at_least_m = _at_least(one, targets), _at_least(top, targets)
    at_most_1, at_most_m = _at_most(one, targets), _at_most(top, targets)
    b_lo = np.where(at_least_1, 1.0, b_lo)
    a_hi = np.where(at_most_m, float(max_count), a_hi)
    never = ~at_least_m | ~at_most_1
    # figures at the interval ends, for interpolation guesses
    up_fig = {"usable": targets.usable_pib, "read": targets.read_gbps, "write": targets.write_gbps}
    up_fig = {k: v for k, v in up_fig.items() if v}
    down = (("price", targets.budget), ("racks", targets.max_racks), ("loss", targets.max_loss_probability))
    down_fig = {k: v for k, v in down if v is not None}
    f_alo = {k: np.zeros(n) for k in up_fig}
    f_blo = {k: top[k].copy() for k in up_fig}
    f_ahi = {k: one[k].copy() for k in down_fig}
    f_bhi = {k: top[k].copy() for k in down_fig}
    rounds = 0
    while True:
        need_lo = ~never & (b_lo - a_lo > 1)
        need_hi = ~never & (b_hi - a_hi > 1)
        if not (need_lo.any() or need_hi.any()):
            break
        probe_rows, probe_counts = [], []
        for kind, need, a, b, guesses in (
            (
                "lo",
                need_lo,
                a_lo,
                b_lo,
                [np.max([_interp(a_lo, b_lo, f_alo[k], f_blo[k], t, True) for k, t in up_fig.items()], axis=0)] if up_fig else [],
            ),
            (
                "hi",
                need_hi,
                a_hi,
                b_hi,
                [np.min([_interp(a_hi, b_hi, f_ahi[k], f_bhi[k], t, False) for k, t in down_fig.items()], axis=0)] if down_fig else [],
            ),
        ):
            idx = np.flatnonzero(need)
            if not idx.size:
                continue
            # first round: only around the interpolation guess (exact for figures linear in the count);
            # then evenly spaced probes too, so that each round divides the interval
            even = PROBES if (rounds or not guesses) else 0
            cands = [a[idx, None] + np.ceil((b - a)[idx, None] * np.arange(1, even + 1) / (even + 1))]
            for guess in guesses:
                near = (guess[idx] - 1, guess[idx]) if kind == "lo" else (guess[idx], guess[idx] + 1)
                cands.append(np.stack(near, axis=1))
            c = np.concatenate(cands, axis=1)
            c = np.clip(c, a[idx, None] + 1, b[idx, None] - 1)
            c.sort(axis=1)
            keep = np.ones(c.shape, dtype=bool)
            keep[:, 1:] = c[:, 1:] != c[:, :-1]
            probe_rows.append(np.repeat(idx, keep.sum(axis=1)))
            probe_counts.append(c[keep])
        which = np.concatenate(probe_rows)
        counts = np.concatenate(probe_counts)
        # a count may be probed by both searches: evaluate it once
        key = np.unique(which * (max_count + 2) + counts.astype(np.int64))
        which, counts = key // (max_count + 2), (key % (max_count + 2)).astype(float)
        f = evaluate(rows[which], counts)
        ok_lo, ok_hi = _at_least(f, targets), _at_most(f, targets)
        # narrow: lo search keeps the largest failing probe below b and the smallest passing one
        for ok, a, b, fa_store, fb_store, kind in ((ok_lo, a_lo, b_lo, f_alo, f_blo, "lo"), (ok_hi, a_hi, b_hi, f_ahi, f_bhi, "hi")):
            inside = (counts > a[which]) & (counts < b[which])
            good = inside & (ok if kind == "lo" else ~ok)  # moves b
            bad = inside & ~(ok if kind == "lo" else ~ok)  # moves a
            new_b = b.copy()
            np.minimum.at(new_b, which[good], counts[good])
            new_a = a.copy()
            np.maximum.at(new_a, which[bad], counts[bad])
            for store, new, old in ((fb_store, new_b, b), (fa_store, new_a, a)):
                moved = new != old
                if moved.any() and store:
                    sel = np.flatnonzero(np.isin(which, np.flatnonzero(moved)) & (counts == new[which]))
                    for k in store:
                        store[k][which[sel]] = f[k][sel]
            a[:], b[:] = new_a, new_b
        rounds += 1
        if progress is not None:
            progress(min(0.5, 0.1 * rounds))
    lo = np.where(never, max_count + 1, b_lo).astype(np.int64)
    hi = np.where(never, 0, a_hi).astype(np.int64)
    return lo, hi, one, top


# ---------------------------------------------------------------------------------------------------------------
# The search


@dataclass
class Partial:
    """One part of a search: enough to merge exactly with the other parts."""

    space: int  # candidates it stands for
    evaluated: int  # designs evaluated
    feasible: int
    bound: float  # every feasible candidate of this part cheaper than this is among `points`, or inf: all of them
    stats: dict  # best reachable figure on each axis (over all candidates of the part)
    points: dict  # columns (COLUMNS + IDS): the part's cheapest `limit` feasible candidates and its frontier below `bound`

    def as_json(self) -> dict:
        return {
            "space": self.space,
            "evaluated": self.evaluated,
            "feasible": self.feasible,
            "bound": None if not np.isfinite(self.bound) else float(self.bound),
            "stats": self.stats,
            "points": {k: np.asarray(v).tolist() for k, v in self.points.items()},
        }

    @classmethod
    def from_json(cls, data: dict) -> "Partial":
        return cls(
            space=data["space"],
            evaluated=data["evaluated"],
            feasible=data["feasible"],
            bound=np.inf if data["bound"] is None else data["bound"],
            stats=data["stats"],
            points=_with_loss(
                {k: np.asarray(v, dtype=np.int64 if k in IDS else bool if k == "fits" else float) for k, v in data["points"].items()}
            ),
        )


def _with_loss(points: dict) -> dict:
    """Points stored before the loss column existed count as no risk (0)."""
    if "loss" not in points and "price" in points:
        points["loss"] = np.zeros(np.asarray(points["price"]).size)
    return points


def _ordered(p: dict) -> dict:
    """Points in the brute-force search's enumeration order (ties in price and capacity keep that order)."""
    order = np.lexsort((p["minor"], p["major"]))
    return {k: np.asarray(v)[order] for k, v in p.items()}


def _feasible_points(p: dict, targets: Targets) -> dict:
    ok = _at_least(p, targets) & _at_most(p, targets)
    return {k: np.asarray(v)[ok] for k, v in p.items()}


def _dominated(fp, fu, fg, price, usable, gbps) -> np.ndarray:
    """For each query (price, usable, gbps): whether a point (fp, fu, fg) has at most its price, at least
    its capacity and throughput, and is strictly better on one of them."""
    out = np.zeros(price.size, dtype=bool)
    step = max(1, 2_000_000 // max(fp.size, 1))
    for a in range(0, price.size, step):
        p, u, g = price[a : a + step, None], usable[a : a + step, None], gbps[a : a + step, None]
        beats = (fp <= p) & (fu >= u) & (fg >= g) & ((fp < p) | (fu > u) | (fg > g))
        out[a : a + step] = beats.any(axis=1)
    return out


def _select(p: dict, targets: Targets, bound: float, limit: int, frontier_limit: int):
    """Of points (feasible or not), those feasible and cheaper than `bound`: the cheapest `limit`, the
    frontier (cheapest first, with how many frontier points there are), as indices into `p`."""
    ok = _at_least(p, targets) & _at_most(p, targets) & (p["price"] < bound)
    idx = np.flatnonzero(ok)
    if not idx.size:
        return idx, idx, 0
    gbps = np.minimum(p["read"][idx], p["write"][idx])
    front = pareto_mask(p["price"][idx], p["usable"][idx], gbps)
    by_price = np.lexsort((-p["usable"][idx], p["price"][idx]))  # stable: enumeration order breaks ties
    ranked = idx[by_price[:limit]]
    frontier = idx[by_price[front[by_price]]]
    return ranked, frontier if frontier_limit is None else frontier[:frontier_limit], int(front.sum())


def _mix_counts(lines: int, per_line: int, total: int) -> np.ndarray:
    """The brick counts a mix of `lines` lines is tried at, (n, lines): 1..per_line on each line and at most
    `total` bricks in all, in the order of the brute-force enumeration (the last line's count varying fastest)."""
    top = max(0, min(per_line, total - (lines - 1)))  # each other line takes at least one brick
    grids = np.meshgrid(*[np.arange(1, top + 1)] * lines, indexing="ij")
    grid = np.stack([gr.ravel() for gr in grids], axis=1).astype(np.int64).reshape(-1, lines)
    return grid[grid.sum(axis=1) <= total]


def solve_part(
    options: list[DesignInput],
    targets: Targets,
    *,
    max_count: int = 200,
    limit: int = 50,
    frontier_limit: int | None = None,
    indices=None,
    pairs: list[tuple[int, int]] = (),
    pair_max_count: int = 0,
    triples: list[tuple[int, int, int]] = (),
    triple_max_count: int = TRIPLE_MAX_COUNT,
    prune: bool = True,
    progress=None,
) -> Partial:
    """Search options `indices` (default: all) at counts 1..max_count, the `pairs` mixed at 1..pair_max_count
    each and the `triples` at 1..triple_max_count each, every mix with at most max_count bricks in all: a
    Partial holding the cheapest `limit` feasible candidates and at least `frontier_limit` (default `limit`)
    frontier points below its price bound."""
    frontier_limit = frontier_limit or limit
    indices = np.arange(len(options)) if indices is None else np.asarray(indices, dtype=np.int64)
    fixed = _Points()
    evaluated = 0
    feasible = 0
    stats: dict = {}
    space = indices.size * max_count + len(pairs) * len(_mix_counts(2, pair_max_count, max_count))
    space += len(triples) * len(_mix_counts(3, triple_max_count, max_count))

    # single lines
    base = BatchInput.from_designs([options[i] for i in indices]) if indices.size else None
    single = _Evaluator(base, loss_rates([options[i] for i in indices], base)) if base is not None else None
    mono = monotone_options(base) if (base is not None and prune) else np.zeros(indices.size, dtype=bool)
    rows_m = np.flatnonzero(mono)
    rows_b = np.flatnonzero(~mono) if base is not None else np.zeros(0, dtype=np.int64)
    if rows_b.size:  # evaluated at every count
        per = max(1, EVAL_ROWS // max_count)
        for start in range(0, rows_b.size, per):
            r = rows_b[start : start + per]
            rr = np.repeat(r, max_count)
            cc = np.tile(np.arange(1, max_count + 1), r.size)
            f = single(rr, cc)
            feasible += int((_at_least(f, targets) & _at_most(f, targets)).sum())
            stats = _merge_stats(stats, _stats_of(f))
            fixed.add(f, {"major": indices[rr], "minor": cc, "option": indices[rr], "count": cc})
    # mixes, evaluated in full: every mix of one arity in one batch
    for block, combos, top in ((PAIR_BLOCK, pairs, pair_max_count), (TRIPLE_BLOCK, triples, triple_max_count)):
        if not combos or top < 1:
            continue
        combos = np.asarray(combos, dtype=np.int64)
        lines = combos.shape[1]
        grid = _mix_counts(lines, top, max_count)
        if not grid.shape[0]:  # max_count is fewer bricks than lines
            continue
        mixed = [mix_design([options[i] for i in combo]) for combo in combos.tolist()]
        mixed_batch = BatchInput.from_designs(mixed)
        mixes = _Evaluator(mixed_batch, loss_rates(mixed, mixed_batch))
        rr = np.repeat(np.arange(combos.shape[0]), grid.shape[0])
        counts = np.tile(grid, (combos.shape[0], 1))
        f = mixes(rr, counts)
        evaluated += rr.size
        feasible += int((_at_least(f, targets) & _at_most(f, targets)).sum())
        stats = _merge_stats(stats, _stats_of(f))
        ids = {"major": block + rr, "minor": sum(counts[:, j] * (top + 1) ** (lines - 1 - j) for j in range(lines))}
        for j, name in enumerate(("", "2", "3")[:lines]):
            ids[f"option{name}"] = combos[rr, j]
            ids[f"count{name}"] = counts[:, j]
        fixed.add(f, ids)

    # monotone single lines: bisection, then cheapest first until the frontier below the bound is long enough
    bound = np.inf
    if rows_m.size:
        rows = rows_m
        lo, hi, one, top_f = _feasible_counts(single, rows, targets, max_count, progress)
        stats = _merge_stats(stats, _stats_of({k: np.concatenate([one[k], top_f[k]]) for k in COLUMNS}))
        live = lo <= hi
        feasible += int(np.sum(np.where(live, hi - lo + 1, 0)))
        kept = _feasible_points(fixed.arrays(), targets)
        slope = np.maximum((top_f["price"] - one["price"]) / max(max_count - 1, 1), EPS)  # price per brick, roughly
        s = lo.copy()  # first count of each option not yet reached
        last = np.full(rows.size, -np.inf)  # price at s - 1 (a lower bound of every count from s)
        # blocks of counts strictly between two evaluated counts a < b, neither evaluated nor shown to be dominated
        blk = {k: np.zeros(0, dtype=np.int64) for k in ("row", "a", "b")}
        blk.update({k: np.zeros(0) for k in ("price_a", "usable_b", "gbps_b")})
        budget, rounds = max(4 * frontier_limit, 64), 0
        while True:
            act = np.flatnonzero(live & (s <= hi))
            if not act.size and not blk["row"].size:
                bound = np.inf
                break
            if rounds == 0:
                e = s.copy()  # each feasible option's cheapest count first
            else:  # each option's next block: its counts estimated below a common price, about `budget` counts in all
                e = s - 1
                if act.size:
                    room = (hi - s + 1)[act]
                    t_lo, t_hi = float(last[act].min()), float((last[act] + slope[act] * room).max())
                    for _ in range(30):
                        t = (t_lo + t_hi) / 2.0
                        n_new = np.clip(np.floor((t - last[act]) / slope[act]), 0, room).sum()
                        t_lo, t_hi = (t, t_hi) if n_new < budget else (t_lo, t)
                    step = np.clip(np.floor((t_hi - last[act]) / slope[act]), 0, room)
                    step = np.where(last[act] <= last[act].min(), np.maximum(step, 1), step)  # the cheapest always moves
                    e[act] = s[act] + step.astype(np.int64) - 1
                budget *= 2
            go = act[e[act] >= s[act]]
            two = go[e[go] > s[go]]
            # pending blocks: small ones evaluated whole, larger ones at their middle
            width = blk["b"] - blk["a"] - 1
            small = width <= 3
            whole = np.repeat(np.flatnonzero(small), width[small])
            whole_c = blk["a"][whole] + 1 + (np.arange(whole.size) - np.repeat(np.cumsum(width[small]) - width[small], width[small]))
            split = np.flatnonzero(~small)
            mid = (blk["a"][split] + blk["b"][split]) // 2
            r_all = np.concatenate([go, two, blk["row"][split], blk["row"][whole]])
            c_all = np.concatenate([s[go], e[two], mid, whole_c])
            f = single(rows[r_all], c_all)
            new = {**f, "major": indices[rows[r_all]], "minor": c_all, "option": indices[rows[r_all]], "count": c_all}
            new.update(option2=np.full(c_all.size, -1), count2=np.zeros(c_all.size, dtype=np.int64))
            new.update(option3=np.full(c_all.size, -1), count3=np.zeros(c_all.size, dtype=np.int64))
            p = _ordered({k: np.concatenate([np.asarray(kept[k]), np.asarray(new[k])]) for k in COLUMNS + IDS})
            gb = np.minimum(p["read"], p["write"])
            front = pareto_mask(p["price"], p["usable"], gb)
            by_price = np.lexsort((-p["usable"], p["price"]))
            top = np.zeros(front.size, dtype=bool)
            top[by_price[:limit]] = True
            x = p["price"][by_price[limit - 1]] if by_price.size >= limit else np.inf  # dearer than x: never ranked
            kept = {k: v[front | top] for k, v in p.items()}
            # the blocks left: new ones (between each option's s and e) and the halves of those split
            fg = np.minimum(f["read"], f["write"])
            i_s, i_e = np.arange(go.size), go.size + np.searchsorted(two, two)
            i_m = go.size + two.size + np.arange(split.size)
            g_e = np.full(go.size, -1)
            g_e[np.searchsorted(go, two)] = i_e
            new_blk = {
                "row": np.concatenate([two, blk["row"][split], blk["row"][split]]),
                "a": np.concatenate([s[two], blk["a"][split], mid]),
                "b": np.concatenate([e[two], mid, blk["b"][split]]),
                "price_a": np.concatenate([f["price"][i_s[np.searchsorted(go, two)]], blk["price_a"][split], f["price"][i_m]]),
                "usable_b": np.concatenate([f["usable"][i_e], f["usable"][i_m], blk["usable_b"][split]]),
                "gbps_b": np.concatenate([fg[i_e], fg[i_m], blk["gbps_b"][split]]),
            }
            fp, fu, fgb = p["price"][front], p["usable"][front], gb[front]
            # a block is dropped when it cannot be ranked and a known point beats its best corner
            drop = (new_blk["price_a"] > x) & _dominated(fp, fu, fgb, new_blk["price_a"], new_blk["usable_b"], new_blk["gbps_b"])
            drop |= new_blk["b"] - new_blk["a"] <= 1
            blk = {k: v[~drop] for k, v in new_blk.items()}
            if go.size:
                at_e = np.where(g_e >= 0, g_e, i_s)
                last[go] = f["price"][at_e]
                s[go] = e[go] + 1
            act = np.flatnonzero(live & (s <= hi))
            bound = min(float(last[act].min()) if act.size else np.inf, float(blk["price_a"].min()) if blk["row"].size else np.inf)
            n_front = int((front & (p["price"] < bound)).sum())
            rounds += 1
            if n_front >= frontier_limit or not np.isfinite(bound):
                break
            if progress is not None:
                progress(min(0.9, 0.5 + 0.03 * rounds))
        fixed = _Points()
        fixed.parts.append(kept)
    evaluated += single.evaluated if single is not None else 0
    p = _ordered(fixed.arrays())
    ranked, frontier, _ = _select(p, targets, bound, limit, None)  # the whole frontier below the bound: parts merge exactly
    keep = np.union1d(ranked, frontier)
    return Partial(space=space, evaluated=evaluated, feasible=feasible, bound=bound, stats=stats, points={k: v[keep] for k, v in p.items()})


def merge_parts(parts: list[Partial], targets: Targets, *, limit: int = 50) -> tuple[SolveResult | None, list[int]]:
    """Merge searches over disjoint parts of a space. Returns (result, []) when exact, or (None, parts to
    search again with a larger frontier) when the merged frontier below every part's bound is shorter than
    `limit` (a part returned only the start of its frontier, and the other parts dominate it)."""
    bound = min((p.bound for p in parts), default=np.inf)
    points = _ordered({k: np.concatenate([_with_loss(p.points)[k] for p in parts]) for k in COLUMNS + IDS})
    ranked, frontier, n_front = _select(points, targets, bound, limit, limit)
    if n_front < limit and np.isfinite(bound):
        return None, [i for i, p in enumerate(parts) if np.isfinite(p.bound)]
    stats: dict = {}
    for p in parts:
        stats = _merge_stats(stats, p.stats)
    result = SolveResult(
        candidates_evaluated=sum(p.space for p in parts),
        feasible=sum(p.feasible for p in parts),
        designs_evaluated=sum(p.evaluated for p in parts),
    )
    if not result.feasible:
        checks = {
            "usable_pib": targets.usable_pib is None or stats.get("usable_pib", 0) >= targets.usable_pib - EPS,
            "read_gbps": targets.read_gbps is None or stats.get("read_gbps", 0) >= targets.read_gbps - EPS,
            "write_gbps": targets.write_gbps is None or stats.get("write_gbps", 0) >= targets.write_gbps - EPS,
            "budget": targets.budget is None or stats.get("budget", np.inf) <= targets.budget,
            "max_racks": targets.max_racks is None or stats.get("max_racks", np.inf) <= targets.max_racks,
            "max_loss_probability": targets.max_loss_probability is None
            or stats.get("max_loss_probability", np.inf) <= targets.max_loss_probability,
        }
        for name, passed in checks.items():
            if not passed:
                result.unmet.append({"constraint": name, "target": getattr(targets, name), "best_reachable": stats.get(name)})
        if not result.unmet:  # each constraint can be met, but not together
            result.unmet.append({"constraint": "combination", "target": None, "best_reachable": None})
        return result, []
    on_front = set(frontier.tolist())
    result.ranked = [_candidate(points, int(i), int(i) in on_front) for i in ranked]
    result.frontier = [_candidate(points, int(i), True) for i in frontier]
    return result, []


def _candidate(p: dict, i: int, frontier: bool) -> Candidate:
    return Candidate(
        option=int(p["option"][i]),
        count=int(p["count"][i]),
        option2=int(p["option2"][i]) if p["option2"][i] >= 0 else None,
        count2=int(p["count2"][i]),
        option3=int(p["option3"][i]) if p["option3"][i] >= 0 else None,
        count3=int(p["count3"][i]),
        usable_pib=float(p["usable"][i]),
        read_gbps=float(p["read"][i]),
        write_gbps=float(p["write"][i]),
        price=float(p["price"][i]),
        rack_count=int(p["racks"][i]),
        units_used=int(p["units"][i]),
        power_w=float(p["power"][i]),
        loss_probability=float(p["loss"][i]),
        on_frontier=frontier,
    )


def merge_exact(parts: list[Partial], rerun, targets: Targets, *, limit: int = 50) -> SolveResult:
    """Merge parts; while the merge needs more of some parts, search them again with a frontier four times
    longer (`rerun(i, frontier_limit)` gives part i anew, replacing it in `parts`) until the merge is exact."""
    frontier_limit = limit
    while True:
        result, again = merge_parts(parts, targets, limit=limit)
        if result is not None:
            return result
        frontier_limit *= 4
        for i in again:
            parts[i] = rerun(i, frontier_limit)


def even_osts(options: list[DesignInput], combo) -> bool:
    """Whether the options of a mix have OSTs of about one size (within Lustre's 17 % free-space
    threshold). A mix of uneven OSTs is not tried: once its smaller OSTs are full, new data goes to
    the lines holding the largest ones alone, so it would not keep the write rate it adds up to
    (`reliability.ost_balance`)."""
    sizes = [ost_bytes(options[i].bricks[0]) for i in combo]
    return min(sizes) > 0 and max(sizes) / min(sizes) - 1.0 <= OST_SPREAD_THRESHOLD


def triple_candidates(result: SolveResult, options: list[DesignInput], described=None) -> list[tuple[int, int, int]]:
    """Three-line mixes worth trying: of options on the one- or two-line frontier (the cheapest first, at
    most TRIPLE_MAX_OPTIONS), every three distinct ones whose OSTs are of about one size (`even_osts`)."""
    chosen: list[int] = []
    for c in result.frontier:
        for o in (c.option, c.option2):
            if o is not None and o not in chosen and len(chosen) < TRIPLE_MAX_OPTIONS:
                chosen.append(o)
    combos = [tuple(sorted(t)) for t in itertools.combinations(chosen, 3)]
    if described is not None:  # no two lines of the same template and disk (that is one line with more bricks)
        name = lambda i: (described[i]["template"], described[i]["disk"])  # noqa: E731
        combos = [t for t in combos if len({name(i) for i in t}) == 3]
    return sorted(t for t in combos if even_osts(options, t))


def solve(
    options: list[DesignInput],
    targets: Targets,
    *,
    max_count: int = 200,
    limit: int = 50,
    progress=None,
    chunk_candidates: int = 100_000,
    pairs: list[tuple[int, int]] = (),
    pair_max_count: int = 0,
    triples: list[tuple[int, int, int]] | None = (),
    triple_max_count: int = TRIPLE_MAX_COUNT,
    prune: bool = True,
    described=None,
) -> SolveResult:
    """The cheapest candidates meeting the targets (at most `limit`) and the start of the Pareto frontier, as
    the brute-force search over every option at counts 1..max_count, every pair at 1..pair_max_count each and
    every triple at 1..triple_max_count each would find them. `max_count` caps every candidate's bricks in all:
    a mix's lines together have at most max_count bricks (pair_max_count and triple_max_count are per line).
    `triples=None`: the three-line mixes of options on the one- and two-line frontier (see `triple_candidates`).
    `chunk_candidates` is kept for callers; the evaluation is bounded by EVAL_ROWS designs at a time."""
    if not options:
        raise ValueError("no brick options to search")

    common = dict(max_count=max_count, limit=limit, prune=prune)

    def lines(frontier_limit):  # single lines and two-line mixes (and triples given by the caller)
        return solve_part(
            options,
            targets,
            frontier_limit=frontier_limit,
            pairs=pairs,
            pair_max_count=pair_max_count,
            triples=triples or (),
            triple_max_count=triple_max_count,
            progress=progress,
            **common,
        )

    parts = [lines(limit)]
    result = merge_exact(parts, lambda i, fl: lines(fl), targets, limit=limit)
    if triples is None:
        combos = triple_candidates(result, options, described)
        if combos:
            parts.append(solve_part(options, targets, indices=[], triples=combos, triple_max_count=triple_max_count, **common))
            result = merge_exact(parts, lambda i, fl: lines(fl), targets, limit=limit)  # the triples part is complete: never again
    if progress is not None:
        progress(1.0)
    return result


def mix_design(lines: list[DesignInput]) -> DesignInput:
    """Several one-line designs as one design of several brick lines: paired when a line is (the engine
    leaves lines of internal bays unpaired), none when none is."""
    failover = "paired" if any(d.failover == "paired" for d in lines) else lines[0].failover
    notes = tuple(dict.fromkeys(note for d in lines for note in d.notes))  # each line's, once
    return dataclasses.replace(lines[0], bricks=tuple(d.bricks[0] for d in lines), failover=failover, notes=notes)


def with_option(base: DesignInput, **brick_changes) -> DesignInput:
    """A copy of a one-line design with its brick line changed (used to build options)."""
    brick = dataclasses.replace(base.bricks[0], **brick_changes)
    return dataclasses.replace(base, bricks=(brick,))


def gbps_target_from_jobs(job_slots: int, mb_per_s_per_job: float) -> float:
    """Throughput target (GB/s) for so many concurrent jobs each streaming MB/s."""
    return job_slots * mb_per_s_per_job * 1e6 / GB


def gbps_target_from_clients(clients: int, gbps_per_client: float) -> float:
    """Throughput target (GB/s) for so many clients each reading or writing GB/s."""
    return clients * gbps_per_client


def capacity_target(current_pib: float, annual_growth: float, years: float) -> float:
    """Usable PiB needed after `years` of compound growth (0.3 = 30 % a year)."""
    return current_pib * (1.0 + annual_growth) ** years
