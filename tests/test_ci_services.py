"""The real services: in CI (CI=true) the suite must run on PostgreSQL and Redis, and fails if they are missing."""

import os

import pytest
from django.conf import settings
from django.db import connection

from config.celery import app as celery_app

IN_CI = os.environ.get("CI", "").lower() in ("1", "true", "yes")


def require(condition: bool, what: str) -> None:
    """Fail in CI, skip (with the reason shown) on a developer's machine."""
    if condition:
        return
    if IN_CI:
        pytest.fail(f"{what} is required in CI but is not configured")
    pytest.skip(f"{what} not configured (set it to run this test; CI must)")


@pytest.mark.django_db
def test_database_is_postgresql_when_database_url_says_so():
    url = os.environ.get("DATABASE_URL", "")
    require(url.startswith(("postgres://", "postgresql://")), "DATABASE_URL pointing at PostgreSQL")
    assert connection.vendor == "postgresql"
    with connection.cursor() as cursor:
        cursor.execute("SELECT count(*) FROM hardware_catalog_bricktemplate")
        assert cursor.fetchone()[0] >= 6


@pytest.mark.django_db
def test_broker_is_redis_and_reachable_when_configured(client):
    require(bool(os.environ.get("CELERY_BROKER_URL")), "CELERY_BROKER_URL pointing at Redis")
    assert settings.CELERY_BROKER_URL.startswith("redis://")
    body = client.get("/api/v1/health/").json()
    assert body["broker"]["status"] == "ok", body


@pytest.mark.parametrize("broker, eager", [("", "True"), ("redis://127.0.0.1:6379/0", "False")])
def test_celery_is_eager_exactly_when_no_broker_is_set(broker, eager):
    """The production settings (config.base): tasks run in-process only when no broker is configured."""
    import subprocess
    import sys
    from pathlib import Path

    env = {k: v for k, v in os.environ.items() if k not in ("CELERY_BROKER_URL", "CELERY_TASK_ALWAYS_EAGER")}
    env.update({"DJANGO_SETTINGS_MODULE": "config.base", "DEBUG": "true", "CELERY_BROKER_URL": broker})
    code = "import django; django.setup(); from config.celery import app; print(app.conf.task_always_eager, app.conf.task_acks_late)"
    out = subprocess.run([sys.executable, "-c", code], env=env, cwd=Path(__file__).resolve().parents[1], capture_output=True, text=True)
    assert out.returncode == 0, out.stderr
    assert out.stdout.split() == [eager, "True"]
    assert celery_app.conf.task_reject_on_worker_lost is True
