"""API tokens for scripts: create (the key is shown once), revoke, authenticate."""

from __future__ import annotations

from django.utils import timezone

from planner.models import ApiToken

MAX_ACTIVE_TOKENS = 20


class TokenLimit(Exception):
    """Too many active tokens for one user."""


def token_create(*, user, name: str) -> tuple[ApiToken, str]:
    """A new named token for `user`; returns the token row and its key (not stored, shown once)."""
    if ApiToken.objects.filter(user=user, revoked_at__isnull=True).count() >= MAX_ACTIVE_TOKENS:
        raise TokenLimit(f"at most {MAX_ACTIVE_TOKENS} active tokens; revoke one first")
    key = ApiToken.new_key()
    token = ApiToken.objects.create(user=user, name=name, prefix=key[:10], key_hash=ApiToken.hash_key(key))
    return token, key


def token_revoke(*, token: ApiToken) -> ApiToken:
    """Revoke a token at once; requests with it are refused from then on."""
    if token.revoked_at is None:
        token.revoked_at = timezone.now()
        token.save(update_fields=["revoked_at"])
    return token


def token_authenticate(*, key: str):
    """The user a key belongs to, or None if unknown or revoked. Records when it was last used."""
    token = ApiToken.objects.select_related("user").filter(key_hash=ApiToken.hash_key(key), revoked_at__isnull=True).first()
    if token is None or not token.user.is_active:
        return None
    now = timezone.now()
    if token.last_used_at is None or (now - token.last_used_at).total_seconds() > 60:
        ApiToken.objects.filter(pk=token.pk).update(last_used_at=now)
    return token.user
