"""JSON responses written by orjson (a C encoder) instead of the standard library's.

An Evaluation is about 13 KB of nested dicts and lists: `json.dumps` through DRF's encoder took about
100 us of an evaluate request, orjson about a tenth of that, and more on large answers (catalogue
pages, solve results with hundreds of designs). The output is the same JSON as DRF's `JSONRenderer`
with its defaults (compact, UTF-8): whatever orjson does not write itself (dates and times, decimals,
lazy strings, numpy values, sets) goes through DRF's own encoder, so those look exactly as before; an
indented answer (the browsable API, `Accept: application/json; indent=4`) and anything orjson refuses
(an integer over 64 bits) are written by DRF's renderer as before. A non-finite float, which DRF's
strict JSON refuses with an error, is written as null.
"""

from __future__ import annotations

import orjson
from rest_framework.renderers import JSONRenderer
from rest_framework.utils.encoders import JSONEncoder

_OPTIONS = orjson.OPT_NON_STR_KEYS | orjson.OPT_PASSTHROUGH_DATETIME | orjson.OPT_PASSTHROUGH_DATACLASS
_fallback = JSONEncoder()


def _default(obj):
    return _fallback.default(obj)


class FastJSONRenderer(JSONRenderer):
    """DRF's JSON renderer, written by orjson where the output is the same (see the module docstring)."""

    def render(self, data, accepted_media_type=None, renderer_context=None):
        if data is None:
            return b""
        if self.get_indent(accepted_media_type or "", renderer_context or {}):
            return super().render(data, accepted_media_type, renderer_context)
        try:
            return orjson.dumps(data, default=_default, option=_OPTIONS)
        except (orjson.JSONEncodeError, TypeError):
            return super().render(data, accepted_media_type, renderer_context)
