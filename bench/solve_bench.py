"""`make bench`: design-to-target search speed, memory and scale-out.

1. Engine only (no database): solves over spaces of 10^5 and 10^6 candidates (options x counts), each
   timed with tracemalloc OFF (best of three), beside the floor measured in the same run: evaluating
   10^5 designs of the same options from the same design inputs (packing the options, then one
   `evaluate_batch` call: what a brute-force search of a tenth of the space would cost). Goal: the 10^6
   solve takes less time than the floor. Memory is measured in a
   separate pass with tracemalloc (goal: peak under 200 MiB).
2. A 10^8 space (1,000 options x 100,000 counts) as a chunked search: ten parts over the options, run one
   after the other in this process (eager, as the tests' Celery does), merged exactly; its answer is
   compared with the same search in one piece.
3. One and two real Celery workers (solve queue) on Redis DB 13 and a PostgreSQL database of its own
   (`BENCH_DATABASE_URL`, default postgresql://postgres@127.0.0.1:5432/solve_bench, created when missing):
   a catalogue search split into parts, timed from sending the group to the job's answer; the speed-up
   is the one-worker time over the two-worker time. Skipped, with the reason printed, when there is no
   broker or database.

Options are distinct designs (disk sizes and rates, expansions, adapters), priced by the terabyte.
"""

from __future__ import annotations

import dataclasses
import os
import subprocess
import sys
import time
import tracemalloc

import numpy as np

from bench.report import record
from planner.engine import BatchInput, evaluate_batch
from planner.engine.solver import Targets, merge_exact, solve, solve_part, with_option
from tests.engine import factories as f

TARGETS = Targets(usable_pib=2.0, read_gbps=40.0)
REDIS_URL = os.environ.get("BENCH_REDIS_URL", "redis://127.0.0.1:6379/13")
DATABASE_URL = os.environ.get("BENCH_DATABASE_URL", "postgresql://postgres@127.0.0.1:5432/solve_bench")


def options(n: int):
    """n distinct one-line designs: disks of 2 to 18 TB at 25 USD a TB (sustained rates varying), 0 to 2
    expansions, one or two HBAs and network adapters per server."""
    base = f.design(f.brick(count=1), placement="in_rack", failover="paired")
    out, unit_prices = [], dict(f.PRICES.unit_prices)
    for i in range(n):
        tb = 2 + (i * 7) % 17
        disk = dataclasses.replace(
            f.DISK4,
            slug=f"bench-{i}",
            name=f"{tb} TB #{i}",
            capacity_bytes=tb * 1e12,
            read_mbps=120 + (i % 13) * 10,
            write_mbps=110 + (i % 11) * 10,
        )
        unit_prices[("disk", disk.slug)] = 25.0 * tb + (i % 5)
        out.append(with_option(base, disk=disk, expansions=i % 3, hba_count=1 + i % 2, network_count=1 + (i // 2) % 2))
    prices = dataclasses.replace(f.PRICES, unit_prices=unit_prices)
    return [dataclasses.replace(o, prices=prices) for o in out]


def floor_seconds(opts, designs: int = 100_000) -> float:
    """Evaluating `designs` designs of these options (each at counts 1, 2, ...) from the same design
    inputs the solver is given: packing the options (`from_designs`, best of three) plus one
    `evaluate_batch` call over the designs (best of three). The solve is timed from those inputs too,
    so both include packing the options once (with 2,000 options, packing takes about as long as the
    evaluation). Repeating the packed options into 10^5 rows is left out of both: it only builds
    the floor's input."""
    per = -(-designs // len(opts))
    pack = evaluate = np.inf
    for _ in range(3):
        start = time.perf_counter()
        packed = BatchInput.from_designs(opts)
        pack = min(pack, time.perf_counter() - start)
    batch = packed.repeat(per)
    batch.groups["count"] = (np.arange(batch.size, dtype=float) % per + 1)[:, None]
    for _ in range(3):
        start = time.perf_counter()
        evaluate_batch(batch)
        evaluate = min(evaluate, time.perf_counter() - start)
    return pack + evaluate


def timed_solve(opts, counts: int):
    best, result = np.inf, None
    for _ in range(3):
        start = time.perf_counter()
        result = solve(opts, TARGETS, max_count=counts, limit=50)
        best = min(best, time.perf_counter() - start)
    return best, result


def peak_mib(fn) -> float:
    tracemalloc.start()
    try:
        fn()
        return tracemalloc.get_traced_memory()[1] / 2**20
    finally:
        tracemalloc.stop()


def engine_part() -> None:
    print("Solver (engine only; timings with tracemalloc off, best of 3; memory in a separate pass)")
    print(
        f"{'space':>12} {'options':>8} {'counts':>7} {'solve s':>8} {'floor s':>8} {'ratio':>6} {'evaluated':>10} {'feasible':>10} {'peak MiB':>9}"
    )
    for n_options, counts, name in ((50, 2000, "1e5"), (200, 5000, "1e6"), (2000, 500, "1e6 as 2000 options x 500")):
        opts = options(n_options)
        floor = floor_seconds(opts)
        seconds, result = timed_solve(opts, counts)
        mib = peak_mib(lambda opts=opts, counts=counts: solve(opts, TARGETS, max_count=counts, limit=50))
        print(
            f"{n_options * counts:>12,} {n_options:>8} {counts:>7} {seconds:>8.3f} {floor:>8.3f} {seconds / floor:>6.2f} "
            f"{result.designs_evaluated:>10,} {result.feasible:>10,} {mib:>9.0f}"
        )
        label = f"solve {name} candidates ({n_options} options x {counts})" if "x" not in name else f"solve {name}"
        record(
            label,
            seconds,
            "s",
            floor=floor,
            floor_label="pack the options and evaluate_batch over 1e5 designs of them",
            goal="ratio < 1" if name.startswith("1e6") else "",
            note=f"{result.designs_evaluated:,} designs evaluated of {result.candidates_evaluated:,}",
        )
        record(f"{label}, peak memory", mib, "MiB", goal="< 200 MiB", note="tracemalloc, separate pass")


def chunked_part() -> None:
    n_options, counts, parts = 1000, 100_000, 10
    opts = options(n_options)
    edges = [round(k * n_options / parts) for k in range(parts + 1)]

    def part(k: int, frontier_limit: int):
        return solve_part(opts, TARGETS, indices=range(edges[k], edges[k + 1]), max_count=counts, limit=50, frontier_limit=frontier_limit)

    start = time.perf_counter()
    chunked = merge_exact([part(k, 50) for k in range(parts)], part, TARGETS, limit=50)
    seconds = time.perf_counter() - start
    start = time.perf_counter()
    whole = solve(opts, TARGETS, max_count=counts, limit=50)
    whole_seconds = time.perf_counter() - start
    same = [(c.option, c.count, c.on_frontier) for c in chunked.ranked] == [(c.option, c.count, c.on_frontier) for c in whole.ranked] and [
        (c.option, c.count) for c in chunked.frontier
    ] == [(c.option, c.count) for c in whole.frontier]
    print(
        f"\n1e8 candidates ({n_options} options x {counts:,}) in {parts} parts, run eagerly and merged: {seconds:.2f} s "
        f"({chunked.designs_evaluated:,} designs evaluated); in one piece {whole_seconds:.2f} s; same answer: {same}"
    )
    record(
        "solve 1e8 candidates in 10 parts (eager)",
        seconds,
        "s",
        floor=whole_seconds,
        floor_label="the same search in one piece",
        note=f"same answer as in one piece: {same}",
    )


def _broker_and_database() -> str | None:
    """Why the worker benchmark cannot run, or None."""
    try:
        import redis

        redis.Redis.from_url(REDIS_URL, socket_connect_timeout=2).ping()
    except Exception as exc:  # noqa: BLE001
        return f"no Redis broker at {REDIS_URL} ({exc.__class__.__name__})"
    try:
        import psycopg

        admin = DATABASE_URL.rsplit("/", 1)[0] + "/postgres"
        name = DATABASE_URL.rsplit("/", 1)[1]
        with psycopg.connect(admin, autocommit=True, connect_timeout=3) as conn:
            if not conn.execute("SELECT 1 FROM pg_database WHERE datname = %s", (name,)).fetchone():
                conn.execute(f'CREATE DATABASE "{name}"')
    except Exception as exc:  # noqa: BLE001
        return f"no PostgreSQL at {DATABASE_URL} ({exc.__class__.__name__}: {exc})"
    return None


def _env() -> dict:
    return {
        **os.environ,
        "DJANGO_SETTINGS_MODULE": "config.base",
        "DEBUG": "true",
        "DATABASE_URL": DATABASE_URL,
        "CELERY_BROKER_URL": REDIS_URL,
        "CELERY_TASK_ALWAYS_EAGER": "false",
        "CELERY_SOLVE_QUEUE": "bench-solve",
    }


def workers_part() -> None:
    reason = _broker_and_database()
    if reason:
        print(f"\nWorkers: skipped: {reason}")
        return
    env = _env()
    subprocess.run([sys.executable, "manage.py", "migrate", "--noinput", "-v0"], env=env, check=True)
    subprocess.run([sys.executable, "manage.py", "load_catalogue"], env=env, check=True, stdout=subprocess.DEVNULL)
    os.environ.update(env)
    import django

    django.setup()
    from celery import current_app

    current_app.conf.task_always_eager = False
    times = {}
    for n_workers in (1, 2):
        seconds = _run_with_workers(n_workers, env)
        if seconds is None:
            return
        times[n_workers] = seconds
        print(f"\nWorkers: {n_workers} worker(s), a catalogue search in 8 parts: {seconds:.2f} s")
    speedup = times[1] / times[2]
    print(f"Workers: speed-up with two workers: {speedup:.2f}x")
    record(
        "solve in 8 parts on 2 workers",
        times[2],
        "s",
        floor=times[1],
        floor_label="the same on 1 worker",
        goal="ratio < 1 (speed-up = 1/ratio)",
        note=f"speed-up {speedup:.2f}x; Redis DB 13, PostgreSQL; each part resolves its options and searches them",
    )


def _run_with_workers(n_workers: int, env: dict) -> float | None:
    from hardware_catalog import models as cat
    from planner.models import SolveJob
    from planner.services import solve as solve_service

    request = {
        "targets": {"usable_pib": 3, "read_gbps": 60},
        "templates": list(cat.BrickTemplate.objects.filter(owner__isnull=True).values_list("slug", flat=True)),
        "disks": list(cat.Disk.objects.values_list("slug", flat=True)),
        "expansions": [0, 1, 2, 3, 4],
        "max_bricks": 500,
        "mixes": False,
        "limit": 500,
    }
    procs = []
    try:
        for k in range(n_workers):
            procs.append(
                subprocess.Popen(
                    [
                        sys.executable,
                        "-m",
                        "celery",
                        "-A",
                        "config",
                        "worker",
                        "-Q",
                        "bench-solve",
                        "-c",
                        "1",
                        "-P",
                        "solo",
                        "-n",
                        f"bench{k}@%h",
                        "-l",
                        "warning",
                    ],
                    env=env,
                    stdout=subprocess.DEVNULL,
                    stderr=subprocess.DEVNULL,
                )
            )
        from celery import current_app

        deadline = time.time() + 60
        while time.time() < deadline:  # wait for every worker to answer before timing
            replies = current_app.control.ping(timeout=1.0) or []
            if len(replies) >= n_workers:
                break
        else:
            print("\nWorkers: skipped: the workers did not start within 60 s")
            return None
        best = np.inf
        for _ in range(3):
            job = SolveJob.objects.create(request=request)
            prepared = solve_service._prepare(request, None)
            start = time.perf_counter()
            solve_service.solve_chunks(job=job, prepared=prepared, chunks=8)
            while True:
                job.refresh_from_db()
                if job.status in ("done", "failed") or time.perf_counter() - start > 300:
                    break
                time.sleep(0.01)
            if job.status != "done":
                print(f"\nWorkers: the job ended {job.status}: {job.error}")
                return None
            best = min(best, time.perf_counter() - start)
        return best
    finally:
        for p in procs:
            p.terminate()
        for p in procs:
            try:
                p.wait(timeout=20)
            except subprocess.TimeoutExpired:
                p.kill()


def main() -> int:
    engine_part()
    chunked_part()
    workers_part()
    return 0


if __name__ == "__main__":
    sys.exit(main())
