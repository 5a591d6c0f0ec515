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


@shared_task(ignore_result=True, time_limit=120, soft_time_limit=100)
def maintenance_resend_jobs() -> int:
    """celery beat: send again the jobs the broker never took, or that have waited too long."""
    from planner.services import jobs

    return jobs.resend_jobs()


@shared_task(ignore_result=True, time_limit=120, soft_time_limit=100)
def maintenance_fail_stuck_jobs() -> int:
    """celery beat: fail jobs running longer than any worker could still be working on them."""
    from planner.services import jobs

    return jobs.fail_stuck_jobs()


@shared_task(ignore_result=True, time_limit=600, soft_time_limit=540)
def maintenance_delete_old_jobs() -> int:
    """celery beat: delete export files and job rows past the retention period."""
    from planner.services import jobs

    return jobs.delete_old_jobs()


@shared_task(bind=True, acks_late=True, reject_on_worker_lost=True, max_retries=2, time_limit=900, soft_time_limit=840)
def solve_chunk_task(self, job_id: str, index: int) -> str:
    """Search one part of a large design-to-target search (a task of the job's Celery group, on the solve
    queue); the last part to finish merges every part's answer into the job. A part that fails fails the
    job, with the reason."""
    from planner.models import SolveChunk, SolveJob
    from planner.services import solve as solve_service

    def fail(reason: str) -> str:
        SolveChunk.objects.filter(job_id=job_id, index=index).update(status=SolveChunk.Status.FAILED, error=reason[:2000])
        SolveJob.objects.filter(pk=job_id).exclude(status=SolveJob.Status.DONE).update(status=SolveJob.Status.FAILED, error=reason[:2000])
        return "failed"

    try:
        solve_service.solve_chunk_run(job_id=job_id, index=index)
    except TRANSIENT as exc:
        if self.request.retries >= self.max_retries:
            return fail(f"Part {index + 1} of the search failed after retries: {exc}")
        raise self.retry(exc=exc, countdown=2 ** (self.request.retries + 1)) from exc
    except SoftTimeLimitExceeded:
        return fail(f"Part {index + 1} of the search took longer than 14 minutes and was stopped.")
    except Exception as exc:  # noqa: BLE001 - recorded on the job
        log.exception("solve %s part %s failed", job_id, index)
        return fail(f"Part {index + 1} of the search failed: {exc}")
    return "done"
