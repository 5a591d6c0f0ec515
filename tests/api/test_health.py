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


def test_health_when_the_broker_is_unreachable(api, settings):
    settings.CELERY_BROKER_URL = "redis://127.0.0.1:1/0"  # nothing listens on port 1
    response = api.get("/api/v1/health/")
    assert response.status_code == 503
    body = response.json()
    assert body["status"] == "degraded"
    assert body["broker"]["status"] == "error"
    assert "127.0.0.1:1" in body["broker"]["detail"]
    assert body["database"]["status"] == "ok"


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
