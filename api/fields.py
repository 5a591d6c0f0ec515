"""Serializer fields shared by every input: floats that are finite."""

from __future__ import annotations

import math

from rest_framework import serializers


class FiniteFloatField(serializers.FloatField):
    """A float that must be a finite number: NaN, Infinity and overflowing literals such as 1e309
    (which JSON parsers turn into infinity) are a 400 naming the field, never stored or computed with."""

    default_error_messages = {"finite": "must be a finite number (not NaN or infinity)."}

    def to_internal_value(self, data):
        value = super().to_internal_value(data)
        if not math.isfinite(value):
            self.fail("finite")
        return value
