"""Sentry starts only when SENTRY_DSN is set, with the Django and Celery integrations and no personal data."""

import sentry_sdk
from sentry_sdk.integrations.celery import CeleryIntegration
from sentry_sdk.integrations.django import DjangoIntegration

from config.sentry import init_sentry


def test_no_dsn_no_sentry(monkeypatch):
    calls = []
    monkeypatch.setattr(sentry_sdk, "init", lambda **kw: calls.append(kw))
    assert init_sentry({}) is False
    assert init_sentry({"SENTRY_DSN": "  "}) is False
    assert calls == []


def test_the_test_settings_did_not_start_sentry():
    assert not sentry_sdk.get_client().is_active()


def test_dsn_starts_sentry_with_django_and_celery_and_no_pii(monkeypatch):
    calls = []
    monkeypatch.setattr(sentry_sdk, "init", lambda **kw: calls.append(kw))
    started = init_sentry(
        {"SENTRY_DSN": "https://public@o0.ingest.example.org/1", "SENTRY_ENVIRONMENT": "staging", "SENTRY_RELEASE": "planner@1.4.0"}
    )
    assert started is True
    assert len(calls) == 1
    options = calls[0]
    assert options["dsn"] == "https://public@o0.ingest.example.org/1"
    assert options["send_default_pii"] is False
    assert options["environment"] == "staging"
    assert options["release"] == "planner@1.4.0"
    assert options["traces_sample_rate"] == 0
    kinds = {type(integration) for integration in options["integrations"]}
    assert kinds == {DjangoIntegration, CeleryIntegration}


def test_environment_defaults_to_production(monkeypatch):
    calls = []
    monkeypatch.setattr(sentry_sdk, "init", lambda **kw: calls.append(kw))
    init_sentry({"SENTRY_DSN": "https://public@o0.ingest.example.org/1"})
    assert calls[0]["environment"] == "production" and calls[0]["release"] is None
