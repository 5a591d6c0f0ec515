"""`make bench`: engine throughput in designs evaluated per second, and peak memory.

Speed and memory targets are measured here, never asserted in timed tests. The batch is the
reference performance brick design with brick counts varied, built straight as arrays (as a
solver would) so that the timing is the engine's, not Python object construction.
"""

from __future__ import annotations

import sys
import time
import tracemalloc

import numpy as np

from planner.engine import BatchInput, evaluate, evaluate_batch
from tests.engine import factories as f


def _batch(n: int) -> BatchInput:
    base = BatchInput.from_designs([f.design(f.brick(count=1), f.brick(count=1, expansions=2), placement="in_rack", failover="paired")])
    batch = base.repeat(n)
    rng = np.random.default_rng(1)
    batch.groups["count"] = rng.integers(0, 40, size=batch.groups["count"].shape).astype(float)
    return batch


def _time(fn, repeat: int) -> float:
    best = float("inf")
    for _ in range(repeat):
        start = time.perf_counter()
        fn()
        best = min(best, time.perf_counter() - start)
    return best


def main() -> int:
    print("Engine benchmark (best of several runs; 2-core machine figures vary with load)")
    print(f"{'batch size':>12} {'seconds':>10} {'designs/s':>14} {'peak MiB':>10}")
    for n in (1, 1_000, 100_000):
        batch = _batch(n)
        seconds = _time(lambda b=batch: evaluate_batch(b), repeat=5 if n < 100_000 else 3)
        tracemalloc.start()
        evaluate_batch(batch)
        _, peak = tracemalloc.get_traced_memory()
        tracemalloc.stop()
        print(f"{n:>12,} {seconds:>10.5f} {n / seconds:>14,.0f} {peak / 2**20:>10.1f}")
    single = f.design(f.brick(count=8), placement="in_rack", failover="paired")
    seconds = _time(lambda: evaluate(single), repeat=20)
    print(f"full single evaluation (layout, bill of materials): {seconds * 1000:.2f} ms")
    return 0


if __name__ == "__main__":
    sys.exit(main())
