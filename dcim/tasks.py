"""Celery task for DCIM pushes (found by the app's autodiscovery; routed to the exports queue by
config/celery.py's route_task, since its name does not start with planner.tasks.solve)."""

from __future__ import annotations

import logging

from celery import shared_task
from celery.exceptions import SoftTimeLimitExceeded
from django.db import InterfaceError, OperationalError

log = logging.getLogger(__name__)
TRANSIENT = (OperationalError, InterfaceError)


@shared_task(bind=True, acks_late=True, reject_on_worker_lost=True, max_retries=2, time_limit=900, soft_time_limit=840)
def push_design(self, push_id: int) -> str:
    """Run DcimPush `push_id` (dry run or push) and store its progress and report on the row. DCIM errors
    are part of the report, not task failures; database hiccups are retried; anything else fails the job."""
    from . import push

    try:
        return push.push_run(push_id=push_id).status
    except TRANSIENT as exc:
        if self.request.retries >= self.max_retries:
            push.push_fail(push_id=push_id, reason=f"The push failed after {self.max_retries + 1} attempts: {exc}")
            return "failed"
        raise self.retry(exc=exc, countdown=2 ** (self.request.retries + 1)) from exc
    except SoftTimeLimitExceeded:
        push.push_fail(
            push_id=push_id,
            reason="The push took longer than 14 minutes and was stopped before its report was saved; push again "
            "(what was written is found again, nothing is duplicated).",
        )
        return "failed"
    except Exception as exc:  # noqa: BLE001 - recorded on the job for the user; the worker carries on
        log.exception("DCIM push %s failed", push_id)
        push.push_fail(push_id=push_id, reason=f"The push failed: {exc}")
        return "failed"
