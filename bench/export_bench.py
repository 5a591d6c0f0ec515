"""`make bench`: seconds per rack sheet (PDF) and per bill of materials, rendered end to end as a
worker does (evaluation, elevation SVG, matplotlib chart, WeasyPrint), on a throwaway SQLite database.

The rack sheet is measured for one rack and for ten racks of the same kind of brick; the one-rack
sheet is the floor the ten-rack sheet is compared with (goal: ten racks in under twice the time of
one, i.e. each extra rack under a tenth of a one-rack sheet). Labels state the rack count the
evaluation actually gives (they are checked, not assumed)."""

from __future__ import annotations

import os
import statistics
import sys
import tempfile
import time
from pathlib import Path

REPEATS = 7
SHEETS = {  # label -> (spec, racks expected)
    "1 rack (3 capacity bricks)": ({"bricks": [{"template": "md3460-capacity", "count": 3}], "metadata": {"placement": "none"}}, 1),
    "10 racks (27 capacity bricks)": ({"bricks": [{"template": "md3460-capacity", "count": 27}]}, 10),
    "1 rack (study D, 8 performance bricks)": (
        {"bricks": [{"template": "md3460-performance", "count": 8}], "metadata": {"placement": "none"}},
        1,
    ),
}


def _render(design, fmt: str) -> tuple[float, float]:
    """One export rendered end to end: (wall seconds, CPU seconds of this process)."""
    from planner.models import ExportJob
    from planner.services import export_render

    job, _ = ExportJob.objects.get_or_create(design=design, design_version=design.version, format=fmt)
    ExportJob.objects.filter(pk=job.pk).update(status="queued")
    wall, cpu = time.perf_counter(), time.process_time()
    export_render(job_id=job.pk)
    return time.perf_counter() - wall, time.process_time() - cpu


def main() -> int:
    tmp = Path(tempfile.mkdtemp(prefix="planner-bench-"))
    os.environ["DATABASE_URL"] = f"sqlite:///{tmp / 'bench.sqlite3'}"
    os.environ["MEDIA_ROOT"] = str(tmp / "media")
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.test")
    import django

    django.setup()
    from django.contrib.auth import get_user_model
    from django.core.management import call_command

    from bench.report import record
    from hardware_catalog.importers import load_catalogue
    from planner.services import design_create, design_evaluate

    call_command("migrate", verbosity=0)
    load_catalogue()
    user = get_user_model().objects.create_user("bench")
    designs = {}
    for label, (spec, expected) in SHEETS.items():
        racks = len(design_evaluate(spec=spec).racks)
        if racks != expected:
            raise SystemExit(f"{label}: the evaluation gives {racks} racks, not {expected}: fix the benchmark's spec")
        designs[label] = design_create(owner=user, name=label, spec=spec)
    print(f"Export benchmark (end to end per file as the worker renders it; best and median of {REPEATS} runs, interleaved)")
    print("wall: elapsed seconds; cpu: this process's CPU seconds (the same on a quiet machine, steadier on a busy one)")
    for design in designs.values():  # warm-up: fonts, imports, template and catalogue caches
        _render(design, "pdf-a4")
    for fmt in ("pdf-a4", "xlsx", "csv"):
        runs: dict[str, list[tuple[float, float]]] = {label: [] for label in designs}
        for _ in range(REPEATS):  # interleaved, so that a busy moment hits every sheet alike
            for label, design in designs.items():
                runs[label].append(_render(design, fmt))
        for label, times in runs.items():
            wall, cpu = sorted(t[0] for t in times), sorted(t[1] for t in times)
            print(
                f"{label:<40} {fmt:<7} wall best {wall[0]:.3f} s median {statistics.median(wall):.3f} s   "
                f"cpu best {cpu[0]:.3f} s median {statistics.median(cpu):.3f} s"
            )
        if fmt != "pdf-a4":
            continue
        one, ten = runs["1 rack (3 capacity bricks)"], runs["10 racks (27 capacity bricks)"]
        best = {n: (min(t[0] for t in r), min(t[1] for t in r)) for n, r in ((1, one), (10, ten))}
        note = "3 capacity bricks in 1 rack, 27 in 10 racks; end to end as the worker renders it; CPU time of the process, best of "
        note += f"{REPEATS} interleaved runs (wall best {best[1][0]:.3f} s / {best[10][0]:.3f} s)"
        record("rack sheet PDF, 1 rack", best[1][1], "s", note=note)
        record(
            "rack sheet PDF, 10 racks",
            best[10][1],
            "s",
            floor=best[1][1],
            floor_label="rack sheet PDF, 1 rack",
            goal="10 racks < 2x 1 rack",
            note=note,
        )
        per_rack = (best[10][1] - best[1][1]) / 9
        record(
            "rack sheet PDF, each extra rack",
            per_rack,
            "s",
            floor=best[1][1],
            floor_label="rack sheet PDF, 1 rack",
            goal="< 0.1 of a 1-rack sheet (< 0.050 s on a quiet machine)",
            note="(10-rack sheet - 1-rack sheet) / 9, CPU best of each; the ratio holds on a busy machine, the seconds do not",
        )
        print(
            f"rack sheet: each extra rack costs {per_rack * 1000:.0f} ms of CPU ({per_rack / best[1][1]:.3f} of a 1-rack sheet); "
            f"10 racks / 1 rack = {best[10][1] / best[1][1]:.2f}"
        )
    return 0


if __name__ == "__main__":
    sys.exit(main())
