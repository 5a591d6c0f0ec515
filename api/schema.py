"""OpenAPI post-processing: every operation documents the one error format the API uses."""

ERROR_SCHEMA = {
    "type": "object",
    "description": "An error: `detail` for request-level problems, or each offending field mapped to a list of messages (nested for nested fields).",
    "additionalProperties": True,
}

ERRORS = {
    "400": "Invalid input: each offending field with what is wrong.",
    "401": "Not signed in, or the token is invalid or revoked.",
    "403": "Signed in but not allowed (read-only share, staff-only catalogue edits).",
    "404": "Not found (including other users' designs).",
    "405": "Method not allowed on this path.",
    "409": "Conflict: a stale version, or a record still in use.",
    "413": "Request body over the size limit.",
    "415": "Unsupported media type: send JSON.",
    "429": "Rate limit reached; retry after the time in the Retry-After header.",
}


def add_error_responses(result, generator, request, public):
    """drf-spectacular postprocessing hook: add the error responses to every operation."""
    components = result.setdefault("components", {}).setdefault("schemas", {})
    components.setdefault("Error", ERROR_SCHEMA)
    for path_item in result.get("paths", {}).values():
        for method, operation in path_item.items():
            if method not in ("get", "post", "put", "patch", "delete"):
                continue
            responses = operation.setdefault("responses", {})
            for code, description in ERRORS.items():
                entry = responses.get(code)
                if entry is None or "content" not in entry:
                    responses[code] = {
                        "description": (entry or {}).get("description", description),
                        "content": {"application/json": {"schema": {"$ref": "#/components/schemas/Error"}}},
                    }
    return result
