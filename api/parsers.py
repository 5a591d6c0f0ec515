"""Request parsers with a size limit: no client can make the server read an unbounded body."""

import codecs
import io
import json

from django.conf import settings
from rest_framework import status
from rest_framework.exceptions import APIException, ParseError
from rest_framework.parsers import FormParser, JSONParser, MultiPartParser
from rest_framework.utils import json as drf_json


class RequestTooLarge(APIException):
    status_code = status.HTTP_413_REQUEST_ENTITY_TOO_LARGE
    default_code = "request_too_large"


class LimitedJSONParser(JSONParser):
    """JSON parser that refuses bodies over API_MAX_BODY_BYTES (413, with the limit in the message),
    bodies nested too deeply, NaN and Infinity, objects that name a key twice, and text holding a NUL
    character anywhere (400s: PostgreSQL cannot store NUL in text, nor compare it in a lookup)."""

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
        encoding = (parser_context or {}).get("encoding", settings.DEFAULT_CHARSET)
        try:
            text = codecs.getreader(encoding)(stream).read() if stream is not None else ""
            # as DRF's JSONParser (NaN and Infinity refused), and a key named twice in one object refused
            data = json.loads(text, parse_constant=drf_json.strict_constant, object_pairs_hook=_refuse_duplicate_keys)
        except RecursionError as exc:
            raise ParseError("JSON parse error: the body is nested too deeply.") from exc
        except ValueError as exc:  # not JSON, not in its encoding, or a number with too many digits
            raise ParseError(f"JSON parse error - {exc}") from exc
        if "\\u0000" in text:  # only then can a string hold NUL (a raw NUL is already refused as a control character)
            try:
                _refuse_nul(data, "")
            except RecursionError as exc:
                raise ParseError("JSON parse error: the body is nested too deeply.") from exc
        return data


def _refuse_nul(value, path: str) -> None:
    """Find the first string (key or value) that holds NUL and name its place in the body."""
    if isinstance(value, str):
        if "\x00" in value:
            raise ParseError(f"The field '{path or '(body)'}' contains a NUL character (\\u0000); no text field accepts it.")
    elif isinstance(value, dict):
        for key, item in value.items():
            where = f"{path}.{key}" if path else key
            if "\x00" in key:
                raise ParseError(f"A key in '{path or '(body)'}' contains a NUL character (\\u0000); no field is named so.")
            _refuse_nul(item, where)
    elif isinstance(value, list):
        for index, item in enumerate(value):
            _refuse_nul(item, f"{path}[{index}]")


def _refuse_duplicate_keys(pairs):
    """An object naming a key twice is refused: parsers disagree on which value wins (first or last),
    so a proxy or script reading the body otherwise than the API would act on another value."""
    obj = {}
    for key, value in pairs:
        if key in obj:
            raise ParseError(f"JSON parse error: the key '{key[:80]}' appears twice in one object; give each key once.")
        obj[key] = value
    return obj


def _refuse_nul_in_form(data) -> None:
    for key, values in data.lists():
        if "\x00" in key:
            raise ParseError("A form field's name contains a NUL character; no field is named so.")
        for value in values:
            if isinstance(value, str) and "\x00" in value:
                raise ParseError(f"The field '{key}' contains a NUL character (\\u0000); no text field accepts it.")


class CheckedFormParser(FormParser):
    """Form bodies with the JSON parser's NUL rule: a NUL in any field is a 400 naming it."""

    def parse(self, stream, media_type=None, parser_context=None):
        data = super().parse(stream, media_type, parser_context)
        _refuse_nul_in_form(data)
        return data


class CheckedMultiPartParser(MultiPartParser):
    """Uploads with the JSON parser's NUL rule for their text fields (file contents are checked by
    their own parsers)."""

    def parse(self, stream, media_type=None, parser_context=None):
        parsed = super().parse(stream, media_type, parser_context)
        _refuse_nul_in_form(parsed.data)
        return parsed
