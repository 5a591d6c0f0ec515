"""Refuse request bodies larger than MAX_REQUEST_BYTES before reading them (413, JSON), and bodies sent
without a length (chunked: 411, JSON), which Django would otherwise read as empty, and URL paths holding
NUL (400, JSON)."""

from django.conf import settings
from django.http import JsonResponse


class RequestSizeLimitMiddleware:
    def __init__(self, get_response):
        self.get_response = get_response

    def __call__(self, request):
        try:
            length = int(request.META.get("CONTENT_LENGTH") or 0)
        except ValueError:
            length = 0
        limit = settings.MAX_REQUEST_BYTES
        if length > limit:
            return JsonResponse({"detail": f"The request is {length} bytes; the limit is {limit} bytes."}, status=413)
        if not length and "chunked" in request.META.get("HTTP_TRANSFER_ENCODING", "").lower():
            # Django reads a body only as far as Content-Length says: a chunked body (no length) would be
            # read as empty and answered as if nothing had been sent ("bricks: required"). Say so instead.
            return JsonResponse(
                {"detail": "A request body must be sent with a Content-Length header; chunked transfer encoding is not accepted."},
                status=411,
            )
        if "\x00" in request.path:
            # no page or record is named with NUL, and PostgreSQL cannot compare it in a lookup (a 500)
            return JsonResponse({"detail": "The URL path contains a NUL character (%00); no page is named so."}, status=400)
        return self.get_response(request)


class DatabaseUnavailableMiddleware:
    """A view under /api/ that cannot reach the database answers 503 JSON with Retry-After, not an
    HTML 500 page. (DRF views already do so through api.errors.exception_handler; this catches the
    other views under /api/, and config/urls.py's handler500 catches failures outside views.)"""

    def __init__(self, get_response):
        self.get_response = get_response

    def __call__(self, request):
        return self.get_response(request)

    def process_exception(self, request, exception):
        from api.errors import DATABASE_ERRORS, database_unavailable, is_api_path

        if isinstance(exception, DATABASE_ERRORS) and is_api_path(request):
            return database_unavailable()
        return None


class ContentSecurityPolicyMiddleware:
    """A Content-Security-Policy header on every response that lacks one (settings.CONTENT_SECURITY_POLICY).

    Scripts only from this site's own files (no inline script, no inline event handler, no eval);
    see config/base.py for the policy and why styles allow inline attributes."""

    def __init__(self, get_response):
        self.get_response = get_response
        self.header = "; ".join(f"{name} {' '.join(values)}" for name, values in settings.CONTENT_SECURITY_POLICY.items())

    def __call__(self, request):
        response = self.get_response(request)
        if "Content-Security-Policy" not in response:
            response["Content-Security-Policy"] = self.header
        return response
