"""Refuse request bodies larger than MAX_REQUEST_BYTES before reading them (413, JSON)."""

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
        return self.get_response(request)
