"""`make bench`: solve time for sweeps of 10^5 and 10^6 candidate designs (engine only, no database)."""

from __future__ import annotations

import sys
import time
import tracemalloc

from planner.engine.solver import Targets, solve, with_option
from tests.engine import factories as f


def _options(n_options: int):
    base = f.design(f.brick(count=1), placement="in_rack", failover="paired")
    disks = [f.DISK4, f.DISK6]
    out = []
    for i in range(n_options):
        out.append(with_option(base, disk=disks[i % 2], expansions=i % 3))
    return out


def main() -> int:
    print("Solver benchmark (engine only; one brick line per candidate: option x count)")
    print(f"{'candidates':>12} {'options':>8} {'counts':>7} {'seconds':>9} {'feasible':>10} {'frontier':>9} {'peak MiB':>9}")
    for n_options, counts in ((50, 2000), (200, 5000)):
        options = _options(n_options)
        tracemalloc.start()
        start = time.perf_counter()
        result = solve(options, Targets(usable_pib=2.0, read_gbps=40.0), max_count=counts, limit=50)
        seconds = time.perf_counter() - start
        _, peak = tracemalloc.get_traced_memory()
        tracemalloc.stop()
        print(
            f"{n_options * counts:>12,} {n_options:>8} {counts:>7} {seconds:>9.2f} {result.feasible:>10,} {len(result.frontier):>9} {peak / 2**20:>9.0f}"
        )
    return 0


if __name__ == "__main__":
    sys.exit(main())
