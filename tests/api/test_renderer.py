"""The orjson renderer writes the same JSON as DRF's JSONRenderer (api/renderers.py)."""

import datetime
import decimal
import json
import uuid

import numpy as np
import pytest
from django.utils.translation import gettext_lazy
from rest_framework.renderers import JSONRenderer

from api.renderers import FastJSONRenderer

pytestmark = pytest.mark.django_db

SAMPLES = [
    {"a": 1, "b": [1.5, 2, None, True, "ünï ✓"], "c": {"d": {"e": []}}},
    {"when": datetime.datetime(2026, 11, 22, 9, 57, 31, 123456, tzinfo=datetime.UTC), "day": datetime.date(2026, 11, 22)},
    {"naive": datetime.datetime(2026, 1, 2, 3, 4, 5), "time": datetime.time(1, 2, 3, 4000), "span": datetime.timedelta(seconds=90)},
    {"price": decimal.Decimal("1025940.00"), "id": uuid.UUID("12345678-1234-5678-1234-567812345678")},
    {"lazy": gettext_lazy("This field is required."), "set": {3}, 7: "int key"},
    {"numpy": np.float64(36.0), "ints": np.arange(3), "i": np.int64(5)},
    [{"x": 0.1 + 0.2, "y": 1e-5, "z": 123456789.123456789, "big": 2**53 + 1}],
]


@pytest.mark.parametrize("data", SAMPLES)
def test_same_json_as_drf(data):
    ours = FastJSONRenderer().render(data)
    theirs = JSONRenderer().render(data)
    assert json.loads(ours) == json.loads(theirs)


def test_dates_decimals_and_lazy_strings_are_written_by_drfs_encoder_to_the_letter():
    data = SAMPLES[1] | SAMPLES[3] | {"lazy": gettext_lazy("This field is required.")}
    assert FastJSONRenderer().render(data) == JSONRenderer().render(data)


def test_an_integer_over_64_bits_and_an_indented_answer_fall_back_to_drf():
    assert json.loads(FastJSONRenderer().render({"n": 2**70})) == {"n": 2**70}
    indented = FastJSONRenderer().render({"a": [1]}, "application/json; indent=2", {})
    assert indented == JSONRenderer().render({"a": [1]}, "application/json; indent=2", {})
    assert b"\n" in indented


def test_the_evaluation_is_the_same_json_and_the_api_uses_the_fast_renderer(api):
    body = {"bricks": [{"template": "md3460-performance", "count": 8, "disk": "nl-sas-4tb"}], "metadata": {"placement": "none"}}
    response = api.post("/api/v1/evaluate/", body, format="json")
    assert response.status_code == 200
    assert isinstance(response.accepted_renderer, FastJSONRenderer)
    assert response.content == FastJSONRenderer().render(response.data)
    assert json.loads(response.content) == json.loads(JSONRenderer().render(response.data))
