"""Logs: one JSON object per line on stdout in production (LOG_FORMAT=json), plain text in development
(LOG_FORMAT=text), and a request id on every record logged while a request is served.

The request id comes from the client's `X-Request-ID` header when it is a short safe token (so a proxy's
id is kept end to end), otherwise a new one is made; it is echoed in the response's `X-Request-ID`.
"""

from __future__ import annotations

import json
import logging
import re
import time
import uuid
from contextvars import ContextVar
from datetime import UTC, datetime

request_id_var: ContextVar[str | None] = ContextVar("request_id", default=None)

REQUEST_ID_HEADER = "X-Request-ID"
SAFE_REQUEST_ID = re.compile(r"^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$")
REQUEST_LOGGER = "planner.request"

# Fields a request line carries beside the standard ones (passed with `extra=`).
REQUEST_FIELDS = ("method", "path", "status", "duration_ms")


def request_id_from(header: str | None) -> str:
    """The client's id when it is 1 to 64 letters, digits, '.', '_' or '-' (first a letter or digit);
    anything else (missing, too long, spaces, quotes, newlines) gets a fresh random id instead."""
    if header and SAFE_REQUEST_ID.match(header):
        return header
    return uuid.uuid4().hex


class RequestIdFilter(logging.Filter):
    """Puts the current request's id (or '-' outside a request) on every record as `request_id`."""

    def filter(self, record: logging.LogRecord) -> bool:
        if not getattr(record, "request_id", None):
            # Django logs 4xx/5xx answers after the middleware has finished, with the request attached
            request = getattr(record, "request", None)
            record.request_id = request_id_var.get() or getattr(request, "request_id", None) or "-"
        return True


class JsonFormatter(logging.Formatter):
    """One JSON object per record: timestamp (UTC, ISO 8601), level, logger, message, request_id, the
    request fields when present, and the exception's traceback as `exc_info` when there is one."""

    def format(self, record: logging.LogRecord) -> str:
        entry = {
            "timestamp": datetime.fromtimestamp(record.created, tz=UTC).isoformat(timespec="milliseconds").replace("+00:00", "Z"),
            "level": record.levelname,
            "logger": record.name,
            "message": record.getMessage(),
            "request_id": getattr(record, "request_id", None) or request_id_var.get() or "-",
        }
        for field in REQUEST_FIELDS:
            value = getattr(record, field, None)
            if value is not None:
                entry[field] = value
        if record.exc_info:
            entry["exc_info"] = self.formatException(record.exc_info)
        elif record.exc_text:
            entry["exc_info"] = record.exc_text
        return json.dumps(entry, default=str, ensure_ascii=True)


def logging_config(*, fmt: str, level: str) -> dict:
    """Django's LOGGING for `fmt` ('json' or 'text') at root `level`; request lines are INFO records of
    the 'planner.request' logger, so they show at LOG_LEVEL=INFO (production's default)."""
    fmt = fmt.lower()
    if fmt not in ("json", "text"):
        raise ValueError(f"LOG_FORMAT must be 'json' or 'text', not {fmt!r}")
    formatters = {
        "json": {"()": "config.logging.JsonFormatter"},
        "text": {"format": "%(asctime)s %(levelname)s %(name)s [%(request_id)s] %(message)s"},
    }
    return {
        "version": 1,
        "disable_existing_loggers": False,
        "filters": {"request_id": {"()": "config.logging.RequestIdFilter"}},
        "formatters": {fmt: formatters[fmt]},
        "handlers": {
            "console": {"class": "logging.StreamHandler", "stream": "ext://sys.stdout", "formatter": fmt, "filters": ["request_id"]},
        },
        "root": {"handlers": ["console"], "level": level.upper()},
        # Django's own 'django' logger prints to stderr in debug; here it passes its records to the root instead
        "loggers": {"django": {"handlers": [], "propagate": True}},
    }


class RequestIdMiddleware:
    """Sets the request id for the duration of the request (request.request_id, the contextvar that log
    records read), echoes it in the response header and logs one line per request with its method, path
    (no query string: it may carry secrets), status and duration in milliseconds."""

    def __init__(self, get_response):
        self.get_response = get_response
        self.logger = logging.getLogger(REQUEST_LOGGER)

    def __call__(self, request):
        request_id = request_id_from(request.META.get("HTTP_X_REQUEST_ID"))
        request.request_id = request_id
        token = request_id_var.set(request_id)
        started = time.perf_counter()
        try:
            response = self.get_response(request)
            response[REQUEST_ID_HEADER] = request_id
            duration_ms = round((time.perf_counter() - started) * 1000, 1)
            status = response.status_code
            self.logger.info(
                "%s %s %s %.1f ms",
                request.method,
                request.path,
                status,
                duration_ms,
                extra={"method": request.method, "path": request.path, "status": status, "duration_ms": duration_ms},
            )
            return response
        finally:
            request_id_var.reset(token)
