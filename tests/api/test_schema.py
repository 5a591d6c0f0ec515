"""The OpenAPI schema is valid, documents every endpoint with errors, and serves the docs locally."""

import pytest
from drf_spectacular.generators import SchemaGenerator
from drf_spectacular.validation import validate_schema

pytestmark = pytest.mark.django_db


def test_schema_is_valid_openapi_3_and_covers_every_endpoint():
    schema = SchemaGenerator().get_schema(request=None, public=True)
    validate_schema(schema)
    paths = schema["paths"]
    for path in (
        "/api/v1/evaluate/",
        "/api/v1/compare/",
        "/api/v1/designs/",
        "/api/v1/designs/{id}/",
        "/api/v1/designs/{id}/evaluation/",
        "/api/v1/designs/{id}/reprice/",
        "/api/v1/designs/{id}/share/",
        "/api/v1/tokens/",
        "/api/v1/health/",
        "/api/v1/catalogue/disks/",
        "/api/v1/catalogue/price-lists/{slug}/",
    ):
        assert path in paths, path
    for path, item in paths.items():
        for method, op in item.items():
            assert op.get("summary"), f"{method} {path} has no summary"
            assert "429" in op["responses"] and "503" in op["responses"], f"{method} {path}"
            if "requestBody" in op:  # a body can be invalid, too large or not JSON
                assert {"400", "413", "415"} <= set(op["responses"]), f"{method} {path}"
            if any(p["in"] == "query" for p in op.get("parameters", [])):
                assert "400" in op["responses"], f"{method} {path}"
            for code, response in op["responses"].items():
                if code[0] in "45":  # every error is JSON
                    assert list(response["content"]) == ["application/json"], (method, path, code)
    evaluate = paths["/api/v1/evaluate/"]["post"]
    assert evaluate["requestBody"]["content"]["application/json"]["examples"]
    assert "tokenAuth" in schema["components"]["securitySchemes"]


def test_schema_and_docs_are_served(client):
    assert client.get("/api/schema/").status_code == 200
    html = client.get("/api/docs/").content.decode()
    assert "swagger-ui" in html and "cdn" not in html.lower()


def test_schema_documents_what_the_api_does():
    """Where the schema and the API disagreed (issue 14): anonymous access, list limits, paging, JSON only."""
    schema = SchemaGenerator().get_schema(request=None, public=True)
    paths, components = schema["paths"], schema["components"]["schemas"]
    # anyone may read the catalogue, evaluate, compare and solve: security is optional there
    for path, method in [
        ("/api/v1/catalogue/disks/", "get"),
        ("/api/v1/catalogue/disks/{slug}/", "get"),
        ("/api/v1/evaluate/", "post"),
        ("/api/v1/compare/", "post"),
        ("/api/v1/solve/", "post"),
        ("/api/v1/brick-templates/", "get"),
    ]:
        security = paths[path][method]["security"]
        assert {} in security and {"tokenAuth": []} in security, (path, security)
    # ... but changing the catalogue or saving a design needs credentials
    assert {} not in paths["/api/v1/catalogue/disks/"]["post"]["security"]
    assert {} not in paths["/api/v1/designs/"]["post"]["security"]
    # at least one brick line, at most the limit; compare takes 2 to 8 designs
    bricks = components["DesignSpecRequest"]["properties"]["bricks"]
    assert bricks["minItems"] == 1 and bricks["maxItems"] >= 1
    designs = components["CompareRequest"]["properties"]["designs"]
    assert (designs["minItems"], designs["maxItems"]) == (2, 8)
    assert components["CompareEntryRequest"]["oneOf"] == [{"required": ["design"]}, {"required": ["spec"]}]
    assert components["BrickEntryRequest"]["properties"]["count"]["minimum"] == 1
    # strict inputs refuse unknown keys, and say so
    assert components["DesignSpecRequest"]["additionalProperties"] is False
    # paging: whole numbers from 1, at most 200 a page
    params = {p["name"]: p["schema"] for p in paths["/api/v1/catalogue/disks/"]["get"]["parameters"]}
    assert params["page"] == {"type": "integer", "minimum": 1}
    assert params["page_size"] == {"type": "integer", "minimum": 1, "maximum": 200}
    # search refuses null characters (DRF's SearchFilter): documented, so a schema-valid search is accepted
    search = next(p for p in paths["/api/v1/brick-templates/"]["get"]["parameters"] if p["name"] == "search")
    assert search["schema"]["pattern"] == "^[^\\u0000]*$"
    # bodies are JSON only, but for the two file uploads: calibrations and device-type imports
    uploads = ("/api/v1/calibrations/", "/api/v1/dcim/imports/")
    for path, item in paths.items():
        for method, op in item.items():
            if "requestBody" in op and path not in uploads:
                assert list(op["requestBody"]["content"]) == ["application/json"], (method, path)
    for path in uploads:
        assert list(paths[path]["post"]["requestBody"]["content"]) == ["multipart/form-data"], path


def test_component_descriptions_are_for_api_users_not_the_base_classes_developer_notes():
    """A serializer without a docstring of its own used to show its base class's (e.g. how the strict-fields
    mixin copies DRF fields cheaply) as the component's description in the API docs."""
    import inspect

    from api import serializers as api_serializers

    bases = [
        getattr(api_serializers, name)
        for name in ("StrictFieldsMixin", "JsonTypesMixin", "FullCleanMixin", "NestedListWriteMixin", "IncompleteFieldsMixin")
    ]
    notes = {inspect.cleandoc(b.__doc__) for b in bases if b.__doc__}
    assert notes, "the base classes have docstrings to guard against"
    schema = SchemaGenerator().get_schema(request=None, public=True)
    leaks = {name: c["description"] for name, c in schema["components"]["schemas"].items() if c.get("description") in notes}
    assert not leaks
    components = schema["components"]["schemas"]
    assert components["SolveRequestRequest"]["description"].startswith("What to search")
    assert "send the full list" in components["ShareRequest"]["description"]
