"""Rate limits read from settings at request time (so deployments and tests can change them).

Counts live in Django's default cache: Redis in production (shared by every gunicorn worker and
machine), local memory in development. The client is identified by `client_address`, which reads
X-Forwarded-For only as far as the declared proxies (NUM_PROXIES or TRUSTED_PROXIES) allow: DRF's own
`get_ident` believes that header whenever NUM_PROXIES is unset, so a client sending a random
X-Forwarded-For with each request was never limited.
"""

import ipaddress
import logging
from functools import lru_cache

from django.conf import settings
from rest_framework.throttling import AnonRateThrottle, UserRateThrottle

log = logging.getLogger(__name__)


@lru_cache(maxsize=32)
def _networks(entries: tuple[str, ...]) -> tuple:
    networks = []
    for entry in entries:
        try:
            networks.append(ipaddress.ip_network(entry.strip(), strict=False))
        except ValueError:
            log.warning("TRUSTED_PROXIES: %r is not an address or network; ignored", entry)
    return tuple(networks)


def _is_trusted(address: str, networks) -> bool:
    try:
        ip = ipaddress.ip_address(address)
    except ValueError:
        return False
    if ip.version == 6 and ip.ipv4_mapped:
        ip = ip.ipv4_mapped
    return any(ip in net for net in networks if net.version == ip.version)


def _forwarded_for(meta) -> list[str]:
    header = meta.get("HTTP_X_FORWARDED_FOR", "")
    return [part.strip() for part in header.split(",") if part.strip()]


def client_address(meta, num_proxies: int | None = None, trusted_proxies=None) -> str:
    """The address to count a request against (`meta` is request.META).

    - Neither NUM_PROXIES nor TRUSTED_PROXIES set: REMOTE_ADDR; X-Forwarded-For is ignored.
    - TRUSTED_PROXIES (addresses or networks): if the peer (REMOTE_ADDR) is one of them, walk
      X-Forwarded-For from the right past trusted entries; the first untrusted one is the client.
      A peer that is not a trusted proxy is the client itself, whatever it claims.
    - NUM_PROXIES = n: that many proxies stand in front, each appending the address it saw, so the
      client is the n-th entry from the right (the leftmost when there are fewer).
    TRUSTED_PROXIES wins when both are set.
    """
    remote = (meta.get("REMOTE_ADDR") or "").strip() or "unknown"
    if num_proxies is None:
        num_proxies = settings.NUM_PROXIES
    if trusted_proxies is None:
        trusted_proxies = settings.TRUSTED_PROXIES
    if trusted_proxies:
        networks = _networks(tuple(trusted_proxies))
        if not _is_trusted(remote, networks):
            return remote
        chain = _forwarded_for(meta)
        for address in reversed(chain):
            if not _is_trusted(address, networks):
                return address
        return chain[0] if chain else remote  # every hop is a proxy of ours: the first one is as far as we can see
    if num_proxies and num_proxies > 0:
        chain = _forwarded_for(meta)
        if chain:
            return chain[-min(num_proxies, len(chain))]
    return remote


class ClientAddressMixin:
    """DRF throttles identify anonymous clients by `client_address`; if the cache is down, requests
    pass (logged) rather than fail: a limit is not worth an outage."""

    def get_ident(self, request):
        return client_address(request.META)

    def allow_request(self, request, view):
        try:
            return super().allow_request(request, view)
        except Exception:  # the cache (Redis) unreachable or failing
            log.exception("rate limit cache unavailable; request let through")
            return True


_final_counts: dict = {}  # (key, window) -> that past window's count, final once the window is over


SETTLE_SECONDS = 2.0
"""How long after a window ends its count may still grow: requests that other workers began in it can
increment it a moment after this process moved on (CI saw 51 of 200 parallel requests pass a limit
of 50 at a window boundary when the count was remembered at once)."""


def _previous_count(cache, key: str, window: int, settled: bool = True) -> int:
    """The previous window's count: read from the cache once per key and window by each process once it
    has `settled` (it no longer changes), so a request costs one cache operation, not three; read every
    time until then."""
    found = _final_counts.get((key, window))
    if found is None:
        found = cache.get(f"{key}:w{window}") or 0
        if settled:
            if len(_final_counts) > 50_000:
                _final_counts.clear()
            _final_counts[(key, window)] = found
    return found


class CounterMixin:
    """Counts on atomic cache increments, not DRF's read-modify-write of a request history (under
    concurrency, parallel requests overwrote each other's history and 200 of 200 passed a limit of
    120). A sliding-window counter: the current window's count plus the previous window's, weighted
    by how much of it still lies within the last `duration` seconds (windows of `duration` seconds).
    A refused request counts too, so a client that keeps hammering stays refused."""

    def allow_request(self, request, view):
        if self.rate is None:
            return True
        self.key = self.get_cache_key(request, view)
        if self.key is None:
            return True
        now = self.timer()
        window = int(now // self.duration)
        current = f"{self.key}:w{window}"
        try:
            count = self.cache.incr(current)
        except ValueError:  # the window's first request (or its key expired)
            count = 1 if self.cache.add(current, 1, timeout=int(self.duration * 2) + 1) else self.cache.incr(current)
        into = (now - window * self.duration) / self.duration
        settled = now - window * self.duration > SETTLE_SECONDS
        estimate = count + (_previous_count(self.cache, self.key, window - 1, settled) * (1.0 - into) if into < 1.0 else 0)
        if estimate <= self.num_requests:
            return True
        self._wait = max(1.0, self.duration * (1.0 - into))
        return False

    def wait(self):
        return getattr(self, "_wait", None)


class AnonThrottle(ClientAddressMixin, CounterMixin, AnonRateThrottle):
    """Anonymous use (evaluate, compare, catalogue) per client address."""

    def get_rate(self):
        return settings.API_ANON_RATE


class UserThrottle(ClientAddressMixin, CounterMixin, UserRateThrottle):
    """Signed-in users and tokens, per user (anonymous requests are AnonThrottle's alone: one count each)."""

    def get_cache_key(self, request, view):
        if not (request.user and request.user.is_authenticated):
            return None
        return super().get_cache_key(request, view)

    def get_rate(self):
        return settings.API_USER_RATE
