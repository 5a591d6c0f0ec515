"""Prometheus metrics at /metrics: django-prometheus's request, latency and database metrics, plus the
planner's own, collected when Prometheus scrapes (never counted in the request path):

- `planner_jobs{kind="export"|"solve", status=...}`: job rows by status, one aggregate query per model;
- `planner_queue_depth{queue="solve"|"exports"}`: messages waiting in the broker (Redis LLEN), only when
  the broker is Redis; with eager tasks (no broker) there is no queue and the gauge is left out.

Under gunicorn with several workers set PROMETHEUS_MULTIPROC_DIR (docker-compose does) so that every
scrape sees the sum over the workers rather than one worker's counters.
"""

from __future__ import annotations

import hmac
import logging
import os

from django.conf import settings
from django.db import DatabaseError
from django.db.models import Count
from django.http import HttpResponse, JsonResponse
from prometheus_client import CONTENT_TYPE_LATEST, REGISTRY, CollectorRegistry, generate_latest, multiprocess
from prometheus_client.core import GaugeMetricFamily

logger = logging.getLogger(__name__)

_redis_clients: dict[str, object] = {}


def queue_depths() -> dict[str, int] | None:
    """{queue name: waiting messages} from the Redis broker, or None when tasks run eagerly, the broker
    is not Redis, or it cannot be reached within a second (a scrape must not hang on the broker)."""
    url = settings.CELERY_BROKER_URL or ""
    if settings.CELERY_TASK_ALWAYS_EAGER or not url.startswith(("redis://", "rediss://")):
        return None
    import redis

    client = _redis_clients.get(url)
    if client is None:
        client = _redis_clients[url] = redis.Redis.from_url(url, socket_timeout=1, socket_connect_timeout=1)
    queues = [settings.CELERY_SOLVE_QUEUE, settings.CELERY_EXPORT_QUEUE]
    try:
        pipe = client.pipeline(transaction=False)
        for queue in queues:
            pipe.llen(queue)
        return dict(zip(queues, (int(n) for n in pipe.execute()), strict=True))
    except redis.RedisError as exc:
        logger.warning("metrics: queue depth unavailable (%s)", exc.__class__.__name__)
        return None


class PlannerCollector:
    """Job gauges and queue depths, read at scrape time."""

    def describe(self):
        return []  # no collection at registration time (the database may not be ready then)

    def collect(self):
        from planner.models import ExportJob, SolveJob

        jobs = GaugeMetricFamily("planner_jobs", "Export and solve jobs in the database, by status.", labels=["kind", "status"])
        try:
            for kind, model in (("export", ExportJob), ("solve", SolveJob)):
                counts = dict.fromkeys(model.Status.values, 0)
                for row in model.objects.order_by().values("status").annotate(n=Count("id")):
                    counts[row["status"]] = row["n"]
                for status, n in counts.items():
                    jobs.add_metric([kind, status], n)
        except DatabaseError as exc:
            logger.warning("metrics: job counts unavailable (%s)", exc.__class__.__name__)
        else:
            yield jobs
        depths = queue_depths()
        if depths is not None:
            depth = GaugeMetricFamily("planner_queue_depth", "Tasks waiting in the broker's queue (Redis LLEN).", labels=["queue"])
            for queue, n in depths.items():
                depth.add_metric([queue], n)
            yield depth


_collector = PlannerCollector()
REGISTRY.register(_collector)


def _registry():
    if os.environ.get("PROMETHEUS_MULTIPROC_DIR"):
        registry = CollectorRegistry()
        multiprocess.MultiProcessCollector(registry)
        registry.register(_collector)
        return registry
    return REGISTRY


def metrics_view(request):
    """The Prometheus text exposition. With METRICS_TOKEN set, scrapers must send `Authorization: Bearer <token>`."""
    expected = getattr(settings, "METRICS_TOKEN", "")
    if expected:
        sent = request.META.get("HTTP_AUTHORIZATION", "")
        if not hmac.compare_digest(sent.encode(), f"Bearer {expected}".encode()):
            response = JsonResponse({"detail": "Metrics need 'Authorization: Bearer <METRICS_TOKEN>'."}, status=401)
            response["WWW-Authenticate"] = "Bearer"
            return response
    return HttpResponse(generate_latest(_registry()), content_type=CONTENT_TYPE_LATEST)
