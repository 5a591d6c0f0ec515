"""The Celery application. Configuration comes from Django settings (CELERY_* names)."""

import os

from celery import Celery

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.base")

app = Celery("planner")
app.config_from_object("django.conf:settings", namespace="CELERY")
app.autodiscover_tasks()


def queue_names() -> tuple[str, str]:
    """The solve and export queues' names (settings CELERY_SOLVE_QUEUE, CELERY_EXPORT_QUEUE), read when a
    task is sent so that a test can give itself queues of its own."""
    conf = app.conf
    return (conf.get("CELERY_SOLVE_QUEUE") or "solve", conf.get("CELERY_EXPORT_QUEUE") or "exports")


def route_task(name, args, kwargs, options, task=None, **kw):
    """Searches go to the solve queue; exports, DCIM pushes and housekeeping to the export queue."""
    solve, export = queue_names()
    return {"queue": solve if name.startswith("planner.tasks.solve") else export}


# ------------------------------------------------------------------ worker heartbeats for /api/v1/health/
# Each worker writes its name and the queues it consumes into Django's cache (Redis in production)
# every HEARTBEAT_SECONDS; health reads them without a broadcast, so it stays fast under load.
HEARTBEAT_SECONDS = 10
HEARTBEAT_REGISTRY = "planner:workers"


def heartbeat_key(hostname: str) -> str:
    return f"planner:worker:{hostname}"


def _beat_once(hostname: str, queues: list[str]) -> None:
    import time

    from django.core.cache import cache

    cache.set(heartbeat_key(hostname), {"queues": queues, "at": time.time()}, timeout=HEARTBEAT_SECONDS * 3)
    names = set(cache.get(HEARTBEAT_REGISTRY) or [])
    if hostname not in names:
        cache.set(HEARTBEAT_REGISTRY, sorted(names | {hostname}), timeout=None)


def _start_heartbeat(sender=None, **_kwargs) -> None:
    import logging
    import threading

    hostname = getattr(sender, "hostname", None) or "worker"
    queues = sorted(app.amqp.queues.consume_from or app.amqp.queues)

    def loop():
        while True:
            try:
                _beat_once(hostname, queues)
            except Exception:  # noqa: BLE001 - a cache outage must not stop the worker
                logging.getLogger(__name__).warning("worker heartbeat not written", exc_info=True)
            stop.wait(HEARTBEAT_SECONDS)
            if stop.is_set():
                return

    stop = threading.Event()
    _start_heartbeat.stop = stop
    threading.Thread(target=loop, name="planner-heartbeat", daemon=True).start()


def _stop_heartbeat(sender=None, **_kwargs) -> None:
    stop = getattr(_start_heartbeat, "stop", None)
    if stop is not None:
        stop.set()
    try:
        from django.core.cache import cache

        cache.delete(heartbeat_key(getattr(sender, "hostname", None) or "worker"))
    except Exception:  # noqa: BLE001
        pass


def _connect_heartbeat() -> None:
    from celery.signals import worker_ready, worker_shutdown

    worker_ready.connect(_start_heartbeat, weak=False)
    worker_shutdown.connect(_stop_heartbeat, weak=False)


_connect_heartbeat()
