"""API tokens for scripts: create (the key is shown once), revoke, authenticate; optional expiry."""

from __future__ import annotations

from datetime import UTC, datetime

from django.db.models import Q
from django.utils import timezone

from planner.models import ApiToken

MAX_ACTIVE_TOKENS = 20


class TokenLimit(Exception):
    """Too many active tokens for one user."""


class TokenExpired(Exception):
    """The key belongs to a token whose expiry has passed."""

    def __init__(self, expires_at: datetime):
        self.expires_at = expires_at
        super().__init__(
            f"This token expired at {expires_at:%Y-%m-%d %H:%M} UTC; create a new one on the API tokens page or at /api/v1/tokens/."
        )


def active_tokens(user):
    """The user's tokens that are neither revoked nor expired."""
    return ApiToken.objects.filter(user=user, revoked_at__isnull=True).filter(Q(expires_at__isnull=True) | Q(expires_at__gt=timezone.now()))


def token_create(*, user, name: str, expires_at: datetime | None = None) -> tuple[ApiToken, str]:
    """A new named token for `user`, refused from `expires_at` on (None: never expires); returns the
    token row and its key (not stored, shown once). Callers check that `expires_at` is in the future."""
    if active_tokens(user).count() >= MAX_ACTIVE_TOKENS:
        raise TokenLimit(f"at most {MAX_ACTIVE_TOKENS} active tokens; revoke one first")
    key = ApiToken.new_key()
    token = ApiToken.objects.create(user=user, name=name, prefix=key[:10], key_hash=ApiToken.hash_key(key), expires_at=expires_at)
    return token, key


def token_revoke(*, token: ApiToken) -> ApiToken:
    """Revoke a token at once; requests with it are refused from then on."""
    if token.revoked_at is None:
        token.revoked_at = timezone.now()
        token.save(update_fields=["revoked_at"])
    return token


def token_authenticate(*, key: str):
    """The user a key belongs to, or None if unknown or revoked; raises TokenExpired past its expiry.
    Records when it was last used."""
    token = ApiToken.objects.select_related("user").filter(key_hash=ApiToken.hash_key(key), revoked_at__isnull=True).first()
    if token is None or not token.user.is_active:
        return None
    now = timezone.now()
    if token.expires_at is not None and token.expires_at <= now:
        raise TokenExpired(token.expires_at.astimezone(UTC))
    if token.last_used_at is None or (now - token.last_used_at).total_seconds() > 60:
        ApiToken.objects.filter(pk=token.pk).update(last_used_at=now)
    return token.user
