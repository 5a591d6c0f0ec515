"""Design to target: enumerate candidate designs as one vectorised batch, keep those that meet the
targets, rank them cheapest first, and mark the Pareto frontier over (price, usable PiB, GB/s).

A candidate is one brick line: a brick option (template, disk, expansions, adapter) and a count,
in the request's rack, tuning, failover, metadata placement and price list. Pure numpy.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass, field

import numpy as np

from .batch import BatchInput, evaluate_batch
from .inputs import DesignInput
from .units import GB, PIB


@dataclass
class Targets:
    """What the design must deliver. None means no constraint."""

    usable_pib: float | None = None
    read_gbps: float | None = None
    write_gbps: float | None = None
    budget: float | None = None
    max_racks: int | None = None


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
    on_frontier: bool = False
    option2: int | None = None  # a mix: a second brick line
    count2: int = 0


@dataclass
class SolveResult:
    candidates_evaluated: int
    feasible: int
    ranked: list = field(default_factory=list)  # cheapest first (at most `limit`)
    frontier: list = field(default_factory=list)  # Pareto-optimal feasible candidates, by price
    unmet: list = field(default_factory=list)  # when nothing is feasible: which constraints cannot be met, with the best reachable


def _batch_for_counts(base: DesignInput, max_count: int) -> tuple[BatchInput, np.ndarray]:
    """The base design (one brick line) repeated for counts 1..max_count, as arrays."""
    batch = BatchInput.from_designs([base]).repeat(max_count)
    counts = np.arange(1, max_count + 1, dtype=float)
    batch.groups["count"] = counts[:, None]
    return batch, counts


def _batch_for_pair(first: DesignInput, second: DesignInput, max_count: int) -> tuple[BatchInput, np.ndarray, np.ndarray]:
    """Two brick lines mixed, counts 1..max_count each: max_count^2 candidates."""
    failover = "none" if "none" in (first.failover, second.failover) else first.failover  # internal bays cannot pair
    base = dataclasses.replace(first, bricks=(first.bricks[0], second.bricks[0]), failover=failover)
    c1, c2 = np.meshgrid(np.arange(1, max_count + 1, dtype=float), np.arange(1, max_count + 1, dtype=float), indexing="ij")
    c1, c2 = c1.ravel(), c2.ravel()
    batch = BatchInput.from_designs([base]).repeat(c1.size)
    batch.groups["count"] = np.stack([c1, c2], axis=1)
    return batch, c1, c2


def pareto_mask(price: np.ndarray, usable: np.ndarray, gbps: np.ndarray) -> np.ndarray:
    """True for points no other point beats on all of: lower (or equal) price, more capacity, more throughput.

    Points are taken cheapest first; the (capacity, throughput) staircase of the points seen so far
    answers "is there a cheaper point at least as good on both?" by binary search: O(n log n).
    """
    from bisect import bisect_right

    order = np.lexsort((-gbps, -usable, price))
    mask = np.zeros(price.size, dtype=bool)
    neg_u: list[float] = []  # staircase, capacity descending (stored negated, ascending)
    stair_g: list[float] = []  # throughput, ascending along the staircase
    for i, u, g in zip(order.tolist(), usable[order].tolist(), gbps[order].tolist(), strict=True):
        pos = bisect_right(neg_u, -u)  # staircase points with capacity >= u are neg_u[:pos]
        if pos and stair_g[pos - 1] >= g:
            continue  # a cheaper point has at least this capacity and throughput
        mask[i] = True
        end = pos
        while end < len(stair_g) and stair_g[end] <= g:
            end += 1  # staircase points this one now covers (less capacity, no more throughput)
        neg_u[pos:end] = [-u]
        stair_g[pos:end] = [g]
    return mask


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
) -> SolveResult:
    """Evaluate every option at counts 1..max_count, and every pair of options mixed at counts
    1..pair_max_count each, and rank the candidates meeting the targets.

    Options are evaluated in chunks of about `chunk_candidates` candidates (bounded memory);
    `progress(fraction)` is called after each chunk.
    """
    if not options:
        raise ValueError("no brick options to search")
    per_chunk = max(1, chunk_candidates // max_count)
    cols = {k: [] for k in ("usable", "read", "write", "price", "racks", "units", "power", "fits", "option", "count", "option2", "count2")}
    steps = len(options) + len(pairs)

    def collect(res, option, count, option2, count2):
        cols["usable"].append(res.usable_bytes / PIB)
        cols["read"].append(res.read_gbps)
        cols["write"].append(res.write_gbps)
        cols["price"].append(res.total)
        cols["racks"].append(res.rack_count)
        cols["units"].append(res.units_used)
        cols["power"].append(res.power_w)
        cols["fits"].append(res.racks_fit)
        cols["option"].append(option)
        cols["count"].append(count)
        cols["option2"].append(option2)
        cols["count2"].append(count2)

    for start in range(0, len(options), per_chunk):
        chunk = options[start : start + per_chunk]
        parts = [_batch_for_counts(option, max_count) for option in chunk]
        batch = BatchInput.concatenate([p[0] for p in parts])
        res = evaluate_batch(batch)
        n = len(chunk) * max_count
        collect(
            res,
            np.repeat(np.arange(start, start + len(chunk)), max_count),
            np.concatenate([p[1] for p in parts]),
            np.full(n, -1),
            np.zeros(n),
        )
        if progress is not None:
            progress(min(1.0, (start + len(chunk)) / steps))
    for k, (i, j) in enumerate(pairs):
        batch, c1, c2 = _batch_for_pair(options[i], options[j], pair_max_count)
        collect(evaluate_batch(batch), np.full(c1.size, i), c1, np.full(c1.size, j), c2)
        if progress is not None and (k % 10 == 9 or k == len(pairs) - 1):
            progress(min(1.0, (len(options) + k + 1) / steps))
    usable, read, write, price, racks, units, power, fits, option_index, counts, option2, counts2 = (np.concatenate(cols[k]) for k in cols)

    checks = {
        "usable_pib": usable >= (targets.usable_pib or 0) - 1e-9,
        "read_gbps": read >= (targets.read_gbps or 0) - 1e-9,
        "write_gbps": write >= (targets.write_gbps or 0) - 1e-9,
        "budget": price <= (targets.budget if targets.budget is not None else np.inf),
        "max_racks": racks <= (targets.max_racks if targets.max_racks is not None else np.inf),
        "fits": fits,
    }
    ok = np.logical_and.reduce(list(checks.values()))
    result = SolveResult(candidates_evaluated=int(counts.size), feasible=int(ok.sum()))

    def cand(i: int, frontier: bool = False) -> Candidate:
        return Candidate(
            option=int(option_index[i]),
            count=int(counts[i]),
            option2=int(option2[i]) if option2[i] >= 0 else None,
            count2=int(counts2[i]),
            usable_pib=float(usable[i]),
            read_gbps=float(read[i]),
            write_gbps=float(write[i]),
            price=float(price[i]),
            rack_count=int(racks[i]),
            units_used=int(units[i]),
            power_w=float(power[i]),
            on_frontier=frontier,
        )

    if not ok.any():
        for name, passed in checks.items():
            if name == "fits" or passed.any():
                continue
            best = {
                "usable_pib": float(usable.max()),
                "read_gbps": float(read.max()),
                "write_gbps": float(write.max()),
                "budget": float(price.min()),
                "max_racks": int(racks.min()),
            }[name]
            result.unmet.append({"constraint": name, "target": getattr(targets, name), "best_reachable": best})
        if not result.unmet:  # each constraint can be met, but not together
            result.unmet.append({"constraint": "combination", "target": None, "best_reachable": None})
        return result

    idx = np.flatnonzero(ok)
    gbps = np.minimum(read[idx], write[idx])
    front = pareto_mask(price[idx], usable[idx], gbps)
    frontier_set = set(idx[front].tolist())
    ranked = idx[np.lexsort((-usable[idx], price[idx]))]
    result.ranked = [cand(int(i), int(i) in frontier_set) for i in ranked[:limit]]
    result.frontier = [cand(int(i), True) for i in sorted(frontier_set, key=lambda i: price[i])][:limit]
    return result


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
