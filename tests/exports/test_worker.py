"""Exports on real Celery workers over the real Redis broker and a shared PostgreSQL database.

In CI (CI=true) both services are required and these tests run; on a developer's machine without
them they are skipped with the reason shown. One test kills a worker mid-render (SIGKILL) and sees
the job finish on a second worker: the task is acknowledged late, so the broker hands it on.
"""

import os
import signal
import subprocess
import sys
import time
import uuid
from pathlib import Path

import pytest
from django.conf import settings
from django.db import connection

from config.celery import app as celery_app
from planner.models import ExportJob
from planner.services import design_create, export_request

ROOT = Path(__file__).resolve().parents[2]
IN_CI = os.environ.get("CI", "").lower() in ("1", "true", "yes")
pytestmark = [pytest.mark.celery_worker, pytest.mark.django_db(transaction=True)]
D = {"bricks": [{"template": "md3460-performance", "count": 8}], "metadata": {"placement": "none"}}


def _require_services():
    missing = []
    if not os.environ.get("CELERY_BROKER_URL", "").startswith("redis://"):
        missing.append("CELERY_BROKER_URL (Redis)")
    if connection.vendor != "postgresql":
        missing.append("DATABASE_URL (PostgreSQL, shared with the worker processes)")
    if missing:
        if IN_CI:
            pytest.fail(f"real-worker tests need {', '.join(missing)} in CI")
        pytest.skip(f"real-worker tests need {', '.join(missing)}")


@pytest.fixture
def queue():
    """A queue of this test's own, producer switched from eager to the real broker; purged after."""
    _require_services()
    from hardware_catalog.importers import load_catalogue

    load_catalogue()
    name = f"test-exports-{uuid.uuid4().hex[:8]}"
    eager = celery_app.conf.task_always_eager
    queues = celery_app.conf.get("CELERY_SOLVE_QUEUE"), celery_app.conf.get("CELERY_EXPORT_QUEUE")
    # the app reads Django's CELERY_* names: change them under those names
    celery_app.conf.update(CELERY_TASK_ALWAYS_EAGER=False, CELERY_EXPORT_QUEUE=name, CELERY_SOLVE_QUEUE=name)
    assert celery_app.conf.task_always_eager is False
    yield name
    celery_app.conf.update(CELERY_TASK_ALWAYS_EAGER=eager, CELERY_SOLVE_QUEUE=queues[0], CELERY_EXPORT_QUEUE=queues[1])
    with celery_app.connection_for_write() as conn:
        conn.default_channel.queue_purge(name)


@pytest.fixture
def workers(tmp_path):
    """Start workers (`start(name, **env)`); every one left is killed at the end."""
    started = []
    db = connection.settings_dict

    def start(name, queue_name, **extra_env):
        log_path = tmp_path / f"{name}.log"
        env = {
            **os.environ,
            "DJANGO_SETTINGS_MODULE": "config.test",
            "DATABASE_URL": f"postgresql://{db['USER']}:{db.get('PASSWORD') or ''}@{db['HOST'] or '127.0.0.1'}:{db['PORT'] or 5432}/{db['NAME']}",
            "CELERY_EXPORT_QUEUE": queue_name,
            "CELERY_SOLVE_QUEUE": queue_name,
            "CELERY_VISIBILITY_TIMEOUT": "5",
            "MEDIA_ROOT": str(settings.MEDIA_ROOT),
            **{k: str(v) for k, v in extra_env.items()},
        }
        cmd = [
            sys.executable,
            "-m",
            "celery",
            "-A",
            "config",
            "worker",
            "-Q",
            queue_name,
            "-n",
            f"{name}@%h",
            "--concurrency=1",
            "--pool=prefork",
            "--without-gossip",
            "--without-mingle",
            "--loglevel=INFO",
        ]
        proc = subprocess.Popen(cmd, cwd=ROOT, env=env, stdout=log_path.open("w"), stderr=subprocess.STDOUT, start_new_session=True)
        proc.log_path = log_path
        started.append(proc)
        _wait(lambda: "ready." in log_path.read_text() or proc.poll() is not None, 60, f"worker {name} to start")
        assert proc.poll() is None, log_path.read_text()[-3000:]
        return proc

    yield start
    for proc in started:
        if proc.poll() is None:
            os.killpg(proc.pid, signal.SIGKILL)
            proc.wait(timeout=10)


def _wait(condition, seconds, what):
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        if condition():
            return
        time.sleep(0.3)
    raise AssertionError(f"timed out after {seconds} s waiting for {what}")


def _job(job_id):
    return ExportJob.objects.get(pk=job_id)


def test_a_real_worker_renders_an_export(django_user_model, queue, workers):
    owner = django_user_model.objects.create_user("wendy", password="pw-wendy-123456")
    design = design_create(owner=owner, name="On a real worker", spec=D)
    worker = workers("w1", queue)
    job, queued = export_request(design=design, fmt="pdf-a4", user=owner)
    assert queued
    _wait(lambda: "Task planner.tasks.render_export_task" in worker.log_path.read_text(), 30, "the worker to receive the task")
    _wait(lambda: _job(job.pk).status in ("done", "failed"), 90, "the export to finish")
    done = _job(job.pk)
    assert done.status == "done", (done.error, worker.log_path.read_text()[-3000:])
    assert done.size_bytes > 10_000 and Path(done.file.path).exists()


def test_a_job_survives_its_worker_being_killed_mid_render(django_user_model, queue, workers):
    owner = django_user_model.objects.create_user("kim", password="pw-kim-123456")
    design = design_create(owner=owner, name="Killed mid-render", spec=D)
    slow = workers("slow", queue, EXPORT_TEST_DELAY_SECONDS=60)
    job, _ = export_request(design=design, fmt="csv", user=owner)
    try:
        _wait(lambda: _job(job.pk).status == "running", 60, "the first worker to start rendering")
    except AssertionError:
        raise AssertionError((_job(job.pk).status, slow.log_path.read_text()[-3000:])) from None
    os.killpg(slow.pid, signal.SIGKILL)  # the whole worker, parent and child, as a crash or OOM kill would
    slow.wait(timeout=10)
    assert _job(job.pk).status == "running"
    second = workers("second", queue)
    _wait(lambda: _job(job.pk).status in ("done", "failed"), 120, "the second worker to finish the job")
    done = _job(job.pk)
    assert done.status == "done", (done.error, second.log_path.read_text()[-3000:])
    assert done.attempts >= 2
