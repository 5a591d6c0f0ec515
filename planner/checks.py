"""Django system checks for a production deployment (`manage.py check --deploy`)."""

from __future__ import annotations

from django.conf import settings
from django.core import checks


@checks.register(checks.Tags.security, deploy=True)
def metrics_need_a_token(app_configs=None, **kwargs):
    """/metrics without METRICS_TOKEN answers anyone who can reach the site: request counts, queue depths
    and worker names are for the operators' Prometheus, not the internet."""
    if getattr(settings, "METRICS_TOKEN", ""):
        return []
    return [
        checks.Warning(
            "/metrics is open to anyone who can reach the site.",
            hint="Set METRICS_TOKEN (Prometheus then sends 'Authorization: Bearer <token>'), or block /metrics at the "
            "proxy and silence this check with SILENCED_SYSTEM_CHECKS = ['planner.W001'].",
            id="planner.W001",
        )
    ]
