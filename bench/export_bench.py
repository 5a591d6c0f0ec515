"""`make bench`: seconds per rack sheet (PDF) and per bill of materials, rendered end to end as a
worker does (evaluation, elevation SVG, matplotlib chart, WeasyPrint), on a throwaway SQLite database."""

from __future__ import annotations

import os
import sys
import tempfile
import time
from pathlib import Path


def main() -> int:
    tmp = Path(tempfile.mkdtemp(prefix="planner-bench-"))
    os.environ["DATABASE_URL"] = f"sqlite:///{tmp / 'bench.sqlite3'}"
    os.environ["MEDIA_ROOT"] = str(tmp / "media")
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.test")
    import django

    django.setup()
    from django.contrib.auth import get_user_model
    from django.core.management import call_command

    from hardware_catalog.importers import load_catalogue
    from planner.models import ExportJob
    from planner.services import design_create, export_render

    call_command("migrate", verbosity=0)
    load_catalogue()
    user = get_user_model().objects.create_user("bench")
    print("Export benchmark (end to end per file; best and median of 5)")
    for label, spec in (
        ("1 rack (study D)", {"bricks": [{"template": "md3460-performance", "count": 8}], "metadata": {"placement": "none"}}),
        ("4 racks (30 capacity bricks)", {"bricks": [{"template": "md3460-capacity", "count": 30}]}),
    ):
        design = design_create(owner=user, name=label, spec=spec)
        for fmt in ("pdf-a4", "xlsx", "csv"):
            times = []
            for _ in range(5):
                job, _ = ExportJob.objects.get_or_create(design=design, design_version=design.version, format=fmt)
                ExportJob.objects.filter(pk=job.pk).update(status="queued")
                start = time.perf_counter()
                export_render(job_id=job.pk)
                times.append(time.perf_counter() - start)
            times.sort()
            print(f"{label:<30} {fmt:<7} best {times[0]:.3f} s   median {times[2]:.3f} s")
    return 0


if __name__ == "__main__":
    sys.exit(main())
