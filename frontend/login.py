"""Sign-in pages (the site's and the admin's), with failed attempts counted per username and per address.

After LOGIN_FAILURE_LIMIT failures for a username, or from one client address, within
LOGIN_FAILURE_WINDOW_SECONDS, the sign-in answers 429 and asks to wait; the password is not even
checked until the window has passed. Counters live in Django's cache (Redis in production, so every
gunicorn worker sees the same counts); the window starts at the first failure. A successful sign-in
clears its username's counter, not the address's (one good account must not reset an address that is
guessing others' passwords). If the cache is unreachable, sign-in still works, unthrottled (logged).
"""

import hashlib
import logging
import math
from functools import wraps

from django.conf import settings
from django.contrib.auth.forms import AuthenticationForm
from django.contrib.auth.views import LoginView
from django.core.cache import cache
from django.shortcuts import render

from api.throttles import client_address

log = logging.getLogger(__name__)
USER_PREFIX = "login-fail:user:"


def _keys(request, username: str) -> list[str]:
    keys = [f"login-fail:addr:{client_address(request.META)}"]
    if username.strip():
        digest = hashlib.sha256(username.strip().lower().encode("utf-8", "surrogatepass")).hexdigest()
        keys.append(USER_PREFIX + digest)
    return keys


def _over_limit(keys: list[str]) -> bool:
    try:
        counts = cache.get_many(keys)
    except Exception:
        log.exception("sign-in attempt counters unavailable; attempt not limited")
        return False
    return any((counts.get(key) or 0) >= settings.LOGIN_FAILURE_LIMIT for key in keys)


def _record_failure(keys: list[str]) -> None:
    window = settings.LOGIN_FAILURE_WINDOW_SECONDS
    try:
        for key in keys:
            cache.add(key, 0, timeout=window)
            try:
                cache.incr(key)
            except ValueError:  # expired between add and incr
                cache.set(key, 1, timeout=window)
    except Exception:
        log.exception("sign-in attempt counters unavailable; failure not counted")


def _clear(keys: list[str]) -> None:
    try:
        cache.delete_many([key for key in keys if key.startswith(USER_PREFIX)])
    except Exception:
        log.exception("sign-in attempt counters unavailable")


def _throttled(request, username: str):
    minutes = math.ceil(settings.LOGIN_FAILURE_WINDOW_SECONDS / 60)
    context = {
        "form": AuthenticationForm(request, initial={"username": username}),  # unbound: nothing is checked
        "next": request.POST.get("next", request.GET.get("next", "")),
        "throttled": (f"Too many failed sign-in attempts for this username or from this address. Wait {minutes} minutes, then try again."),
    }
    response = render(request, "frontend/login.html", context, status=429)
    response["Retry-After"] = str(settings.LOGIN_FAILURE_WINDOW_SECONDS)
    return response


def limit_failed_logins(view):
    """Wrap a Django sign-in view: a POST answered 200 (the form shown again) is a failure; a
    redirect is a success."""

    @wraps(view)
    def wrapped(request, *args, **kwargs):
        if request.method != "POST":
            return view(request, *args, **kwargs)
        username = str(request.POST.get("username", ""))[:150]
        keys = _keys(request, username)
        if _over_limit(keys):
            return _throttled(request, username)
        response = view(request, *args, **kwargs)
        if response.status_code == 200:
            _record_failure(keys)
        elif 300 <= response.status_code < 400:
            _clear(keys)
        return response

    return wrapped


login_view = limit_failed_logins(LoginView.as_view(template_name="frontend/login.html"))
