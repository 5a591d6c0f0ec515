"""Production settings refuse to start without a broker (tasks would silently run in the web process)."""

import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
DROP = ("CELERY_BROKER_URL", "CELERY_TASK_ALWAYS_EAGER", "REDIS_URL", "DJANGO_ALLOW_ASYNC_UNSAFE")


def _load_settings(**env):
    base = {k: v for k, v in os.environ.items() if k not in DROP}
    base.update({"DJANGO_SETTINGS_MODULE": "config.base", "SECRET_KEY": "x" * 60, "ALLOWED_HOSTS": "planner.example.org"})
    base.update(env)
    code = "import django; django.setup(); from django.conf import settings; print(settings.CELERY_TASK_ALWAYS_EAGER, settings.CACHES['default']['BACKEND'])"
    return subprocess.run([sys.executable, "-c", code], cwd=ROOT, env=base, capture_output=True, text=True, timeout=60)


def test_production_without_a_broker_refuses_to_start():
    run = _load_settings(DEBUG="false")
    assert run.returncode != 0
    assert "ImproperlyConfiguredEnv" in run.stderr
    assert "CELERY_BROKER_URL must be set when DEBUG is off" in run.stderr
    assert "CELERY_TASK_ALWAYS_EAGER=true" in run.stderr


@pytest.mark.parametrize(
    "env, eager, cache",
    [
        ({"DEBUG": "false", "CELERY_TASK_ALWAYS_EAGER": "true"}, "True", "LocMemCache"),  # explicit opt-out
        ({"DEBUG": "true"}, "True", "LocMemCache"),  # make run
        ({"DEBUG": "false", "CELERY_BROKER_URL": "redis://127.0.0.1:6379/0"}, "False", "RedisCache"),  # the broker's Redis
        ({"DEBUG": "false", "CELERY_BROKER_URL": "amqp://mq//", "REDIS_URL": "redis://cache:6379/1"}, "False", "RedisCache"),
        ({"DEBUG": "false", "CELERY_BROKER_URL": "amqp://mq//"}, "False", "LocMemCache"),
    ],
)
def test_settings_that_start(env, eager, cache):
    run = _load_settings(**env)
    assert run.returncode == 0, run.stderr
    got_eager, backend = run.stdout.split()
    assert got_eager == eager and backend.endswith(cache)


def test_explicit_false_without_a_broker_still_refuses():
    run = _load_settings(DEBUG="false", CELERY_TASK_ALWAYS_EAGER="false")
    assert run.returncode != 0 and "CELERY_BROKER_URL must be set" in run.stderr
