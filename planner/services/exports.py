"""Exports: rack sheets (PDF) and bills of materials (CSV, XLSX), rendered by Celery workers.

`export_request` finds or creates the job for (design version, format) and enqueues it once the
transaction commits; `export_render` (called by the task) renders and stores the file. A job that
is already done is reused; a failed one is queued again. Rendering is idempotent, so a message
redelivered after a worker died mid-render simply renders again.
"""

from __future__ import annotations

import logging
import time
from datetime import datetime, timedelta

from django.conf import settings
from django.core.files.base import ContentFile
from django.db import IntegrityError, transaction
from django.template.loader import render_to_string
from django.utils import timezone

from hardware_catalog import models as cat
from planner.engine.cost import relative_price as relative_price_of
from planner.models import Design, ExportJob
from planner.rendering import sheet
from planner.rendering.elevation import sheet_rack_lines

from .designs import design_evaluation

log = logging.getLogger(__name__)


class ExportError(Exception):
    """An export that cannot be rendered (a reason the user can act on)."""


def _reference(reference: str, user) -> tuple[str, dict, dict | None] | None:
    """(name, spec, frozen prices) of a reference design: 'ex:<slug>' or a saved design id `user` may read."""
    from .designs import design_reference

    ref = design_reference(reference=reference, user=user)
    return ref[:3] if ref else None


def export_request(*, design: Design, fmt: str, user=None, reference: str = "") -> tuple[ExportJob, bool]:
    """The export of this design version in this format (priced against `reference`, if any): (job, newly queued?)."""
    if fmt not in ExportJob.Format.values:
        raise ExportError(f"unknown format '{fmt}'; choose one of: {', '.join(ExportJob.Format.values)}")
    if reference and _reference(reference, user) is None:
        raise ExportError(f"no reference design '{reference[:40]}' visible to you; use 'ex:<example slug>' or a saved design id")
    key = {"design": design, "design_version": design.version, "format": fmt, "reference": reference}
    resend = False
    with transaction.atomic():
        job = ExportJob.objects.select_for_update().filter(**key).first()
        if job is None:
            try:
                with transaction.atomic():
                    job = ExportJob.objects.create(**key, requested_by=user, design_snapshot=_snapshot(design))
            except IntegrityError:  # created by a concurrent request
                return ExportJob.objects.get(**key), False
        elif job.status == ExportJob.Status.FAILED:
            job.status, job.error, job.progress = ExportJob.Status.QUEUED, "", 0
            job.save(update_fields=["status", "error", "progress"])
        elif job.status == ExportJob.Status.QUEUED and job.enqueued_at is None and job.created_at < timezone.now() - timedelta(seconds=2):
            resend = True  # the broker never took it (it was down when first asked): send it again
        else:
            return job, False
    from . import jobs

    jobs.enqueue(job)  # after the commit above; BrokerUnavailable is the view's 503 and the row stays for a re-send
    return job, not resend


def _snapshot(design: Design) -> dict:
    """The design as it is now, for an export of this version."""
    return {
        "name": design.name,
        "spec": design.spec,
        "prices": design.prices,
        "priced_at": design.priced_at.isoformat() if design.priced_at else None,
    }


def _as_exported(job: ExportJob) -> Design:
    """The design as it was at the job's version (an unsaved copy), or as it is for a job made before
    snapshots were kept."""
    design, snap = job.design, job.design_snapshot
    if not snap or design.version == job.design_version:
        return design
    return Design(
        pk=design.pk,
        owner=design.owner,
        name=snap["name"],
        spec=snap["spec"],
        prices=snap["prices"],
        priced_at=datetime.fromisoformat(snap["priced_at"]) if snap.get("priced_at") else None,
        version=job.design_version,
    )


def _progress(job: ExportJob, percent: int) -> None:
    ExportJob.objects.filter(pk=job.pk).update(progress=percent)


def _parts(lines: list[dict]) -> dict:
    """(kind, slug) -> (vendor, model) for the bill of materials."""
    models = {
        "disk": cat.Disk,
        "server": cat.Server,
        "enclosure": cat.Enclosure,
        "adapter": cat.Adapter,
        "switch": cat.Switch,
        "rack": cat.Rack,
        "accessory": cat.Accessory,
    }
    parts = {}
    for kind, model in models.items():
        slugs = [line["item"] for line in lines if line["kind"] == kind]
        for obj in model.objects.filter(slug__in=slugs).only("slug", "vendor", "model"):
            parts[(kind, obj.slug)] = (obj.vendor, obj.model)
    parts[("service", "support-per-server-year")] = ("", "Software and support")
    return parts


def _money(value: float) -> str:
    from planner.formatting import money

    return money(value)


def export_render(*, job_id: int) -> ExportJob:
    """Render one export job and store its file; idempotent. Raises on failure (the task records it)."""
    job = ExportJob.objects.select_related("design", "design__owner").get(pk=job_id)
    if job.status == ExportJob.Status.DONE and job.file:
        return job
    ExportJob.objects.filter(pk=job.pk).update(
        status=ExportJob.Status.RUNNING, started_at=timezone.now(), progress=5, attempts=job.attempts + 1
    )
    design = _as_exported(job)
    evaluation = design_evaluation(design=design).as_dict()
    _progress(job, 25)
    delay = float(getattr(settings, "EXPORT_TEST_DELAY_SECONDS", 0) or 0)
    if delay:  # lets tests kill a worker mid-render; zero in every real deployment
        time.sleep(delay)
    lines = evaluation["price"]["lines"]
    rows = sheet.bom_rows(lines, _parts(lines))
    currency = evaluation["price"]["currency"]
    totals = {k: evaluation["price"][k] for k in ("capex", "opex", "total")}
    if job.format == ExportJob.Format.CSV:
        content = sheet.bom_csv(rows, currency=currency, totals=totals)
    elif job.format == ExportJob.Format.XLSX:
        content = sheet.bom_xlsx(
            rows,
            currency=currency,
            totals=totals,
            title=f"{design.name} (version {job.design_version})",
            notes=evaluation["assumptions"] + evaluation["warnings"],
        )
    else:
        content = _rack_sheet_pdf(job, design, evaluation, rows, progress=lambda p: _progress(job, p))
    _progress(job, 90)
    if job.file:
        job.file.delete(save=False)
    job.refresh_from_db()
    job.file.save(job.filename, ContentFile(content), save=False)
    job.size_bytes = len(content)
    job.status, job.progress, job.error, job.finished_at = ExportJob.Status.DONE, 100, "", timezone.now()
    job.save(update_fields=["file", "size_bytes", "status", "progress", "error", "finished_at"])
    return job


def export_fail(*, job_id: int, reason: str) -> None:
    """Record that a job failed for good, with the reason shown to the user."""
    ExportJob.objects.filter(pk=job_id).update(status=ExportJob.Status.FAILED, error=reason[:2000], finished_at=timezone.now())


def _rack_sheet_pdf(job: ExportJob, design: Design, evaluation: dict, rows: list, progress) -> bytes:
    tuning = cat.TuningProfile.objects.filter(slug=design.spec.get("tuning")).first()
    drawn = sheet_rack_lines(evaluation["racks"])
    rack_lines = [
        {"title": line["title"], "drawings": [(sheet.svg_data_uri(svg), alt) for svg, alt in line["drawings"]]} for line in drawn["lines"]
    ]
    progress(45)
    chart = sheet.stage_chart_svg(evaluation)
    progress(60)
    relative_price, reference_name = None, None
    if job.reference:
        ref = _reference(job.reference, job.requested_by or design.owner)
        if ref is None:
            raise ExportError(f"the reference design '{job.reference}' is no longer visible")
        from .evaluation import design_evaluate

        reference_name = ref[0]
        ref_total = design_evaluate(spec=ref[1], prices=ref[2], user=job.requested_by or design.owner).price["total"]
        ratio = relative_price_of(evaluation["price"]["total"], ref_total)
        relative_price = f"{ratio:.2f}" if ratio is not None else None
    for rack in evaluation["racks"]:
        rack["power_kw"] = f"{rack['power_w'] / 1000:.1f}"
        rack["budget_kw"] = f"{rack['power_budget_w'] / 1000:.1f}"
    context = {
        "design": {"name": design.name, "owner": design.owner.get_full_name() or design.owner.username, "version": job.design_version},
        "spec": design.spec,
        "placement": {"in_rack": "in the first rack", "separate_rack": "in a rack of its own", "none": "provided elsewhere"}.get(
            design.spec.get("metadata", {}).get("placement"), "?"
        ),
        "evaluation": evaluation,
        "tuning": {
            "name": tuning.name if tuning else design.spec.get("tuning"),
            "description": tuning.description if tuning else "",
            "recipe": tuning.recipe if tuning else [],
        },
        "generated_at": timezone.now().strftime("%Y-%m-%d %H:%M UTC"),
        "page_size": sheet.PAGE_SIZES[job.format],
        "read_limit": evaluation["bottleneck"]["read_label"],
        "write_limit": evaluation["bottleneck"]["write_label"],
        "price_total": _money(evaluation["price"]["total"]),
        "capex": _money(evaluation["price"]["capex"]),
        "opex": _money(evaluation["price"]["opex"]),
        "power_kw": f"{evaluation['power_w'] / 1000:.1f}",
        "rack_lines": rack_lines,
        "rack_width_mm": drawn["width_mm"],
        "rack_legend": drawn["legend"],
        "rack_summary_uri": sheet.svg_data_uri(drawn["summary"]) if drawn["summary"] else "",
        "relative_price": relative_price,
        "reference_name": reference_name,
        "chart_uri": sheet.svg_data_uri(chart),
        "bom": rows,
    }
    html = render_to_string("planner/rack_sheet.html", context)
    progress(70)
    return sheet.render_pdf(html)


def exports_visible_to(user):
    """Export jobs of designs this user may read."""
    from .designs import designs_visible_to

    return ExportJob.objects.filter(design__in=designs_visible_to(user)).select_related("design")
