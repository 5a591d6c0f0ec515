"""Celery tasks: thin wrappers that take ids and call one service."""

from __future__ import annotations

import logging

from celery import shared_task
from celery.exceptions import SoftTimeLimitExceeded
from django.db import InterfaceError, OperationalError

from planner.services import exports

log = logging.getLogger(__name__)
TRANSIENT = (OperationalError, InterfaceError, ConnectionError, TimeoutError)


@shared_task(bind=True, acks_late=True, reject_on_worker_lost=True, max_retries=3, time_limit=180, soft_time_limit=150)
def render_export_task(self, job_id: int) -> str:
    """Render export job `job_id`. Transient failures (database, network) are retried with back-off;
    anything else marks the job failed with a reason. The message is acknowledged only when done, so a
    worker killed mid-render leaves it for another worker."""
    try:
        job = exports.export_render(job_id=job_id)
    except TRANSIENT as exc:
        if self.request.retries >= self.max_retries:
            exports.export_fail(job_id=job_id, reason=f"The export failed after {self.max_retries + 1} attempts: {exc}")
            return "failed"
        raise self.retry(exc=exc, countdown=2 ** (self.request.retries + 1)) from exc
    except SoftTimeLimitExceeded:
        exports.export_fail(job_id=job_id, reason="Rendering took longer than 150 seconds and was stopped.")
        return "failed"
    except Exception as exc:  # noqa: BLE001 - recorded on the job for the user; the worker carries on
        log.exception("export %s failed", job_id)
        exports.export_fail(job_id=job_id, reason=f"The export could not be rendered: {exc}")
        return "failed"
    return job.status


@shared_task(bind=True, acks_late=True, reject_on_worker_lost=True, max_retries=2, time_limit=900, soft_time_limit=840)
def solve_task(self, job_id: str) -> str:
    """Run a large design-to-target search; progress and the result are stored on the SolveJob."""
    from planner.models import SolveJob
    from planner.services import solve as solve_service

    try:
        solve_service.solve_run(job_id=job_id)
    except TRANSIENT as exc:
        if self.request.retries >= self.max_retries:
            SolveJob.objects.filter(pk=job_id).update(status=SolveJob.Status.FAILED, error=f"failed after retries: {exc}")
            return "failed"
        raise self.retry(exc=exc, countdown=2 ** (self.request.retries + 1)) from exc
    except SoftTimeLimitExceeded:
        SolveJob.objects.filter(pk=job_id).update(
            status=SolveJob.Status.FAILED, error="The search took longer than 14 minutes and was stopped."
        )
        return "failed"
    except Exception as exc:  # noqa: BLE001 - recorded on the job
        log.exception("solve %s failed", job_id)
        SolveJob.objects.filter(pk=job_id).update(status=SolveJob.Status.FAILED, error=f"The search failed: {exc}")
        return "failed"
    return "done"
