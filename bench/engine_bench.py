"""`make bench`: engine throughput in designs evaluated per second, peak memory, and the engine
against a numpy reference loop of the same element-operation count.

Speed and memory targets are measured here, never asserted in timed tests. The batch is the
reference performance brick design plus a capacity brick line with brick counts varied, built
straight as arrays (as a solver would) so that the timing is the engine's, not Python object
construction: one design repeated, so the engine computes what does not depend on the counts
once (`planner.engine.batch`). A second batch, 50 options x 2,000 counts concatenated, has every
row distinct (no sharing); a third gives the same designs as options and `rows`.

Timings are taken first, without tracemalloc (which slows numpy several times); peak memory is
measured in a separate pass. Each figure is the best of several runs (2-core machine: others'
load shows as noise, best-of is the least disturbed) and is recorded with `bench.report.record`.
"""

from __future__ import annotations

import sys
import time
import tracemalloc

import numpy as np

from bench.op_count import counted, counting, reference_seconds
from bench.report import record
from planner.engine import BatchInput, evaluate, evaluate_batch
from tests.engine import factories as f

BIG = 100_000


def _batch(n: int) -> BatchInput:
    base = BatchInput.from_designs([f.design(f.brick(count=1), f.brick(count=1, expansions=2), placement="in_rack", failover="paired")])
    batch = base.repeat(n)
    rng = np.random.default_rng(1)
    batch.groups["count"] = rng.integers(0, 40, size=batch.groups["count"].shape).astype(float)
    return batch


def _distinct_batch(options: int = 50, counts: int = 2_000) -> BatchInput:
    """Options x counts as full arrays, every row its own (as the solver's concatenated chunks)."""
    parts = []
    for i in range(options):
        design = f.design(f.brick(count=1, disk=(f.DISK4, f.DISK6)[i % 2], expansions=i % 3), placement="in_rack", failover="paired")
        one = BatchInput.from_designs([design]).repeat(counts)
        one.groups["count"] = np.arange(1, counts + 1, dtype=float)[:, None]
        parts.append(one)
    return BatchInput.concatenate(parts)


def _rows_batch(options: int = 50, counts: int = 2_000) -> BatchInput:
    """The same options x counts given as `rows`: each option's arrays once, the counts per design."""
    designs = [
        f.design(f.brick(count=1, disk=(f.DISK4, f.DISK6)[i % 2], expansions=i % 3), placement="in_rack", failover="paired")
        for i in range(options)
    ]
    one = BatchInput.from_designs(designs)
    count = np.tile(np.arange(1, counts + 1, dtype=float), options)[:, None]
    rows = np.repeat(np.arange(options), counts)
    return BatchInput(groups={**one.groups, "count": count}, designs=one.designs, parts=one.parts, dparts=one.dparts, rows=rows)


def _time(fn, repeat: int) -> float:
    best = float("inf")
    for _ in range(repeat):
        start = time.perf_counter()
        fn()
        best = min(best, time.perf_counter() - start)
    return best


def _peak_mib(fn) -> float:
    tracemalloc.start()
    try:
        fn()
        return tracemalloc.get_traced_memory()[1] / 2**20
    finally:
        tracemalloc.stop()


def element_ops(batch: BatchInput) -> list[int]:
    """The sizes of the numpy operations one `evaluate_batch(batch)` performs (see bench.op_count)."""
    wrap = lambda d: {k: counted(v) for k, v in d.items()}  # noqa: E731
    view = BatchInput(
        groups=wrap(batch.groups), designs=wrap(batch.designs), parts=wrap(batch.parts), dparts=wrap(batch.dparts), rows=batch.rows
    )
    with counting() as log:
        evaluate_batch(view)
    return [size for _, size in log]


def engine_vs_reference(batch: BatchInput, rounds: int = 5) -> tuple[float, float, list[int]]:
    """Best engine time and best reference-loop time, measured in alternation (same conditions)."""
    sizes = element_ops(batch)
    engine = reference = float("inf")
    for _ in range(rounds):
        engine = min(engine, _time(lambda: evaluate_batch(batch), 3))
        reference = min(reference, reference_seconds(sizes, 3))
    return engine, reference, sizes


def main() -> int:
    print("Engine benchmark (best of several runs; 2-core machine figures vary with load)")
    print(f"{'batch size':>12} {'seconds':>10} {'designs/s':>14} {'peak MiB':>10}")
    for n in (1, 1_000, BIG):
        batch = _batch(n)
        evaluate_batch(batch)  # warm
        seconds = _time(lambda b=batch: evaluate_batch(b), repeat=20 if n < BIG else 7)
        peak = _peak_mib(lambda b=batch: evaluate_batch(b))  # separate pass: tracemalloc slows numpy
        print(f"{n:>12,} {seconds:>10.5f} {n / seconds:>14,.0f} {peak:>10.1f}")
        record(f"engine batch of {n}: designs/s", n / seconds, "designs/s", note=f"best of runs; {seconds * 1e3:.3f} ms per batch")
        record(f"engine batch of {n}: peak MiB", peak, "MiB", note="tracemalloc peak of one evaluate_batch, separate pass")

    engine, reference, sizes = engine_vs_reference(_batch(BIG))
    per_design = sum(sizes) / BIG
    print(
        f"batch of {BIG:,}: engine {engine * 1e3:.1f} ms; numpy reference loop of the same {len(sizes)} operations, "
        f"{per_design:.0f} element operations per design: {reference * 1e3:.1f} ms; ratio {engine / reference:.2f}"
    )
    record(
        f"engine batch of {BIG}",
        engine * 1e3,
        "ms",
        floor=reference * 1e3,
        floor_label=f"numpy loop, same {len(sizes)} ops / {per_design:.0f} element ops per design",
        goal="ratio <= 2",
        note="floor: one in-place float64 np.add per engine operation, of its size (bench/op_count.py)",
    )

    distinct = _distinct_batch()
    evaluate_batch(distinct)
    engine, reference, sizes = engine_vs_reference(distinct, rounds=3)
    n = distinct.size
    print(
        f"{n:,} distinct designs (50 options x 2,000 counts, nothing shared): engine {engine * 1e3:.1f} ms, "
        f"reference {reference * 1e3:.1f} ms ({sum(sizes) / n:.0f} element operations per design), ratio {engine / reference:.2f}"
    )
    record(
        f"engine batch of {n} distinct designs",
        engine * 1e3,
        "ms",
        floor=reference * 1e3,
        floor_label=f"numpy loop, same {len(sizes)} ops / {sum(sizes) / n:.0f} element ops per design",
        note="50 options x 2,000 counts concatenated: every row computed in full (no goal set)",
    )

    by_rows = _rows_batch()
    evaluate_batch(by_rows)
    engine, reference, sizes = engine_vs_reference(by_rows, rounds=3)
    print(
        f"the same {n:,} designs as 50 options x 2,000 counts given by `rows`: engine {engine * 1e3:.1f} ms, "
        f"reference {reference * 1e3:.1f} ms ({sum(sizes) / n:.0f} element operations per design), ratio {engine / reference:.2f}"
    )
    record(
        f"engine batch of {n} as 50 options x 2000 counts (rows)",
        engine * 1e3,
        "ms",
        floor=reference * 1e3,
        floor_label=f"numpy loop, same {len(sizes)} ops / {sum(sizes) / n:.0f} element ops per design",
        goal="ratio <= 2",
        note="BatchInput.rows: each option's figures once, the counts per design",
    )

    single = f.design(f.brick(count=8), placement="in_rack", failover="paired")
    seconds = _time(lambda: evaluate(single), repeat=50)
    print(f"full single evaluation (layout, bill of materials): {seconds * 1000:.2f} ms")
    record("engine single full evaluation", seconds * 1e3, "ms", note="evaluate(): batch of one, rack layout, bill of materials, texts")
    return 0


if __name__ == "__main__":
    sys.exit(main())
