"""Error reports to Sentry, only when SENTRY_DSN is set (called at the end of the settings)."""

from __future__ import annotations

import os
from collections.abc import Mapping


def init_sentry(environ: Mapping[str, str] = os.environ) -> bool:
    """Start the Sentry SDK with the Django and Celery integrations when SENTRY_DSN is set; True if started.

    No personal data is sent (no user ids, addresses, cookies or bodies). SENTRY_ENVIRONMENT (default
    'production') and SENTRY_RELEASE name where and which build an error came from; SENTRY_TRACES_SAMPLE_RATE
    (default 0) turns on performance tracing for that share of requests.
    """
    dsn = (environ.get("SENTRY_DSN") or "").strip()
    if not dsn:
        return False
    import sentry_sdk
    from sentry_sdk.integrations.celery import CeleryIntegration
    from sentry_sdk.integrations.django import DjangoIntegration

    sentry_sdk.init(
        dsn=dsn,
        integrations=[DjangoIntegration(), CeleryIntegration()],
        send_default_pii=False,
        environment=environ.get("SENTRY_ENVIRONMENT") or "production",
        release=environ.get("SENTRY_RELEASE") or None,
        traces_sample_rate=float(environ.get("SENTRY_TRACES_SAMPLE_RATE") or 0),
    )
    return True
