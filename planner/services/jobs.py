"""Jobs that survive outages: hand a job to the broker, or say plainly that it could not be.

A job row (export, solve, or another app's registered job such as a DCIM push) is saved first; `enqueue` then sends its task. When the broker takes it,
the row's `enqueued_at` is set. When the broker cannot be reached, `enqueued_at` stays empty and
`BrokerUnavailable` is raised: the API answers 503 JSON with Retry-After, and the job is re-sent by
the next request for it (same export, or a poll of its status) or by the periodic `resend_jobs`
(celery beat), whichever comes first. Tasks are idempotent (a finished job is not redone), so a job
sent twice costs a little work, never a wrong answer.

The periodic housekeeping (see `CELERY_BEAT_SCHEDULE` in the settings):
- `resend_jobs`: jobs never handed to the broker, or queued longer than `JOB_RESEND_AFTER_SECONDS`
  (their message was lost, e.g. Redis restarted without persistence), are sent again;
- `fail_stuck_jobs`: jobs running longer than their task's time limit plus the broker's visibility
  timeout (no worker can still be on them) are failed with a reason;
- `delete_old_jobs`: export files and job rows older than `JOB_RETENTION_DAYS` are deleted, and
  anonymous searches older than `ANON_JOB_RETENTION_HOURS` (24).
"""

from __future__ import annotations

import logging
from datetime import timedelta

from django.conf import settings
from django.db import transaction
from django.utils import timezone

log = logging.getLogger(__name__)

_OTHER_JOBS: dict[str, str] = {}
"""Job models of other apps (model label -> dotted path of its task), e.g. the DCIM pushes: registered by
their app's `ready()` with `register_job_model`, so the housekeeping covers them without this module
importing those apps. Such a model has the same fields as ExportJob for this purpose: status,
enqueued_at, created_at, started_at, and its task takes the row's id."""


def register_job_model(model_label: str, task_path: str) -> None:
    _OTHER_JOBS[model_label] = task_path


def _registered_task(label: str):
    from importlib import import_module

    module, name = _OTHER_JOBS[label].rsplit(".", 1)
    return getattr(import_module(module), name)


class BrokerUnavailable(Exception):
    """The broker did not take the job; it is kept and will be re-sent."""

    def __init__(self, job, cause: Exception):
        super().__init__(f"the task queue is unreachable ({cause.__class__.__name__}); the job is kept and will be sent again")
        self.job = job
        self.cause = cause


class QueueFull(Exception):
    """Too many anonymous jobs are waiting; the API answers 429 with the message."""


def _task_for(job):
    return _task_for_model(type(job))


def _task_for_model(model):
    from planner.models import ExportJob
    from planner.tasks import render_export_task, solve_task

    if model._meta.label in _OTHER_JOBS:
        return _registered_task(model._meta.label)
    return render_export_task if model is ExportJob else solve_task


def _send(job) -> None:
    """Send now; record when. Raises BrokerUnavailable, leaving the row as it was (a new job keeps
    enqueued_at empty; a re-send keeps its old time, so the next re-send still finds it)."""
    from config.celery import app

    task = _task_for(job)
    eager = app.conf.task_always_eager
    if eager:  # `make run` and tests: the task runs here and now
        type(job).objects.filter(pk=job.pk).update(enqueued_at=timezone.now())
        task.apply_async(args=[_arg(job)])
        return
    try:
        task.apply_async(args=[_arg(job)], retry=False)
    except Exception as exc:  # noqa: BLE001 - kombu and redis raise many kinds when the broker is down
        log.warning("job %s %s not sent: broker unreachable (%s)", type(job).__name__, job.pk, exc)
        raise BrokerUnavailable(job, exc) from exc
    type(job).objects.filter(pk=job.pk).update(enqueued_at=timezone.now())


send_now = _send
"""For a row already committed (or whose caller wants the broker's answer now, e.g. a DCIM push)."""


def _arg(job):
    """The task's argument: export jobs by integer id, solve jobs by their UUID as text."""
    return job.pk if isinstance(job.pk, int) else str(job.pk)


def enqueue(job) -> None:
    """Hand `job` to the broker. Outside a transaction the row is already committed and the task is sent
    now (a failure raises BrokerUnavailable); inside one, it is sent when the transaction commits (a
    failure then leaves the row for `resend_jobs`), so a worker never looks for a row not yet visible."""
    if transaction.get_connection().in_atomic_block:

        def later():
            try:
                _send(job)
            except BrokerUnavailable:
                pass  # kept; re-sent by the next request or by resend_jobs

        transaction.on_commit(later)
        return
    _send(job)


def resend_if_lost(job) -> bool:
    """Re-send a queued job that the broker never took (called when someone asks after it)."""
    if job.status == "queued" and job.enqueued_at is None and job.created_at < timezone.now() - timedelta(seconds=2):
        try:
            _send(job)
            return True
        except BrokerUnavailable:
            return False
    return False


WAITING_NOTE_AFTER_SECONDS = 30


def waiting_note(job) -> str | None:
    """For a job queued longer than a worker normally takes to pick it up: why, in words for the user."""
    if job.status != "queued":
        return None
    waited = (timezone.now() - job.created_at).total_seconds()
    if job.enqueued_at is None:
        return "The task queue could not be reached when this was asked for; it will be sent as soon as it is back."
    if waited < WAITING_NOTE_AFTER_SECONDS:
        return None
    return (
        f"Waiting {int(waited)} s for a worker: none has taken this job yet. Workers may be busy or not running; "
        "the site's health page (/api/v1/health/) shows whether any is. The job is kept and runs when one is free."
    )


def _models():
    from django.apps import apps

    from planner.models import ExportJob, SolveJob

    return (ExportJob, SolveJob, *(apps.get_model(label) for label in _OTHER_JOBS))


def task_time_limit(model) -> int:
    """Seconds after which the job's task is stopped by its worker."""
    return int(_task_for_model(model).time_limit or settings.CELERY_TASK_TIME_LIMIT)


def resend_jobs() -> int:
    """Send again the queued jobs the broker never took or that have waited too long; returns how many."""
    now = timezone.now()
    after = timedelta(seconds=int(getattr(settings, "JOB_RESEND_AFTER_SECONDS", 900)))
    sent = 0
    for model in _models():
        from django.db.models import Q

        lost = model.objects.filter(status="queued").filter(
            Q(enqueued_at__isnull=True, created_at__lt=now - timedelta(seconds=5)) | Q(enqueued_at__lt=now - after)
        )
        for job in lost[:500]:
            try:
                _send(job)
                sent += 1
            except BrokerUnavailable:
                return sent  # the broker is still down: try again next time
    return sent


def fail_stuck_jobs() -> int:
    """Fail jobs that have been running longer than any worker could still be working on them."""
    now = timezone.now()
    visibility = int(settings.CELERY_BROKER_TRANSPORT_OPTIONS.get("visibility_timeout", 3600))
    failed = 0
    for model in _models():
        limit = task_time_limit(model)
        cutoff = now - timedelta(seconds=limit + visibility + 60)
        field = "started_at"
        failed += model.objects.filter(status="running", **{f"{field}__lt": cutoff}).update(
            status="failed",
            error=f"No worker finished this job within {limit + visibility + 60} seconds (its time limit plus the "
            "time the broker waits before handing it to another worker); it was stopped. Request it again.",
            finished_at=now,
        )
    return failed


def delete_old_jobs() -> int:
    """Delete export files and job rows older than JOB_RETENTION_DAYS; returns the rows deleted."""
    from planner.models import ExportJob, SolveJob

    cutoff = timezone.now() - timedelta(days=int(getattr(settings, "JOB_RETENTION_DAYS", 30)))
    deleted = 0
    for job in ExportJob.objects.filter(created_at__lt=cutoff).exclude(status="running")[:1000]:
        if job.file:
            job.file.delete(save=False)
        job.delete()
        deleted += 1
    deleted += SolveJob.objects.filter(created_at__lt=cutoff).exclude(status="running").delete()[0]
    for model in _models()[2:]:  # other apps' jobs (DCIM pushes): rows only, they keep no files
        deleted += model.objects.filter(created_at__lt=cutoff).exclude(status="running").delete()[0]
    anonymous = timezone.now() - timedelta(hours=int(getattr(settings, "ANON_JOB_RETENTION_HOURS", 24)))
    deleted += SolveJob.objects.filter(owner=None, created_at__lt=anonymous).exclude(status="running").delete()[0]
    return deleted
