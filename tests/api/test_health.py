"""GET /api/v1/health/: database and broker status."""

import pytest

pytestmark = pytest.mark.django_db


def test_health_reports_database_and_broker(api, settings):
    settings.CELERY_BROKER_URL = None
    response = api.get("/api/v1/health/")
    assert response.status_code == 200
    body = response.json()
    assert body["status"] == "ok"
    assert body["database"]["status"] == "ok"
    assert body["broker"]["status"] == "eager"


def test_health_when_the_broker_is_unreachable(api, settings, admin_user):
    settings.CELERY_BROKER_URL = "redis://127.0.0.1:1/0"  # nothing listens on port 1
    response = api.get("/api/v1/health/")
    assert response.status_code == 503
    body = response.json()
    assert body["status"] == "degraded"
    assert body["broker"] == {"status": "error"}  # anonymous callers are not told hosts and ports
    assert body["database"] == {"status": "ok"}
    assert "127.0.0.1" not in response.content.decode()
    api.force_authenticate(admin_user)
    staff = api.get("/api/v1/health/").json()
    assert "127.0.0.1:1" in staff["broker"]["detail"]  # operators are
    assert staff["database"]["detail"] in ("sqlite", "postgresql")


@pytest.fixture
def not_eager():
    from django.core.cache import cache

    from config.celery import app

    eager = app.conf.task_always_eager
    app.conf.update(CELERY_TASK_ALWAYS_EAGER=False)  # the app reads Django's CELERY_* names
    yield
    app.conf.update(CELERY_TASK_ALWAYS_EAGER=eager)
    cache.delete("planner:health:workers")


def test_health_without_workers_is_degraded_but_serving(api, settings, monkeypatch, not_eager):
    """A broker that answers but no worker that does: 200 (the site serves pages and evaluations) with
    status degraded and no workers, so monitoring sees that exports and large solves would wait."""
    from config.celery import app

    monkeypatch.setattr("api.health.broker_status", lambda: {"status": "ok", "detail": "redis at x"})
    monkeypatch.setattr("api.health.queue_depths", lambda: {"solve": 3, "exports": 0})
    monkeypatch.setattr(app.control, "broadcast", lambda *a, **k: [])
    settings.CELERY_BROKER_URL = "redis://127.0.0.1:6379/9"
    from django.core.cache import cache

    cache.delete("planner:health:workers")
    body = api.get("/api/v1/health/").json()
    assert body["status"] == "degraded"
    assert body["workers"] == {"status": "none", "count": 0}
    assert body["queues"] == {"solve": 3, "exports": 0}
    # one worker serving only the export queue: partial
    cache.delete("planner:health:workers")
    monkeypatch.setattr(app.control, "broadcast", lambda *a, **k: [{"w1@h": [{"name": "exports"}]}])
    body = api.get("/api/v1/health/").json()
    assert body["workers"] == {"status": "partial", "count": 1} and body["status"] == "degraded"
    cache.delete("planner:health:workers")
    monkeypatch.setattr(app.control, "broadcast", lambda *a, **k: [{"w1@h": [{"name": "exports"}, {"name": "solve"}]}])
    assert api.get("/api/v1/health/").json()["status"] == "ok"


def test_health_with_a_broker_that_answers(api, settings):
    """A fake Redis on loopback answers PING with PONG."""
    import socket
    import threading

    server = socket.socket()
    server.bind(("127.0.0.1", 0))
    server.listen(1)
    port = server.getsockname()[1]

    def answer():
        conn, _ = server.accept()
        with conn:
            conn.recv(64)
            conn.sendall(b"+PONG\r\n")

    thread = threading.Thread(target=answer, daemon=True)
    thread.start()
    settings.CELERY_BROKER_URL = f"redis://127.0.0.1:{port}/0"
    try:
        response = api.get("/api/v1/health/")
    finally:
        thread.join(timeout=2)
        server.close()
    assert response.status_code == 200
    assert response.json()["broker"]["status"] == "ok"
