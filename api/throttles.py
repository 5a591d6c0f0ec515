"""Rate limits read from settings at request time (so deployments and tests can change them)."""

from django.conf import settings
from rest_framework.throttling import AnonRateThrottle, UserRateThrottle


class AnonThrottle(AnonRateThrottle):
    """Anonymous use (evaluate, compare, catalogue) per client address."""

    def get_rate(self):
        return settings.API_ANON_RATE


class UserThrottle(UserRateThrottle):
    """Signed-in users and tokens, per user."""

    def get_rate(self):
        return settings.API_USER_RATE
