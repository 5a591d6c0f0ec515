"""Production settings pass Django's deployment checks with HTTPS=true, and no model change lacks its migration."""

import os
import secrets
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]


def test_check_deploy_is_clean_with_https_on():
    env = {
        **{k: v for k, v in os.environ.items() if k != "DJANGO_ALLOW_ASYNC_UNSAFE"},  # the browser tests set it in-process
        "DJANGO_SETTINGS_MODULE": "config.base",
        "DEBUG": "false",
        "SECRET_KEY": secrets.token_urlsafe(64),
        "HTTPS": "true",
        "ALLOWED_HOSTS": "planner.example.org",
        "CSRF_TRUSTED_ORIGINS": "https://planner.example.org",
        "METRICS_TOKEN": secrets.token_urlsafe(24),
    }
    run = subprocess.run(
        [sys.executable, "manage.py", "check", "--deploy", "--fail-level", "WARNING"],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert run.returncode == 0, run.stdout + run.stderr
    assert "no issues" in run.stdout


def test_check_deploy_warns_that_metrics_are_open_without_a_token(settings):
    from django.core import checks

    settings.METRICS_TOKEN = ""
    warnings = [m for m in checks.run_checks(include_deployment_checks=True) if m.id == "planner.W001"]
    assert warnings and "/metrics is open" in warnings[0].msg
    settings.METRICS_TOKEN = "s3cret-scrape"
    assert not [m for m in checks.run_checks(include_deployment_checks=True) if m.id == "planner.W001"]


def test_https_off_keeps_plain_http_for_development():
    from django.conf import settings

    assert not getattr(settings, "SECURE_SSL_REDIRECT", False)


@pytest.mark.django_db
def test_no_model_change_lacks_a_migration():
    from django.core.management import call_command

    call_command("makemigrations", "--check", "--dry-run", verbosity=0)
