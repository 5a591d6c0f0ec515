"""Logs: one JSON line per request with its request id, the id echoed in X-Request-ID, text in development."""

import io
import json
import logging
import os
import subprocess
import sys
from pathlib import Path

import pytest

from config.logging import REQUEST_LOGGER, JsonFormatter, RequestIdFilter, logging_config, request_id_var

ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture
def log_lines():
    """Everything the request logger and django.request write, formatted as in production."""
    stream = io.StringIO()
    handler = logging.StreamHandler(stream)
    handler.setFormatter(JsonFormatter())
    handler.addFilter(RequestIdFilter())
    loggers = [logging.getLogger(REQUEST_LOGGER), logging.getLogger("django.request")]
    levels = [lg.level for lg in loggers]
    for lg in loggers:
        lg.addHandler(handler)
        lg.setLevel(logging.INFO)
    yield lambda: [line for line in stream.getvalue().splitlines() if line]
    for lg, level in zip(loggers, levels, strict=True):
        lg.removeHandler(handler)
        lg.setLevel(level)


@pytest.mark.django_db
def test_a_request_logs_one_json_line_with_its_id_and_echoes_it(client, log_lines):
    response = client.get("/api/v1/health/?probe=1", HTTP_X_REQUEST_ID="lb-7f3a.42_x")
    assert response.status_code == 200
    assert response["X-Request-ID"] == "lb-7f3a.42_x"
    lines = [json.loads(line) for line in log_lines()]
    requests = [e for e in lines if e["logger"] == REQUEST_LOGGER]
    assert len(requests) == 1
    entry = requests[0]
    assert entry["request_id"] == "lb-7f3a.42_x"
    assert entry["level"] == "INFO"
    assert entry["method"] == "GET"
    assert entry["path"] == "/api/v1/health/"  # no query string
    assert entry["status"] == 200
    assert isinstance(entry["duration_ms"], float) and entry["duration_ms"] >= 0
    assert entry["timestamp"].endswith("Z") and "T" in entry["timestamp"]
    assert "GET /api/v1/health/ 200" in entry["message"]


@pytest.mark.parametrize("incoming", [None, "", "has space", 'quote"d', "line\nbreak", "x" * 65, "-leading-dash", "é"])
@pytest.mark.django_db
def test_an_unsafe_or_missing_id_is_replaced_by_a_fresh_one(client, log_lines, incoming):
    extra = {} if incoming is None else {"HTTP_X_REQUEST_ID": incoming}
    response = client.get("/api/v1/health/", **extra)
    request_id = response["X-Request-ID"]
    assert request_id != incoming and len(request_id) == 32 and int(request_id, 16) >= 0
    assert json.loads(log_lines()[-1])["request_id"] == request_id


@pytest.mark.django_db
def test_two_requests_get_two_ids(client):
    first = client.get("/api/v1/health/")["X-Request-ID"]
    second = client.get("/api/v1/health/")["X-Request-ID"]
    assert first != second


@pytest.mark.django_db
def test_django_error_records_of_the_request_carry_its_id(client, log_lines):
    response = client.get("/api/v1/no-such-endpoint/", HTTP_X_REQUEST_ID="trace-404")
    assert response.status_code == 404
    not_found = [json.loads(line) for line in log_lines() if '"django.request"' in line]
    assert not_found and all(e["request_id"] == "trace-404" for e in not_found)


def test_records_outside_a_request_say_dash_and_exceptions_are_kept():
    record = logging.LogRecord("planner.tasks", logging.ERROR, __file__, 1, "boom %s", ("now",), None)
    RequestIdFilter().filter(record)
    assert json.loads(JsonFormatter().format(record))["request_id"] == "-"
    token = request_id_var.set("inside-1")
    try:
        try:
            raise ValueError("bad")
        except ValueError:
            record = logging.LogRecord("planner.tasks", logging.ERROR, __file__, 1, "failed", (), sys.exc_info())
        RequestIdFilter().filter(record)
        entry = json.loads(JsonFormatter().format(record))
    finally:
        request_id_var.reset(token)
    assert entry["request_id"] == "inside-1"
    assert entry["message"] == "failed" and "ValueError: bad" in entry["exc_info"]


def test_logging_config_formats():
    json_config = logging_config(fmt="json", level="info")
    assert json_config["formatters"]["json"]["()"] == "config.logging.JsonFormatter"
    assert json_config["root"]["level"] == "INFO"
    text_config = logging_config(fmt="text", level="WARNING")
    assert "%(request_id)s" in text_config["formatters"]["text"]["format"]
    with pytest.raises(ValueError):
        logging_config(fmt="xml", level="INFO")


def _settings_value(env: dict, expression: str) -> str:
    clean = {k: v for k, v in os.environ.items() if k not in ("LOG_FORMAT", "LOG_LEVEL", "DJANGO_ALLOW_ASYNC_UNSAFE")}
    run = subprocess.run(
        [sys.executable, "-c", f"from django.conf import settings; print({expression})"],
        cwd=ROOT,
        env={**clean, "DJANGO_SETTINGS_MODULE": "config.base", "SECRET_KEY": "x" * 50, "CELERY_BROKER_URL": "redis://127.0.0.1:1/0", **env},
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert run.returncode == 0, run.stderr
    return run.stdout.strip()


def test_production_defaults_to_json_and_development_to_text():
    assert _settings_value({"DEBUG": "false"}, "settings.LOG_FORMAT, settings.LOG_LEVEL") == "json INFO"
    assert _settings_value({"DEBUG": "true"}, "settings.LOG_FORMAT, settings.LOG_LEVEL") == "text WARNING"
    assert _settings_value({"DEBUG": "false", "LOG_FORMAT": "text"}, "settings.LOG_FORMAT") == "text"
