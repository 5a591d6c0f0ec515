"""Jobs that survive a broker outage, the periodic housekeeping, and the per-request work limit.

The broker is made unreachable by making the task's send raise what kombu raises when Redis is down;
the real-broker version of this (Redis behind a proxy that is switched off) is in tests/production.
"""

from datetime import timedelta

import pytest
from django.core.files.base import ContentFile
from django.utils import timezone
from kombu.exceptions import OperationalError

from config.celery import app
from planner.models import ExportJob, SolveJob
from planner.services import design_create, jobs

pytestmark = pytest.mark.django_db(transaction=True)
D = {"bricks": [{"template": "md3460-performance", "count": 2}], "metadata": {"placement": "none"}}


@pytest.fixture
def broker(monkeypatch):
    """A broker that can be switched off: `broker.up = False` makes every send fail as kombu does."""
    from planner import tasks

    class Broker:
        up = True
        sent: list = []

    def send(task):
        def apply_async(args=None, **kwargs):
            if not Broker.up:
                raise OperationalError("Error 111 connecting to 127.0.0.1:6379. Connection refused.")
            Broker.sent.append((task.name, args))

        return apply_async

    Broker.sent = []
    eager = app.conf.task_always_eager
    app.conf.update(CELERY_TASK_ALWAYS_EAGER=False)
    monkeypatch.setattr(tasks.render_export_task, "apply_async", send(tasks.render_export_task))
    monkeypatch.setattr(tasks.solve_task, "apply_async", send(tasks.solve_task))
    yield Broker
    app.conf.update(CELERY_TASK_ALWAYS_EAGER=eager)


@pytest.fixture
def owner(django_user_model):
    from hardware_catalog.importers import load_catalogue

    load_catalogue()
    return django_user_model.objects.create_user("ops", password="pw-ops-123456")


def test_an_export_asked_for_while_the_broker_is_down_is_503_json_and_is_sent_when_it_returns(api, owner, broker):
    design = design_create(owner=owner, name="Outage", spec=D)
    api.force_authenticate(owner)
    broker.up = False
    response = api.post(f"/api/v1/designs/{design.pk}/exports/", {"format": "csv"}, format="json")
    assert response.status_code == 503
    assert response["Content-Type"].startswith("application/json") and response["Retry-After"]
    body = response.json()
    assert "task queue is unavailable" in body["detail"]
    job = ExportJob.objects.get(pk=body["job"]["id"])
    assert job.status == "queued" and job.enqueued_at is None  # kept, marked as never sent
    assert broker.sent == []
    # still down: asking again is 503 again, and nothing is lost or duplicated
    ExportJob.objects.filter(pk=job.pk).update(created_at=timezone.now() - timedelta(seconds=10))
    assert api.post(f"/api/v1/designs/{design.pk}/exports/", {"format": "csv"}, format="json").status_code == 503
    assert ExportJob.objects.filter(design=design).count() == 1
    # the broker is back: polling the job's status sends it
    broker.up = True
    status = api.get(body["job"]["status_url"])
    assert status.status_code == 200
    assert broker.sent == [("planner.tasks.render_export_task", [job.pk])]
    assert ExportJob.objects.get(pk=job.pk).enqueued_at is not None
    # and it is not sent again by a later request for the same export
    assert api.post(f"/api/v1/designs/{design.pk}/exports/", {"format": "csv"}, format="json").status_code == 202
    assert len(broker.sent) == 1


def test_a_large_solve_while_the_broker_is_down_is_503_json_with_its_job(api, broker, settings):
    from hardware_catalog.importers import load_catalogue

    load_catalogue()
    settings.ANON_SYNC_WORK_LIMIT = 1000  # every search goes to a worker
    broker.up = False
    response = api.post("/api/v1/solve/", {"targets": {"usable_pib": 1.0}, "max_bricks": 20}, format="json")
    assert response.status_code == 503 and response["Retry-After"]
    job = SolveJob.objects.get(pk=response.json()["job"]["id"])
    assert job.status == "queued" and job.enqueued_at is None
    broker.up = True
    SolveJob.objects.filter(pk=job.pk).update(created_at=timezone.now() - timedelta(seconds=10))
    assert api.get(response.json()["job"]["status_url"]).status_code == 200
    assert broker.sent == [("planner.tasks.solve_task", [str(job.pk)])]


def test_resend_sends_lost_and_long_queued_jobs_only(owner, broker, settings):
    design = design_create(owner=owner, name="Resend", spec=D)
    old = timezone.now() - timedelta(hours=2)
    lost = ExportJob.objects.create(design=design, design_version=1, format="csv")
    waiting_long = ExportJob.objects.create(design=design, design_version=1, format="xlsx", enqueued_at=old)
    fresh = ExportJob.objects.create(design=design, design_version=1, format="pdf-a4", enqueued_at=timezone.now())
    ExportJob.objects.filter(pk=lost.pk).update(created_at=old)
    broker.up = False
    assert jobs.resend_jobs() == 0  # still down: nothing marked sent
    assert ExportJob.objects.get(pk=lost.pk).enqueued_at is None
    broker.up = True
    assert jobs.resend_jobs() == 2
    assert sorted(args[0] for _, args in broker.sent) == sorted([lost.pk, waiting_long.pk])
    assert fresh.pk not in [args[0] for _, args in broker.sent]


def test_stuck_running_jobs_fail_with_a_reason_after_time_limit_and_visibility(owner, settings):
    design = design_create(owner=owner, name="Stuck", spec=D)
    settings.CELERY_BROKER_TRANSPORT_OPTIONS = {"visibility_timeout": 60}
    long_ago = timezone.now() - timedelta(hours=1)
    stuck = ExportJob.objects.create(design=design, design_version=1, format="csv", status="running", started_at=long_ago)
    busy = ExportJob.objects.create(design=design, design_version=1, format="xlsx", status="running", started_at=timezone.now())
    solve = SolveJob.objects.create(request={}, status="running", started_at=long_ago)
    assert jobs.fail_stuck_jobs() == 2
    assert ExportJob.objects.get(pk=stuck.pk).status == "failed"
    assert "No worker finished this job" in ExportJob.objects.get(pk=stuck.pk).error
    assert ExportJob.objects.get(pk=busy.pk).status == "running"
    assert SolveJob.objects.get(pk=solve.pk).status == "failed"


def test_old_jobs_and_their_files_are_deleted_after_the_retention(owner, settings):
    settings.JOB_RETENTION_DAYS = 30
    design = design_create(owner=owner, name="Old", spec=D)
    old = ExportJob.objects.create(design=design, design_version=1, format="csv", status="done")
    old.file.save("old.csv", ContentFile(b"a,b\n"), save=True)
    path = old.file.path
    recent = ExportJob.objects.create(design=design, design_version=1, format="xlsx", status="done")
    ExportJob.objects.filter(pk=old.pk).update(created_at=timezone.now() - timedelta(days=31))
    SolveJob.objects.create(request={}, status="done")
    SolveJob.objects.filter().update(created_at=timezone.now() - timedelta(days=40))
    assert jobs.delete_old_jobs() == 2
    import os

    assert not os.path.exists(path)
    assert list(ExportJob.objects.values_list("pk", flat=True)) == [recent.pk]
    assert SolveJob.objects.count() == 0


def test_the_beat_schedule_names_real_tasks():
    from django.conf import settings

    from planner import tasks

    for entry in settings.CELERY_BEAT_SCHEDULE.values():
        name = entry["task"]
        assert getattr(tasks, name.rsplit(".", 1)[1]).name == name
    # the visibility timeout outlasts the longest task, so no running task is handed out twice
    assert settings.CELERY_BROKER_TRANSPORT_OPTIONS[
        "visibility_timeout"
    ] > tasks.solve_task.time_limit or settings.CELERY_BROKER_TRANSPORT_OPTIONS["visibility_timeout"] == int(
        __import__("os").environ.get("CELERY_VISIBILITY_TIMEOUT", 0)
    )


def test_work_over_the_callers_limit_is_refused_naming_the_limit(api, settings, django_user_model):
    from hardware_catalog.importers import load_catalogue

    load_catalogue()
    big = {"bricks": [{"template": "md3460-performance", "count": 500}], "metadata": {"placement": "none"}}
    compare = {"designs": [{"spec": big}] * 8}
    settings.ANON_SYNC_WORK_LIMIT, settings.SYNC_WORK_LIMIT = 100_000, 400_000
    refused = api.post("/api/v1/compare/", compare, format="json")
    assert refused.status_code == 400
    message = refused.json()["designs"][0]
    assert "160,000 candidate designs" in message and "100,000 for anonymous callers" in message
    user = django_user_model.objects.create_user("big", password="pw-big-123456")
    api.force_authenticate(user)
    assert api.post("/api/v1/compare/", compare, format="json").status_code == 200  # a signed-in user's limit is larger
    settings.SYNC_WORK_LIMIT = 10_000
    refused = api.post("/api/v1/evaluate/", big, format="json")
    assert refused.status_code == 400 and "10,000 for signed-in users" in refused.json()["bricks"][0]


def test_a_search_over_the_inline_limit_goes_to_a_worker(api, settings):
    from hardware_catalog.importers import load_catalogue

    load_catalogue()
    request = {"targets": {"usable_pib": 1.0}, "templates": ["md3460-capacity"], "max_bricks": 20, "mixes": False}
    settings.ANON_SYNC_WORK_LIMIT = 100_000
    assert api.post("/api/v1/solve/", request, format="json").status_code == 200  # answered inline
    settings.ANON_SYNC_WORK_LIMIT = 100
    queued = api.post("/api/v1/solve/", request, format="json")  # tests run tasks eagerly: done at once
    assert queued.status_code == 202 and queued.json()["status"] == "done"


def test_a_job_queued_too_long_says_why(api, owner, broker):
    design = design_create(owner=owner, name="Waiting", spec=D)
    api.force_authenticate(owner)
    body = api.post(f"/api/v1/designs/{design.pk}/exports/", {"format": "csv"}, format="json").json()
    assert body["status"] == "queued" and body["waiting"] is None  # sent; no worker has had time yet
    ExportJob.objects.filter(pk=body["id"]).update(created_at=timezone.now() - timedelta(minutes=3))
    note = api.get(body["status_url"]).json()["waiting"]
    assert "s for a worker: none has taken this job yet" in note and "Waiting 18" in note and "/api/v1/health/" in note


def test_anonymous_searches_are_bounded_in_number_and_kept_a_day(api, broker, settings):
    from hardware_catalog.importers import load_catalogue

    load_catalogue()
    settings.ANON_SYNC_WORK_LIMIT, settings.ANON_MAX_WAITING_SOLVES = 1000, 3  # every search is a job
    bodies = [{"targets": {"usable_pib": 1.0 + k}, "max_bricks": 20} for k in range(4)]
    first = api.post("/api/v1/solve/", bodies[0], format="json").json()
    again = api.post("/api/v1/solve/", bodies[0], format="json").json()
    assert again["id"] == first["id"] and SolveJob.objects.count() == 1  # the same request is the same job
    for body in bodies[1:3]:
        assert api.post("/api/v1/solve/", body, format="json").status_code == 202
    full = api.post("/api/v1/solve/", bodies[3], format="json")
    assert full.status_code == 429 and full["Retry-After"] == "60"
    assert "3 anonymous searches are waiting" in full.json()["detail"] and "sign in" in full.json()["detail"]
    SolveJob.objects.update(status="done", created_at=timezone.now() - timedelta(hours=25))
    assert jobs.delete_old_jobs() == 3 and SolveJob.objects.count() == 0
