"""Request parsers with a size limit: no client can make the server read an unbounded body."""

import io

from django.conf import settings
from rest_framework import status
from rest_framework.exceptions import APIException, ParseError
from rest_framework.parsers import JSONParser


class RequestTooLarge(APIException):
    status_code = status.HTTP_413_REQUEST_ENTITY_TOO_LARGE
    default_code = "request_too_large"


class LimitedJSONParser(JSONParser):
    """JSON parser that refuses bodies over API_MAX_BODY_BYTES (413, with the limit in the message)."""

    def parse(self, stream, media_type=None, parser_context=None):
        limit = settings.API_MAX_BODY_BYTES
        request = (parser_context or {}).get("request")
        length = request.META.get("CONTENT_LENGTH") if request is not None else None
        try:
            declared = int(length) if length else 0
        except ValueError:
            declared = 0
        if declared > limit:
            raise RequestTooLarge(f"The request body is {declared} bytes; the limit is {limit} bytes.")
        if stream is not None:
            data = stream.read(limit + 1)
            if len(data) > limit:
                raise RequestTooLarge(f"The request body is larger than the limit of {limit} bytes.")

            stream = io.BytesIO(data)
        try:
            return super().parse(stream, media_type, parser_context)
        except RecursionError as exc:
            raise ParseError("JSON parse error: the body is nested too deeply.") from exc
