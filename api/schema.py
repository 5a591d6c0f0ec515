"""OpenAPI generation: who may call each operation, and the one error format, documented where each
error can happen (checked against behaviour by tests/contract/test_schemathesis.py)."""

from __future__ import annotations

from drf_spectacular.extensions import OpenApiSerializerExtension
from drf_spectacular.openapi import AutoSchema
from rest_framework import permissions, serializers

from .permissions import IsStaffOrReadOnly


class PlannerAutoSchema(AutoSchema):
    """drf-spectacular's schema, plus: an operation anyone may call without signing in documents its
    security as optional (`{}` beside the token and cookie schemes).

    drf-spectacular does this by itself for AllowAny, and IsAuthenticatedOrReadOnly on safe methods;
    the catalogue's IsStaffOrReadOnly lets anyone read too, so reads of the catalogue are optional-auth.
    """

    def _map_basic_serializer(self, serializer, direction):
        """A component's description is its serializer's own docstring: drf-spectacular otherwise falls back on
        a base class's, and the project's bases (strict fields, JSON types, catalogue validation) document
        implementation notes for developers, not the API."""
        schema = super()._map_basic_serializer(serializer, direction)
        cls = serializer if isinstance(serializer, type) else serializer.__class__
        if not cls.__dict__.get("__doc__"):
            schema.pop("description", None)
        return schema

    def get_auth(self):
        auths = super().get_auth()
        perms = [p.__class__ for p in self.view.get_permissions()]
        if {} not in auths and IsStaffOrReadOnly in perms and self.method in permissions.SAFE_METHODS:
            auths.append({})
        return auths


ERROR_SCHEMA = {
    "type": "object",
    "description": "An error: `detail` for request-level problems, or each offending field mapped to a list of messages (nested for nested fields).",
    "additionalProperties": True,
}

ERRORS = {
    "400": "Invalid input: each offending field (body or query parameter) with what is wrong.",
    "401": "The token is invalid, revoked or expired; or, where signing in is required, no credentials were sent.",
    "403": "Signed in but not allowed (read-only share, staff-only catalogue edits), or a signed-in browser session without its CSRF token.",
    "404": "Not found (including other users' designs, and a page number past the last page).",
    "413": "Request body over the size limit.",
    "415": "Unsupported media type: send JSON (`Content-Type: application/json`).",
    "429": "Rate limit reached; retry after the time in the Retry-After header.",
    "503": "A service the request needs (the database, or the task broker for queued work) is unavailable; retry later.",
}
UNSAFE = ("post", "put", "patch", "delete")


def _error_codes(method: str, operation: dict) -> list[str]:
    """The error statuses an operation can answer with, from what it takes and who may call it."""
    params = operation.get("parameters", [])
    takes_body = "requestBody" in operation
    security = operation.get("security") or []
    codes = ["429", "503"]
    if takes_body or any(p.get("in") == "query" for p in params):
        codes.append("400")
    if any(security):  # any token (a wrong one is a 401) or, where required, none at all
        codes.append("401")
    if method in UNSAFE:  # permissions, and CSRF for browser sessions
        codes.append("403")
    if any(p.get("in") == "path" for p in params) or any(p.get("name") == "page" for p in params):
        codes.append("404")
    if takes_body:
        codes += ["413", "415"]
    return codes


def add_error_responses(result, generator, request, public):
    """drf-spectacular postprocessing hook: add the error responses each operation can give, all in
    the one JSON error format (a status a view documents itself keeps its description)."""
    components = result.setdefault("components", {}).setdefault("schemas", {})
    components.setdefault("Error", ERROR_SCHEMA)
    error_content = {"application/json": {"schema": {"$ref": "#/components/schemas/Error"}}}
    for path_item in result.get("paths", {}).values():
        for method, operation in path_item.items():
            if method not in ("get", "post", "put", "patch", "delete"):
                continue
            for parameter in operation.get("parameters", []):
                if parameter.get("in") == "query" and parameter.get("name") == "search":
                    # DRF's search refuses null characters (a 400): the schema says so
                    parameter.setdefault("schema", {"type": "string"})["pattern"] = "^[^\\u0000]*$"
                    parameter["description"] = "Words to look for (no null characters)."
            responses = operation.setdefault("responses", {})
            for code in _error_codes(method, operation):
                responses.setdefault(code, {"description": ERRORS[code]})
            for code, entry in responses.items():
                if code[0] in "45" and "content" not in entry:
                    entry["content"] = error_content
                    entry.setdefault("description", ERRORS.get(code, "Error"))
    return result


class StrictSerializerExtension(OpenApiSerializerExtension):
    """Input serializers that refuse unknown fields (StrictFieldsMixin) say so in the schema:
    `additionalProperties: false`, so a client (or a schema-driven test) knows an extra key is a 400."""

    target_class = "api.serializers.StrictFieldsMixin"
    match_subclasses = True

    def map_serializer(self, auto_schema, direction):
        schema = auto_schema._map_basic_serializer(self.target, direction)
        if direction == "request":
            schema["additionalProperties"] = False
        for name, field in self.target.fields.items():
            # lists of nested objects (many=True): their length limits, which drf-spectacular leaves out
            prop = schema.get("properties", {}).get(name)
            if isinstance(field, serializers.ListSerializer) and prop is not None and prop.get("type") == "array":
                low = field.min_length if field.min_length is not None else (0 if field.allow_empty else 1)
                if low:
                    prop["minItems"] = low
                if field.max_length is not None:
                    prop["maxItems"] = field.max_length
        one_of = getattr(self.target, "schema_one_of", None)
        if direction == "request" and one_of:
            schema["oneOf"] = [{"required": list(names)} for names in one_of]
        return schema
