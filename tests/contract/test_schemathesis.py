"""Property-based API tests from the live OpenAPI schema (schemathesis), anonymous and with a token.

Every check schemathesis registers runs on every response (no 5xx; status codes, content types,
headers and bodies as documented; invalid data rejected and valid data accepted; documented auth
enforced; unsupported methods a 405; ...), on valid and invalid (negative) data, through the
examples, coverage and fuzzing phases. The fuzzing phase's example count is spent where bugs live:
operations with a request body get more examples than plain reads.

A check is skipped for an operation only where the check cannot be right about it; each exclusion
below says why. SCHEMATHESIS_EXAMPLES scales the fuzzing phase (default 30 for bodies, a quarter of that for reads);
the module takes 2.5 to 4.5 minutes on a 2-core machine, by its load (`time pytest tests/contract`).
"""

import os

import pytest
import schemathesis
from django.core.wsgi import get_wsgi_application
from hypothesis import HealthCheck, settings
from schemathesis.checks import CHECKS, load_all_checks

load_all_checks()
ALL_CHECKS = CHECKS.get_all()
# the check list this module promises: every check this version of schemathesis has
assert {"not_a_server_error", "response_schema_conformance", "negative_data_rejection", "positive_data_acceptance"} <= {
    c.__name__ for c in ALL_CHECKS
}

schema = schemathesis.openapi.from_wsgi("/api/schema/?format=json", get_wsgi_application())
BODY_EXAMPLES = int(os.environ.get("SCHEMATHESIS_EXAMPLES", "30"))
READ_EXAMPLES = max(2, BODY_EXAMPLES // 4)

with_body = schema.include(method=["POST", "PUT", "PATCH"])
reads = schema.include(method=["GET", "DELETE"])

positive_data_acceptance = CHECKS.get_one("positive_data_acceptance")
# positive_data_acceptance: "a request the schema calls valid must not be a 400". These operations
# have rules a JSON Schema cannot state, so a schema-valid body can rightly be a 400 naming the field:
# - slugs must name existing catalogue records or the caller's own templates (data, not schema):
#   evaluate, compare, solve, designs, brick templates, calibrations, exports (reference);
# - cross-field rules: solve needs at least one positive target (or a demand) and paired demand
#   fields; compare's reference must index the designs sent; a RAID layout must fit its enclosure;
#   a design update's version must be the current one (409, allowed) ...;
# - unique slugs and names (a second POST of the same body is a 400 naming the slug), usernames to
#   share with must exist, and a user may hold only so many active tokens.
# Invalid data (negative_data_rejection) is still checked on every one of them.
NAMES_CATALOGUE_RECORDS = (
    "POST /api/v1/evaluate/",
    "POST /api/v1/compare/",
    "POST /api/v1/solve/",
    "POST /api/v1/designs/",
    "PUT /api/v1/designs/{id}/",
    "PATCH /api/v1/designs/{id}/",
    "POST /api/v1/designs/{id}/share/",
    "POST /api/v1/designs/{id}/exports/",
    "POST /api/v1/shared/{token}/exports/",
    "POST /api/v1/brick-templates/",
    "PUT /api/v1/brick-templates/{slug}/",
    "PATCH /api/v1/brick-templates/{slug}/",
    "POST /api/v1/brick-templates/{slug}/copy/",
    "POST /api/v1/brick-templates/{slug}/share/",
    "POST /api/v1/calibrations/",
    "POST /api/v1/tokens/",
    # plans: phase years within the start year and horizon, usable_pib or a table of years, saved design
    # ids that exist and labels to retire that an earlier phase added (cross-field and data rules)
    "POST /api/v1/plans/",
    "PUT /api/v1/plans/{id}/",
    "PATCH /api/v1/plans/{id}/",
    "POST /api/v1/plans/{id}/share/",
    # DCIM: a connection's name is unique per owner; a push names a connection and a saved design that exist
    "POST /api/v1/dcim/connections/",
    "PUT /api/v1/dcim/connections/{id}/",
    "PATCH /api/v1/dcim/connections/{id}/",
    "POST /api/v1/dcim/pushes/",
)


def excluded_checks(case) -> list:
    label = case.operation.label
    if label in NAMES_CATALOGUE_RECORDS or label.startswith(
        ("POST /api/v1/catalogue/", "PUT /api/v1/catalogue/", "PATCH /api/v1/catalogue/")
    ):
        return [positive_data_acceptance]
    return []


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


def _run(case, headers=None):
    case.call_and_validate(headers=headers, checks=ALL_CHECKS, excluded_checks=excluded_checks(case))


SETTINGS = {"deadline": None, "suppress_health_check": list(HealthCheck), "derandomize": True}


@pytest.mark.django_db
@with_body.parametrize()
@settings(max_examples=BODY_EXAMPLES, **SETTINGS)
def test_api_with_body_anonymous(case):
    _run(case)


@pytest.mark.django_db
@with_body.parametrize()
@settings(max_examples=BODY_EXAMPLES, **SETTINGS)
def test_api_with_body_authenticated(case, token_headers):
    _run(case, token_headers)


@pytest.mark.django_db
@reads.parametrize()
@settings(max_examples=READ_EXAMPLES, **SETTINGS)
def test_api_reads_anonymous(case):
    _run(case)


@pytest.mark.django_db
@reads.parametrize()
@settings(max_examples=READ_EXAMPLES, **SETTINGS)
def test_api_reads_authenticated(case, token_headers):
    _run(case, token_headers)
