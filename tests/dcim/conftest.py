"""Fixtures for the live DCIM tests: a real Nautobot named by NAUTOBOT_URL and NAUTOBOT_TOKEN.

`.ci/nautobot.sh` installs and starts one (CI does; see README). Without the two variables the live
tests are skipped on a developer's machine and FAIL in CI (CI=true): nothing skips silently there.
The read-back helper here is plain HTTP (urllib), independent of dcim/clients.py, so the tests do not
check the push client with itself.
"""

from __future__ import annotations

import http.cookiejar
import json
import os
import re
import urllib.error
import urllib.parse
import urllib.request
import uuid

import pytest

IN_CI = os.environ.get("CI", "").lower() in ("1", "true", "yes")
LOCATION_TYPE = "Planner live tests"


def pytest_configure(config):
    config.addinivalue_line("markers", "nautobot_live: pushes into the real Nautobot of NAUTOBOT_URL (required in CI)")


class NautobotHTTP:
    """Just enough of Nautobot's REST API to set up a location and read a push back."""

    def __init__(self, url: str, token: str):
        self.base = url.rstrip("/")
        self.token = token

    def call(self, method: str, path: str, data=None, *, token: str | None = None):
        url = path if path.startswith("http") else f"{self.base}/api/{path.lstrip('/')}"
        headers = {"Authorization": f"Token {token or self.token}", "Accept": "application/json"}
        body = None
        if data is not None:
            headers["Content-Type"] = "application/json"
            body = json.dumps(data).encode()
        request = urllib.request.Request(url, data=body, method=method, headers=headers)
        try:
            with urllib.request.urlopen(request, timeout=60) as answer:  # noqa: S310 - the test server
                return answer.status, json.loads(answer.read() or b"null")
        except urllib.error.HTTPError as exc:
            text = exc.read().decode("utf-8", "replace")
            try:
                return exc.code, json.loads(text)
            except ValueError:
                return exc.code, text

    def get(self, path: str, **params):
        query = f"?{urllib.parse.urlencode(params)}" if params else ""
        status, body = self.call("GET", f"{path}{query}")
        assert status == 200, (path, params, status, body)
        return body

    def list(self, path: str, **params) -> list[dict]:
        page = self.get(path, limit=500, **params)
        out = list(page["results"])
        while page.get("next"):
            status, page = self.call("GET", page["next"])
            assert status == 200, page
            out += page["results"]
        return out

    def count(self, path: str, **params) -> int:
        return self.get(path, limit=1, **params)["count"]

    def post(self, path: str, data: dict) -> dict:
        status, body = self.call("POST", path, data)
        assert status == 201, (path, data, status, body)
        return body

    def post_csv(self, path: str, text: str) -> list[dict]:
        """Nautobot's CSV bulk import through its REST API (Content-Type text/csv): the objects made."""
        url = f"{self.base}/api/{path.lstrip('/')}"
        headers = {"Authorization": f"Token {self.token}", "Accept": "application/json", "Content-Type": "text/csv"}
        request = urllib.request.Request(url, data=text.encode(), method="POST", headers=headers)
        try:
            with urllib.request.urlopen(request, timeout=120) as answer:  # noqa: S310 - the test server
                return json.loads(answer.read())
        except urllib.error.HTTPError as exc:
            raise AssertionError(f"CSV import into {path} refused: HTTP {exc.code} {exc.read()[:2000]!r}") from exc

    def one(self, path: str, **params) -> dict:
        found = self.list(path, **params)
        assert len(found) == 1, (path, params, found)
        return found[0]

    def status_id(self, name: str) -> str:
        return next(s["id"] for s in self.list("extras/statuses/", name=name) if s["name"] == name)


class NautobotUI:
    """Nautobot's web UI signed in (cookies, CSRF): its device-type import takes the library's YAML,
    which the REST API does not."""

    def __init__(self, url: str, username: str, password: str):
        self.base = url.rstrip("/")
        self.jar = http.cookiejar.CookieJar()
        self.opener = urllib.request.build_opener(urllib.request.HTTPCookieProcessor(self.jar))
        self.get("/login/")
        status, _, where = self.post("/login/", {"username": username, "password": password})
        assert status == 302 and "/login/" not in where, f"Nautobot's web sign-in failed: HTTP {status} -> {where}"

    def csrf(self) -> str:
        return next(c.value for c in self.jar if c.name == "csrftoken")

    def get(self, path: str) -> str:
        with self.opener.open(f"{self.base}{path}", timeout=60) as answer:
            return answer.read().decode()

    def post(self, path: str, fields: dict) -> tuple[int, str, str]:
        """(status, page text, Location) of a form POST; redirects are not followed."""

        class NoRedirect(urllib.request.HTTPRedirectHandler):
            def redirect_request(self, *args, **kwargs):
                return None

        opener = urllib.request.build_opener(urllib.request.HTTPCookieProcessor(self.jar), NoRedirect)
        body = urllib.parse.urlencode({"csrfmiddlewaretoken": self.csrf(), **fields}).encode()
        request = urllib.request.Request(f"{self.base}{path}", data=body, method="POST", headers={"Referer": f"{self.base}{path}"})
        try:
            with opener.open(request, timeout=60) as answer:
                return answer.status, answer.read().decode(), ""
        except urllib.error.HTTPError as exc:
            return exc.code, exc.read().decode("utf-8", "replace"), exc.headers.get("Location", "")

    def import_device_type(self, yaml_text: str) -> str:
        """Devices > Device Types > Import (YAML); returns the new type's page address, or fails with the form's errors."""
        status, page, where = self.post("/dcim/device-types/import/", {"data": yaml_text, "format": "yaml"})
        errors = re.findall(r"<li>([^<]+)</li>", page) if status != 302 else []
        assert status == 302, f"device-type import refused (HTTP {status}): {errors[:5]}"
        return where


@pytest.fixture(scope="session")
def nautobot():
    """The live Nautobot (NautobotHTTP), its token checked with /api/status/."""
    url, token = os.environ.get("NAUTOBOT_URL", ""), os.environ.get("NAUTOBOT_TOKEN", "")
    if not (url and token):
        if IN_CI:
            pytest.fail("NAUTOBOT_URL and NAUTOBOT_TOKEN are required in CI (.ci/run starts Nautobot with .ci/nautobot.sh)")
        pytest.skip("NAUTOBOT_URL and NAUTOBOT_TOKEN not set: live Nautobot tests skipped (run .ci/nautobot.sh; CI must)")
    http = NautobotHTTP(url, token)
    try:
        status, body = http.call("GET", "status/")
    except OSError as exc:
        pytest.fail(f"NAUTOBOT_URL={url} is set but Nautobot does not answer: {exc}")
    assert status == 200, f"Nautobot's /api/status/ refused the token: HTTP {status} {body}"
    return http


@pytest.fixture(scope="session")
def nautobot_ui(nautobot):
    """Nautobot's web UI signed in as NAUTOBOT_USERNAME / NAUTOBOT_PASSWORD (.ci/nautobot.sh writes them)."""
    username, password = os.environ.get("NAUTOBOT_USERNAME", ""), os.environ.get("NAUTOBOT_PASSWORD", "")
    if not (username and password):
        if IN_CI:
            pytest.fail("NAUTOBOT_USERNAME and NAUTOBOT_PASSWORD are required in CI (.ci/nautobot.sh writes them)")
        pytest.skip("NAUTOBOT_USERNAME and NAUTOBOT_PASSWORD not set: the web-import test is skipped (CI must run it)")
    return NautobotUI(nautobot.base, username, password)


@pytest.fixture
def nautobot_location(nautobot) -> dict:
    """A new Nautobot location of its own for one test (unique name: reruns against the same server
    do not collide), of a location type that takes racks and devices."""
    types = nautobot.list("dcim/location-types/", name=LOCATION_TYPE)
    if types:
        location_type = types[0]
    else:
        location_type = nautobot.post("dcim/location-types/", {"name": LOCATION_TYPE, "content_types": ["dcim.rack", "dcim.device"]})
    return nautobot.post(
        "dcim/locations/",
        {"name": f"planner-live-{uuid.uuid4().hex[:10]}", "location_type": location_type["id"], "status": nautobot.status_id("Active")},
    )
