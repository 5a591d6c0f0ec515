"""validate_design_spec: one field tree per thread, the same answers and messages as a fresh serializer."""

import threading

import pytest
from rest_framework import serializers as drf

from api import serializers as s

VALID = {"bricks": [{"template": "md3460-performance", "count": 8, "disk": "nl-sas-4tb"}], "metadata": {"placement": "none"}}
INVALID = [
    None,
    [],
    "spec",
    {},
    {"bricks": []},
    {"bricks": [{"template": "md3460-performance", "count": 0}]},
    {"bricks": [{"template": "md3460-performance", "count": "8"}]},
    {"bricks": [{"template": "md3460-performance", "count": 8, "expansion": 1}]},
    {"bricks": [{"template": "md3460-performance", "count": 8, "raid": {"data": 0}}]},
    {"bricks": [{"template": "md3460-performance", "count": 500}] * 5},
    {"bricks": [{"template": "md3460-performance", "count": 8}], "clients": {"count": 0, "adapter": "ib-fdr"}},
    {"bricks": [{"template": "md3460-performance", "count": 8}], "fabric": {"oversubscription": 0.5}},
    {"bricks": [{"template": "md3460-performance", "count": 8}], "metadata": {"placement": "roof"}},
]


def fresh(data):
    serializer = s.DesignSpecSerializer(data=data)
    return (serializer.validated_data, None) if serializer.is_valid() else (None, serializer.errors)


@pytest.mark.parametrize("data", INVALID)
def test_invalid_specs_get_a_fresh_serializers_messages(data):
    spec, errors = s.validate_design_spec(data)
    assert spec is None
    assert errors == fresh(data)[1]
    assert errors  # something is named


def test_valid_specs_validate_as_a_fresh_serializer_does_before_and_after_invalid_ones():
    first, _ = s.validate_design_spec(VALID)
    for data in INVALID:  # an error half-way through must leave nothing behind in the kept tree
        s.validate_design_spec(data)
    again, errors = s.validate_design_spec({**VALID, "name": "again"})
    assert errors is None
    assert first == fresh(VALID)[0]
    assert again == {**first, "name": "again"}


def test_the_field_tree_is_built_once_a_thread(monkeypatch):
    s.validate_design_spec(VALID)
    built = []
    original = s.DesignSpecSerializer.get_fields
    monkeypatch.setattr(s.DesignSpecSerializer, "get_fields", lambda self: built.append(1) or original(self))
    for _ in range(5):
        assert s.validate_design_spec(VALID)[1] is None
    assert built == []  # the thread's tree was reused
    seen = []
    thread = threading.Thread(target=lambda: seen.append(s.validate_design_spec(VALID)))
    thread.start()
    thread.join()
    assert built == [1] and seen[0][1] is None  # a new thread builds its own


def test_threads_validating_at_once_each_get_their_own_answer():
    results, errors = {}, []

    def run(k):
        try:
            for i in range(40):
                count = 1 + (k * 40 + i) % 50
                data = {"bricks": [{"template": "md3460-performance", "count": count}], "name": f"t{k}-{i}"}
                spec, problem = s.validate_design_spec(data if i % 3 else {**data, "rack": 5})
                if i % 3:
                    assert problem is None and spec["bricks"][0]["count"] == count and spec["name"] == f"t{k}-{i}"
                else:
                    assert spec is None and "rack" in problem
            results[k] = True
        except (AssertionError, drf.ValidationError) as exc:  # pragma: no cover - the failure is reported below
            errors.append(repr(exc))

    threads = [threading.Thread(target=run, args=(k,)) for k in range(6)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert errors == [] and len(results) == 6
