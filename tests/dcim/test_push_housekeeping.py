"""DCIM pushes share the job housekeeping of exports and solves (planner/services/jobs.py): a push the
broker never took is re-sent by celery beat, one no worker can still be running is failed with a
reason, and old rows are deleted."""

from __future__ import annotations

from datetime import timedelta

import pytest
from django.contrib.auth import get_user_model
from django.utils import timezone

from dcim import tasks
from dcim.models import DcimConnection, DcimPush
from planner import services
from planner.services import jobs

pytestmark = pytest.mark.django_db

SPEC = {"bricks": [{"template": "md3460-performance", "count": 1}], "metadata": {"placement": "none"}}


@pytest.fixture
def push():
    user = get_user_model().objects.create_user("carol", password="pw-carol-123")
    design = services.design_create(owner=user, name="Rack", spec=SPEC)
    connection = DcimConnection(owner=user, name="N", kind="nautobot", base_url="https://nautobot.example.org", site="Hall A")
    connection.set_token("0123456789abcdef0123456789abcdef01234567")
    connection.save()
    return DcimPush.objects.create(owner=user, connection=connection, design=design, design_version=design.version, dry_run=True)


def test_a_push_the_broker_never_took_is_resent_by_beat(push, monkeypatch, settings):
    from config.celery import app

    sent = []
    monkeypatch.setattr(tasks.push_design, "apply_async", lambda args=None, **kw: sent.append(args))
    monkeypatch.setattr(app.conf, "task_always_eager", False)
    DcimPush.objects.filter(pk=push.pk).update(created_at=timezone.now() - timedelta(minutes=1), enqueued_at=None)
    assert jobs.resend_jobs() == 1
    assert sent == [[push.pk]] and DcimPush.objects.get(pk=push.pk).enqueued_at is not None


def test_a_push_no_worker_can_still_be_running_is_failed(push):
    limit = jobs.task_time_limit(DcimPush)
    assert limit == tasks.push_design.time_limit == 900
    DcimPush.objects.filter(pk=push.pk).update(status="running", started_at=timezone.now() - timedelta(days=1))
    assert jobs.fail_stuck_jobs() == 1
    failed = DcimPush.objects.get(pk=push.pk)
    assert failed.status == "failed" and "No worker finished this job" in failed.error


def test_old_push_rows_are_deleted(push, settings):
    settings.JOB_RETENTION_DAYS = 30
    DcimPush.objects.filter(pk=push.pk).update(created_at=timezone.now() - timedelta(days=31))
    assert jobs.delete_old_jobs() >= 1
    assert not DcimPush.objects.filter(pk=push.pk).exists()
