"""Property-based API tests from the live OpenAPI schema (schemathesis): a bounded number of generated
requests per operation, anonymous and authenticated. No response may be a 5xx, and every response
must match its documented status codes, content type and schema."""

import pytest
import schemathesis
from django.core.wsgi import get_wsgi_application
from hypothesis import HealthCheck, settings
from schemathesis.checks import not_a_server_error
from schemathesis.specs.openapi.checks import content_type_conformance, response_schema_conformance, status_code_conformance

schema = schemathesis.openapi.from_wsgi("/api/schema/?format=json", get_wsgi_application())
CHECKS = [not_a_server_error, status_code_conformance, content_type_conformance, response_schema_conformance]
EXAMPLES = int(__import__("os").environ.get("SCHEMATHESIS_EXAMPLES", "12"))


@pytest.fixture(autouse=True)
def keep_the_test_connection_open():
    """Calls go straight into the WSGI app, as Django's test client does: keep the test transaction's
    connection open (the app closes 'old' connections at the end of each request otherwise)."""
    from django.core import signals
    from django.db import close_old_connections

    signals.request_started.disconnect(close_old_connections)
    signals.request_finished.disconnect(close_old_connections)
    yield
    signals.request_started.connect(close_old_connections)
    signals.request_finished.connect(close_old_connections)


@pytest.fixture
def token_headers(django_user_model):
    from planner.services import design_create, token_create

    user = django_user_model.objects.create_user("schemathesis", password="pw-schemathesis-1")
    design_create(owner=user, name="fuzz target", spec={"bricks": [{"template": "md3460-performance", "count": 2}]})
    _, key = token_create(user=user, name="fuzz")
    return {"Authorization": f"Token {key}"}


@pytest.mark.django_db
@schema.parametrize()
@settings(max_examples=EXAMPLES, deadline=None, suppress_health_check=list(HealthCheck))
def test_api_anonymous(case):
    case.call_and_validate(checks=CHECKS)


@pytest.mark.django_db
@schema.parametrize()
@settings(max_examples=EXAMPLES, deadline=None, suppress_health_check=list(HealthCheck))
def test_api_authenticated(case, token_headers):
    case.call_and_validate(headers=token_headers, checks=CHECKS)
