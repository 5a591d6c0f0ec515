"""One JSON error body under /api/: database outages (503 with Retry-After), unknown paths, Django's own
error views; the usual HTML pages elsewhere."""

import json

import pytest
from django.db import InterfaceError, OperationalError
from django.test import Client

DOWN = "The database is unavailable; try again shortly."


@pytest.fixture
def database_down(monkeypatch):
    def refuse(self):
        raise OperationalError('connection to server at "db.internal" (10.1.2.3), port 5432 failed: Connection refused')

    # every new query asks for a connection first; close the open one so that the next query reconnects
    from django.db import connection

    monkeypatch.setattr("django.db.backends.base.base.BaseDatabaseWrapper.ensure_connection", refuse)
    monkeypatch.setattr(connection, "connection", None)


@pytest.mark.django_db
@pytest.mark.parametrize(
    "method, path, body",
    [
        ("get", "/api/v1/catalogue/disks/", None),
        ("get", "/api/v1/catalogue/racks/rack-42u/", None),
        ("get", "/api/v1/designs/", None),  # with a token: looking it up needs the database
        ("post", "/api/v1/evaluate/", {"bricks": [{"template": "md3460-performance", "count": 1}]}),
    ],
)
def test_database_outage_is_a_503_json_on_api_views(api, database_down, method, path, body):
    api.credentials(HTTP_AUTHORIZATION="Token 0123456789abcdef0123456789abcdef")
    response = getattr(api, method)(path, body, format="json") if body else getattr(api, method)(path)
    assert response.status_code == 503, response.content[:300]
    assert response["Content-Type"].startswith("application/json")
    assert response.json() == {"detail": DOWN}
    assert int(response["Retry-After"]) > 0
    assert b"10.1.2.3" not in response.content and b"db.internal" not in response.content


@pytest.mark.django_db
def test_database_outage_in_a_signed_in_session_is_a_503_json(client, django_user_model, monkeypatch):
    """The session and the user are loaded (from the database) before the view runs."""
    user = django_user_model.objects.create_user("sam-outage", password="pw-sam-123456")
    client.force_login(user)
    client.raise_request_exception = False

    def refuse(self):
        raise InterfaceError("connection already closed")

    from django.db import connection

    monkeypatch.setattr("django.db.backends.base.base.BaseDatabaseWrapper.ensure_connection", refuse)
    monkeypatch.setattr(connection, "connection", None)
    response = client.get("/api/v1/designs/")
    assert response.status_code == 503
    assert response.json() == {"detail": DOWN}


@pytest.mark.django_db
def test_database_outage_on_a_non_drf_api_view_is_json(client, monkeypatch):
    """The middleware: a plain Django view under /api/ whose query fails."""
    from config.middleware import DatabaseUnavailableMiddleware

    middleware = DatabaseUnavailableMiddleware(lambda request: None)
    from django.test import RequestFactory

    request = RequestFactory().get("/api/schema/")
    response = middleware.process_exception(request, OperationalError("server closed the connection unexpectedly"))
    assert response.status_code == 503 and response["Retry-After"]
    page = RequestFactory().get("/designer/")
    assert middleware.process_exception(page, OperationalError("x")) is None  # pages keep Django's handling


@pytest.mark.django_db
def test_uncaught_errors_under_api_are_json(monkeypatch):
    """handler500: an error outside any view (here: a middleware-level failure) under /api/."""
    client = Client(raise_request_exception=False)

    def boom(*args, **kwargs):
        raise RuntimeError("unexpected")

    monkeypatch.setattr("api.views.HealthView.get", boom, raising=False)
    monkeypatch.setattr("django.middleware.common.CommonMiddleware.process_request", boom)
    response = client.get("/api/v1/catalogue/disks/")
    assert response.status_code == 500
    assert response.json() == {"detail": "A server error occurred; it has been logged."}
    page = client.get("/catalogue/")
    assert page.status_code == 500 and not page["Content-Type"].startswith("application/json")


@pytest.mark.django_db
def test_database_failure_outside_views_under_api_is_503_json(monkeypatch):
    client = Client(raise_request_exception=False)

    def refuse(*args, **kwargs):
        raise OperationalError("could not connect")

    monkeypatch.setattr("django.middleware.common.CommonMiddleware.process_request", refuse)
    response = client.get("/api/v1/catalogue/disks/")
    assert response.status_code == 503
    assert response.json() == {"detail": DOWN} and response["Retry-After"]


@pytest.mark.django_db
@pytest.mark.parametrize("path", ["/api/v1/no-such-thing/", "/api/nothing", "/api/v1/catalogue/no-such-kind/"])
def test_unknown_api_paths_are_404_json(client, path):
    response = client.get(path)
    assert response.status_code == 404
    assert response["Content-Type"].startswith("application/json")
    assert "detail" in response.json()


@pytest.mark.django_db
def test_unknown_pages_stay_html(client):
    response = client.get("/no-such-page/")
    assert response.status_code == 404
    assert not response["Content-Type"].startswith("application/json")


@pytest.mark.django_db
def test_refused_host_under_api_is_400_json(settings):
    settings.ALLOWED_HOSTS = ["planner.example.org"]
    response = Client(raise_request_exception=False).get("/api/v1/catalogue/disks/", HTTP_HOST="evil.example.com")
    assert response.status_code == 400
    assert response.json() == {"detail": "Bad request."}


def test_csrf_failure_under_api_is_json(rf):
    from api.errors import csrf_failure

    response = csrf_failure(rf.post("/api/v1/evaluate/"), reason="CSRF cookie not set.")
    assert response.status_code == 403 and "CSRF" in json.loads(response.content)["detail"]
    page = csrf_failure(rf.post("/designer/"), reason="CSRF cookie not set.")
    assert page.status_code == 403 and not page["Content-Type"].startswith("application/json")


def test_permission_denied_under_api_is_json(rf):
    from django.core.exceptions import PermissionDenied

    from api.errors import permission_denied

    response = permission_denied(rf.get("/api/v1/designs/"), PermissionDenied())
    assert response.status_code == 403 and "detail" in json.loads(response.content)
