"""One error format for the API: a body mapping each offending field to a list of messages.

Every `SpecError` raised by a service becomes a 400 here, in one place: views do not catch it.

DRF nests list-level messages as {"non_field_errors": [...]} inside a field; they are lifted so
that `{"bricks": ["This list may not be empty."]}` reads as the contract's examples do.
"""

import sys

from django.db import InterfaceError, OperationalError
from django.db.models import ProtectedError
from django.http import JsonResponse
from django.views import csrf as django_csrf
from django.views import defaults
from rest_framework import status
from rest_framework.exceptions import ValidationError
from rest_framework.response import Response
from rest_framework.views import exception_handler as drf_exception_handler

from planner.spec import SpecError


def _lift(detail, top: bool = False):
    if isinstance(detail, dict):
        if not top and set(detail) == {"non_field_errors"}:
            return _lift(detail["non_field_errors"])
        return {key: _lift(value) for key, value in detail.items()}
    if isinstance(detail, list):
        return [_lift(item) for item in detail]
    return detail


DATABASE_ERRORS = (OperationalError, InterfaceError)
DATABASE_UNAVAILABLE = "The database is unavailable; try again shortly."
RETRY_AFTER_SECONDS = 10


def database_unavailable() -> JsonResponse:
    """503 JSON for a database that cannot be reached (an outage, a restart, too many connections)."""
    response = JsonResponse({"detail": DATABASE_UNAVAILABLE}, status=503)
    response["Retry-After"] = str(RETRY_AFTER_SECONDS)
    return response


def is_api_path(request) -> bool:
    return request.path.startswith("/api/")


def exception_handler(exc, context):
    """DRF's handler, plus: a SpecError (a design its parts cannot make) is a 400 naming each
    field; a protected catalogue record is a 409; the database unreachable is a 503."""
    if isinstance(exc, DATABASE_ERRORS):
        response = Response({"detail": DATABASE_UNAVAILABLE}, status=status.HTTP_503_SERVICE_UNAVAILABLE)
        response["Retry-After"] = str(RETRY_AFTER_SECONDS)
        return response
    if isinstance(exc, SpecError):
        return Response(exc.errors, status=status.HTTP_400_BAD_REQUEST)
    if isinstance(exc, ProtectedError):
        names = sorted({str(obj) for obj in list(exc.protected_objects)[:5]})
        return Response(
            {"detail": f"This record is in use and cannot be deleted; first change or delete: {', '.join(names)}."},
            status=status.HTTP_409_CONFLICT,
        )
    response = drf_exception_handler(exc, context)
    if response is not None and isinstance(exc, ValidationError):
        response.data = _lift(response.data, top=True)
        if isinstance(response.data, list):  # e.g. a filter refusing a query parameter: still one object
            response.data = {"detail": " ".join(str(m) for m in response.data)}
    return response


# Django's own error views (config/urls.py handler400/403/404/500, CSRF_FAILURE_VIEW): JSON under
# /api/, the usual pages elsewhere. They answer what no DRF view did: an unknown /api/ path, a
# refused host, a failure in a middleware, Django's CSRF check.


def bad_request(request, exception, template_name=defaults.ERROR_400_TEMPLATE_NAME):
    if is_api_path(request):
        return JsonResponse({"detail": "Bad request."}, status=400)
    return defaults.bad_request(request, exception, template_name)


def permission_denied(request, exception, template_name=defaults.ERROR_403_TEMPLATE_NAME):
    if is_api_path(request):
        return JsonResponse({"detail": "You do not have permission to perform this action."}, status=403)
    return defaults.permission_denied(request, exception, template_name)


def page_not_found(request, exception, template_name=defaults.ERROR_404_TEMPLATE_NAME):
    if is_api_path(request):
        return JsonResponse({"detail": "Not found."}, status=404)
    return defaults.page_not_found(request, exception, template_name)


def server_error(request, template_name=defaults.ERROR_500_TEMPLATE_NAME):
    """A 500 (or, when the database is what failed, a 503 with Retry-After) for uncaught errors."""
    exc = sys.exc_info()[1]
    if isinstance(exc, DATABASE_ERRORS):
        if is_api_path(request):
            return database_unavailable()
        response = defaults.server_error(request, template_name)
        response.status_code = 503
        response["Retry-After"] = str(RETRY_AFTER_SECONDS)
        return response
    if is_api_path(request):
        return JsonResponse({"detail": "A server error occurred; it has been logged."}, status=500)
    return defaults.server_error(request, template_name)


def csrf_failure(request, reason=""):
    if is_api_path(request):
        return JsonResponse({"detail": f"CSRF check failed: {reason}"}, status=403)
    return django_csrf.csrf_failure(request, reason)


BROKER_RETRY_AFTER_SECONDS = 15


def broker_unavailable_response(job_body: dict) -> Response:
    """503 JSON when the task queue could not take a job: the job is kept (its status URL works) and is
    sent again by the next request for it, a poll of its status, or the periodic re-send."""
    return Response(
        {
            "detail": "The task queue is unavailable, so the job could not be started yet. It is kept and will be sent "
            f"again: poll its status_url or repeat the request after {BROKER_RETRY_AFTER_SECONDS} seconds.",
            "job": job_body,
        },
        status=status.HTTP_503_SERVICE_UNAVAILABLE,
        headers={"Retry-After": str(BROKER_RETRY_AFTER_SECONDS)},
    )
