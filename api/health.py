"""GET /api/v1/health/: can the service do its work? Database, broker, workers and queue depth.

HTTP 503 when the database or the broker is down (the web process cannot serve); 200 otherwise, with
`status: degraded` when no worker answers (pages and evaluations work, exports and large solves wait).
Anonymous callers see only each part's status; staff see hosts, ports, worker names and errors.
Workers are seen through the heartbeats they write into the shared cache every 10 s (see
config/celery.py); where the cache is not shared (local memory), through a Celery broadcast with a
short timeout. The answer is cached for `HEALTH_WORKER_CACHE_SECONDS` (default 5).
"""

from __future__ import annotations

import socket
import time
from urllib.parse import urlparse

from django.conf import settings
from django.core.cache import cache
from django.db import connection
from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import OpenApiExample, extend_schema
from rest_framework import permissions, status
from rest_framework.response import Response
from rest_framework.views import APIView

WORKERS_KEY = "planner:health:workers"
# kombu's Redis transport keeps each queue as a list, plus one list per priority step
PRIORITY_SUFFIXES = ("", "\x06\x163", "\x06\x166", "\x06\x169")


def broker_status() -> dict:
    """Reach the broker's TCP port (no side effects); `eager` when none is configured."""
    url = settings.CELERY_BROKER_URL
    if not url:
        return {"status": "eager", "detail": "no broker configured: tasks run in the web process"}
    parsed = urlparse(url)
    host, port = parsed.hostname or "localhost", parsed.port or 6379
    try:
        with socket.create_connection((host, port), timeout=1.0) as sock:
            if parsed.scheme.startswith("redis"):
                sock.sendall(b"PING\r\n")
                reply = sock.recv(64)
                if not reply.startswith((b"+PONG", b"-NOAUTH")):
                    return {"status": "error", "detail": f"unexpected reply from {host}:{port}"}
    except OSError as exc:
        return {"status": "error", "detail": f"cannot reach broker at {host}:{port}: {exc.strerror or exc}"}
    return {"status": "ok", "detail": f"{parsed.scheme} at {host}:{port}"}


def database_status() -> dict:
    try:
        with connection.cursor() as cursor:
            cursor.execute("SELECT 1")
            cursor.fetchone()
    except Exception as exc:  # noqa: BLE001 - any database failure is reported, not raised
        return {"status": "error", "detail": str(exc)[:200]}
    return {"status": "ok", "detail": connection.vendor}


def _queue_names() -> tuple[str, str]:
    from config.celery import queue_names

    return queue_names()


def queue_depths() -> dict:
    """Messages waiting per queue (Redis broker only; {} otherwise or when unreachable)."""
    url = settings.CELERY_BROKER_URL or ""
    if not url.startswith("redis"):
        return {}
    try:
        import redis

        client = redis.Redis.from_url(url, socket_timeout=0.5, socket_connect_timeout=0.5)
        with client.pipeline() as pipe:
            names = _queue_names()
            for name in names:
                for suffix in PRIORITY_SUFFIXES:
                    pipe.llen(name + suffix)
            counts = pipe.execute()
    except Exception:  # noqa: BLE001 - reported as unknown
        return {}
    steps = len(PRIORITY_SUFFIXES)
    return {name: sum(counts[i * steps : (i + 1) * steps]) for i, name in enumerate(names)}


def _from_heartbeats() -> dict | None:
    """Workers that wrote a heartbeat recently (see config/celery.py), or None when the cache is this
    process's own memory (then another process's heartbeats cannot be seen)."""
    import time

    from config.celery import HEARTBEAT_REGISTRY, HEARTBEAT_SECONDS, heartbeat_key

    if "locmem" in settings.CACHES["default"]["BACKEND"].lower():
        return None
    names = cache.get(HEARTBEAT_REGISTRY) or []
    beats = cache.get_many([heartbeat_key(n) for n in names]) if names else {}
    now, alive, queues = time.time(), [], set()
    for name in names:
        beat = beats.get(heartbeat_key(name))
        if beat and now - beat.get("at", 0) < HEARTBEAT_SECONDS * 3:
            alive.append(name)
            queues.update(beat.get("queues") or [])
    return {"names": alive, "queues": queues, "source": "heartbeat"}


def _from_broadcast() -> dict:
    from config.celery import app

    replies = app.control.broadcast("active_queues", reply=True, timeout=float(getattr(settings, "HEALTH_WORKER_TIMEOUT", 0.5))) or []
    names, queues = [], set()
    for reply in replies:
        for name, active in reply.items():
            names.append(name)
            queues.update(q.get("name") for q in active or [] if isinstance(q, dict))
    return {"names": names, "queues": queues, "source": "broadcast"}


def workers_status() -> dict:
    """Workers alive and the queues they consume: from their heartbeats in the shared cache (no waiting),
    or, when the cache is not shared, from a Celery broadcast with a short timeout (cached briefly)."""
    from config.celery import app

    if app.conf.task_always_eager or not settings.CELERY_BROKER_URL:
        return {"status": "eager", "count": 0, "names": [], "queues": []}
    cached = cache.get(WORKERS_KEY)
    if cached is not None:
        return cached
    started = time.monotonic()
    try:
        seen = _from_heartbeats() or _from_broadcast()
    except Exception as exc:  # noqa: BLE001
        result = {"status": "error", "count": 0, "names": [], "queues": [], "detail": str(exc)[:200]}
    else:
        names, queues = seen["names"], {q for q in seen["queues"] if q}
        missing = sorted(set(_queue_names()) - queues)
        state = "ok" if names and not missing else ("none" if not names else "partial")
        result = {"status": state, "count": len(names), "names": sorted(names), "queues": sorted(queues), "source": seen["source"]}
        if missing and names:
            result["detail"] = f"no worker consumes {', '.join(missing)}"
    result["checked_in_ms"] = round((time.monotonic() - started) * 1000, 1)
    cache.set(WORKERS_KEY, result, timeout=int(getattr(settings, "HEALTH_WORKER_CACHE_SECONDS", 5)))
    return result


class HealthView(APIView):
    """Is the service usable? Database, broker, workers and queue depth."""

    permission_classes = [permissions.AllowAny]

    @extend_schema(
        summary="Health of the database, the task broker and the workers",
        tags=["health"],
        responses={200: OpenApiTypes.OBJECT, 503: OpenApiTypes.OBJECT},
        examples=[
            OpenApiExample(
                "Healthy (anonymous view)",
                response_only=True,
                value={
                    "status": "ok",
                    "database": {"status": "ok"},
                    "broker": {"status": "ok"},
                    "workers": {"status": "ok", "count": 2},
                    "queues": {"solve": 0, "exports": 1},
                },
            )
        ],
    )
    def get(self, request):
        database = database_status()
        broker = broker_status()
        if broker["status"] == "error":
            workers = {"status": "unknown", "count": 0, "names": [], "queues": []}
        else:
            workers = workers_status()
        queues = queue_depths() if broker["status"] == "ok" else {}
        serving = database["status"] == "ok" and broker["status"] in ("ok", "eager")
        working = workers["status"] in ("ok", "eager")
        body = {
            "status": "ok" if serving and working else "degraded",
            "database": database,
            "broker": broker,
            "workers": workers,
            "queues": queues,
        }
        if not (request.user and request.user.is_staff):  # hosts, ports and errors are for operators only
            body["database"] = {"status": database["status"]}
            body["broker"] = {"status": broker["status"]}
            body["workers"] = {"status": workers["status"], "count": workers["count"]}
        return Response(body, status=status.HTTP_200_OK if serving else status.HTTP_503_SERVICE_UNAVAILABLE)
