"""One error format for the API: a body mapping each offending field to a list of messages.

Every `SpecError` raised by a service becomes a 400 here, in one place: views do not catch it.

DRF nests list-level messages as {"non_field_errors": [...]} inside a field; they are lifted so
that `{"bricks": ["This list may not be empty."]}` reads as the contract's examples do.
"""

from django.db.models import ProtectedError
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


def exception_handler(exc, context):
    """DRF's handler, plus: a SpecError (a design its parts cannot make) is a 400 naming each
    field; a protected catalogue record is a 409."""
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
