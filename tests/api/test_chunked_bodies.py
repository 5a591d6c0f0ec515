"""A body sent with chunked transfer encoding (no Content-Length) is refused with 411 JSON.

Django reads a request body only as far as CONTENT_LENGTH says, so behind gunicorn (which accepts
chunked requests) a chunked JSON body used to reach the view as an empty one: a valid evaluate request
was answered 400 "bricks: This field is required.", which misleads the client.
"""

import json

import pytest
from django.test import RequestFactory

from config.middleware import RequestSizeLimitMiddleware

BODY = json.dumps({"bricks": [{"template": "md3460-performance", "count": 1}]}).encode()


def _chunked(factory, path="/api/v1/evaluate/"):
    request = factory.post(path, data=BODY, content_type="application/json")
    request.META.pop("CONTENT_LENGTH", None)  # as gunicorn passes a chunked request on
    request.META["HTTP_TRANSFER_ENCODING"] = "chunked"
    return request


def test_a_chunked_body_without_a_length_is_a_411_json_answer():
    reached = []
    middleware = RequestSizeLimitMiddleware(lambda request: reached.append(request))
    response = middleware(_chunked(RequestFactory()))
    assert response.status_code == 411
    assert response["Content-Type"] == "application/json"
    assert "Content-Length" in json.loads(response.content)["detail"]
    assert reached == []  # the view never saw an empty body


@pytest.mark.django_db
def test_a_request_with_both_a_length_and_chunked_encoding_is_served(client):
    response = client.generic("POST", "/api/v1/evaluate/", BODY, content_type="application/json", headers={"Transfer-Encoding": "chunked"})
    # Content-Length wins (the test client always sends one): the body is read and evaluated
    assert response.status_code == 200


def test_a_body_with_a_length_still_passes():
    reached = []
    middleware = RequestSizeLimitMiddleware(lambda request: reached.append(request) or "served")
    request = RequestFactory().post("/api/v1/evaluate/", data=BODY, content_type="application/json")
    assert middleware(request) == "served"
    assert len(reached) == 1
