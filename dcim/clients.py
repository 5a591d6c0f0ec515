"""HTTP clients for Nautobot 3.x and NetBox 4.x REST APIs (stdlib urllib: no extra dependency).

Every call has a timeout; list calls follow `next` links (pagination); every failure is a DcimError
carrying the DCIM's own message and HTTP status. Tests replace the transport (`transport=`) with an
in-process fake, so nothing here opens a socket unless asked to.

Public names (stable): DcimError, Response, UrllibTransport, NautobotClient, NetBoxClient, client_for.
"""

from __future__ import annotations

import ipaddress
import json
import os
import socket
import ssl
import urllib.error
import urllib.parse
import urllib.request
from dataclasses import dataclass

DEFAULT_TIMEOUT = 20.0  # seconds, each request


def allowed_hosts() -> list[str]:
    """DCIM_ALLOWED_HOSTS (setting or environment, comma-separated host names; empty: any host on an
    ordinary address). The planner's server calls the addresses users give it, so a site may limit them
    to its own DCIMs; a host listed here may also be on this machine (loopback) or link-local."""
    from django.conf import settings

    value = getattr(settings, "DCIM_ALLOWED_HOSTS", None) or os.environ.get("DCIM_ALLOWED_HOSTS", "")
    if isinstance(value, list | tuple):
        return [h.strip().lower() for h in value if h.strip()]
    return [h.strip().lower() for h in value.split(",") if h.strip()]


def refused_address(url: str) -> str | None:
    """Why the server must not call `url`, or None. Whatever a user enters, the planner does not call
    its own machine (loopback: its database, cache, metrics), link-local addresses (a cloud's instance
    metadata service hands out credentials there), multicast or unspecified addresses, unless an operator
    lists the host in DCIM_ALLOWED_HOSTS. Checked on every request, against every address the name
    resolves to, so a name that changes its address after being saved is caught too."""
    parts = urllib.parse.urlsplit(url)
    host = (parts.hostname or "").lower()
    if host in allowed_hosts():
        return None
    try:
        infos = socket.getaddrinfo(host, parts.port or (443 if parts.scheme == "https" else 80), proto=socket.IPPROTO_TCP)
    except (OSError, UnicodeError) as exc:
        return f"the name {host!r} does not resolve: {exc}"
    for info in infos:
        ip = ipaddress.ip_address(info[4][0].split("%")[0])
        if ip.is_loopback or ip.is_link_local or ip.is_multicast or ip.is_unspecified:
            return (
                f"{host} is {ip}, an address of this server itself or link-local, which it does not call for users; "
                "an operator can allow the host with DCIM_ALLOWED_HOSTS"
            )
    return None


class _NoRedirect(urllib.request.HTTPRedirectHandler):
    """A DCIM API answers where it is asked; a redirect (to another host, or http -> https) is reported
    with its target instead of followed, so the address check above cannot be sidestepped."""

    def redirect_request(self, req, fp, code, msg, headers, newurl):
        raise urllib.error.HTTPError(req.full_url, code, f"redirected to {newurl}: give that address instead", headers, fp)


PAGE_SIZE = 500
MAX_PAGES = 200


@dataclass
class Response:
    status: int
    body: bytes
    content_type: str = "application/json"


class DcimError(Exception):
    """A DCIM call that failed. `kind`: network, auth, refused, not_found, server or bad_answer;
    `status`: the HTTP status (0 for network errors); `detail`: the DCIM's own message (text);
    `errors`: its parsed JSON error body when it sent one (field -> messages)."""

    def __init__(self, kind: str, message: str, *, status: int = 0, method: str = "", url: str = "", errors=None):
        super().__init__(message)
        self.kind = kind
        self.status = status
        self.method = method
        self.url = url
        self.detail = message
        self.errors = errors

    @property
    def fatal(self) -> bool:
        """Network errors, auth failures and server errors stop a push; refusals of one object do not."""
        return self.kind in ("network", "auth", "server", "bad_answer")

    def __str__(self):
        where = f"{self.method} {self.url}: " if self.method else ""
        code = f"HTTP {self.status} " if self.status else ""
        return f"{where}{code}{self.detail}"


def _message_from(body: bytes, content_type: str):
    """The DCIM's error message from its answer: DRF sends {"detail": "..."} or {"field": ["..."]}."""
    text = body[:4000].decode("utf-8", "replace")
    try:
        data = json.loads(text)
    except ValueError:
        return (text.strip()[:500] or "(empty answer)"), None
    if isinstance(data, dict) and set(data) == {"detail"}:
        return str(data["detail"]), data
    if isinstance(data, dict | list):
        return _flatten(data), data
    return str(data), data


def _flatten(data, prefix: str = "") -> str:
    if isinstance(data, dict):
        return "; ".join(_flatten(v, f"{prefix}{k}: " if k != "non_field_errors" else prefix) for k, v in data.items())
    if isinstance(data, list):
        return "; ".join(_flatten(v, prefix) for v in data if v not in ({}, [], None))
    return f"{prefix}{data}"


class UrllibTransport:
    """Sends one request with urllib; returns Response or raises DcimError(kind="network")."""

    def __init__(self, *, verify_tls: bool = True, timeout: float = DEFAULT_TIMEOUT):
        self.timeout = timeout
        self.context = None if verify_tls else ssl._create_unverified_context()  # noqa: S323 - the user's choice per connection

    def __call__(self, method: str, url: str, headers: dict, body: bytes | None) -> Response:
        refused = refused_address(url)
        if refused:
            raise DcimError("network", f"not calling the DCIM: {refused}", method=method, url=url)
        request = urllib.request.Request(url, data=body, method=method, headers=headers)
        opener = urllib.request.build_opener(urllib.request.HTTPSHandler(context=self.context), _NoRedirect())
        try:
            with opener.open(request, timeout=self.timeout) as answer:
                return Response(answer.status, answer.read(10_000_000), answer.headers.get("Content-Type", ""))
        except urllib.error.HTTPError as exc:
            if 300 <= exc.code < 400:
                raise DcimError(
                    "network", f"the DCIM answered HTTP {exc.code}, {exc.msg}", status=exc.code, method=method, url=url
                ) from exc
            return Response(exc.code, exc.read(100_000), exc.headers.get("Content-Type", "") if exc.headers else "")
        except (urllib.error.URLError, TimeoutError, ConnectionError, OSError, ValueError) as exc:
            reason = getattr(exc, "reason", exc)
            raise DcimError("network", f"could not reach the DCIM: {reason}", method=method, url=url) from exc


class BaseClient:
    """Shared REST mechanics; subclasses say how each DCIM names things."""

    product = "DCIM"
    version_key = ""

    def __init__(self, base_url: str, token: str, *, verify_tls: bool = True, timeout: float = DEFAULT_TIMEOUT, transport=None):
        self.base_url = base_url.rstrip("/")
        self.token = token
        self.transport = transport or UrllibTransport(verify_tls=verify_tls, timeout=timeout)
        self.calls = 0

    # -- wire
    def auth_header(self) -> str:
        return f"Token {self.token}"

    def url(self, path: str, params: dict | None = None) -> str:
        url = path if path.startswith("http") else f"{self.base_url}/api/{path.lstrip('/')}"
        if params:
            url += ("&" if "?" in url else "?") + urllib.parse.urlencode(params, doseq=True)
        return url

    def request(self, method: str, path: str, *, params: dict | None = None, data=None):
        url = self.url(path, params)
        headers = {"Authorization": self.auth_header(), "Accept": "application/json"}
        body = None
        if data is not None:
            headers["Content-Type"] = "application/json"
            body = json.dumps(data).encode()
        self.calls += 1
        answer = self.transport(method, url, headers, body)
        if answer.status >= 400:
            message, errors = _message_from(answer.body, answer.content_type)
            kind = (
                "auth"
                if answer.status in (401, 403)
                else "not_found"
                if answer.status == 404
                else "refused"
                if answer.status < 500
                else "server"
            )
            raise DcimError(kind, message, status=answer.status, method=method, url=url, errors=errors)
        if answer.status == 204 or not answer.body:
            return None
        try:
            return json.loads(answer.body)
        except ValueError as exc:
            raise DcimError(
                "bad_answer",
                f"the answer is not JSON (is this the {self.product} API address?): {answer.body[:200]!r}",
                status=answer.status,
                method=method,
                url=url,
            ) from exc

    def list(self, path: str, params: dict | None = None) -> list[dict]:
        """Every object of a list endpoint, following `next` links (each page PAGE_SIZE objects)."""
        params = {**(params or {}), "limit": PAGE_SIZE}
        page = self.request("GET", path, params=params)
        results = []
        for _ in range(MAX_PAGES):
            if not isinstance(page, dict) or "results" not in page:
                raise DcimError("bad_answer", f"expected a paginated list from {path}, got {str(page)[:200]}", url=self.url(path))
            results.extend(page["results"])
            nxt = page.get("next")
            if not nxt:
                return results
            # follow the next link on our own base URL (a DCIM behind a proxy may name itself differently)
            parts = urllib.parse.urlsplit(nxt)
            api_path = parts.path.split("/api/", 1)[-1]
            page = self.request("GET", f"{api_path}?{parts.query}")
        raise DcimError("bad_answer", f"more than {MAX_PAGES} pages from {path}", url=self.url(path))

    def get(self, path: str, obj_id) -> dict:
        return self.request("GET", f"{path.rstrip('/')}/{obj_id}/")

    def create(self, path: str, data: dict) -> dict:
        return self.request("POST", path, data=data)

    def update(self, path: str, obj_id, data: dict) -> dict:
        return self.request("PATCH", f"{path.rstrip('/')}/{obj_id}/", data=data)

    def delete(self, path: str, obj_id) -> None:
        self.request("DELETE", f"{path.rstrip('/')}/{obj_id}/")

    def status(self) -> dict:
        """The DCIM's /api/status/ answer; raises DcimError (auth failures included)."""
        return self.request("GET", "status/")

    def version(self) -> str:
        return str((self.status() or {}).get(self.version_key, ""))


class NautobotClient(BaseClient):
    """Nautobot 2.x/3.x: locations, extras/roles and extras/statuses, tags with content types,
    cables with termination_a/_b type and id. Auth: `Authorization: Token <key>`."""

    product = "Nautobot"
    version_key = "nautobot-version"
    kind = "nautobot"


class NetBoxClient(BaseClient):
    """NetBox 4.x: sites, dcim/device-roles, string status values, cables with a_/b_terminations.
    Auth: v1 `Authorization: Token <40 hex>`, v2 (NetBox 4.5+) `Authorization: Bearer nbt_<key>.<token>`."""

    product = "NetBox"
    version_key = "netbox-version"
    kind = "netbox"

    def __init__(self, *args, token_version: str = "v1", **kwargs):
        super().__init__(*args, **kwargs)
        self.token_version = token_version

    def auth_header(self) -> str:
        return f"Bearer {self.token}" if self.token_version == "v2" else f"Token {self.token}"


def client_for(connection, *, transport=None, timeout: float = DEFAULT_TIMEOUT) -> BaseClient:
    """The client for a DcimConnection (token decrypted here, used only for the Authorization header)."""
    token = connection.get_token()
    common = {"verify_tls": connection.verify_tls, "timeout": timeout, "transport": transport}
    if connection.kind == "netbox":
        return NetBoxClient(connection.base_url, token, token_version=connection.effective_token_version, **common)
    return NautobotClient(connection.base_url, token, **common)
