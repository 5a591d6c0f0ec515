"""Content-Security-Policy: every response carries it, and no template needs an inline script to work."""

import re
from html.parser import HTMLParser
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
TEMPLATE_DIRS = [ROOT / "frontend" / "templates", ROOT / "planner" / "templates"]
SERVED_TEMPLATES = [p for d in TEMPLATE_DIRS for p in sorted(d.rglob("*.html")) if p.name != "rack_sheet.html"]  # the sheet is PDF only


def _policy(response) -> dict:
    header = response["Content-Security-Policy"]
    return {part.split()[0]: part.split()[1:] for part in header.split(";") if part.strip()}


class _ScriptFinder(HTMLParser):
    def __init__(self):
        super().__init__()
        self.problems = []
        self._in_inline = False

    def handle_starttag(self, tag, attrs):
        attrs = dict(attrs)
        for name, value in attrs.items():
            if name.startswith("on"):
                self.problems.append(f"inline event handler {name}= on <{tag}> at line {self.getpos()[0]}")
            if name in ("href", "src", "action") and (value or "").strip().lower().startswith("javascript:"):
                self.problems.append(f"javascript: URL on <{tag}> at line {self.getpos()[0]}")
        if tag == "script" and not attrs.get("src") and attrs.get("type") not in ("application/json", "application/ld+json"):
            self.problems.append(f"inline <script> at line {self.getpos()[0]}")


def test_the_template_check_would_see_an_inline_script():
    finder = _ScriptFinder()
    finder.feed('<script>alert(1)</script><button onclick="x()">b</button><script src="a.js"></script>')
    assert len(finder.problems) == 2


@pytest.mark.parametrize("template", SERVED_TEMPLATES, ids=lambda p: p.name)
def test_no_page_template_has_an_inline_script(template):
    text = template.read_text()
    text = re.sub(r"\{#.*?#\}", "", text, flags=re.S)  # template comments
    text = re.sub(r"\{%.*?%\}|\{\{.*?\}\}", "x", text, flags=re.S)  # template tags become plain text
    finder = _ScriptFinder()
    finder.feed(text)
    assert finder.problems == [], f"{template.relative_to(ROOT)}: {finder.problems}"


PAGES = [
    "/",
    "/designer/",
    "/designer/?example=study-d",
    "/compare/?d=study-a&d=study-b",
    "/solve/",
    "/catalogue/",
    "/accounts/login/",
    "/admin/login/",
    "/api/docs/",
    "/api/docs/?script=",
    "/api/schema/",
    "/api/v1/catalogue/disks/",
    "/no-such-page/",
]
SIGNED_IN_PAGES = ["/designs/", "/calibrations/", "/tokens/"]


@pytest.mark.django_db
@pytest.mark.parametrize("path", PAGES)
def test_every_page_has_the_policy(client, path):
    response = client.get(path)
    assert response.status_code in (200, 404), path
    policy = _policy(response)
    assert policy["default-src"] == ["'self'"]
    assert policy["script-src"] == ["'self'"]  # no 'unsafe-inline', no 'unsafe-eval'
    assert policy["object-src"] == ["'none'"]


@pytest.mark.django_db
@pytest.mark.parametrize("path", SIGNED_IN_PAGES)
def test_signed_in_pages_have_the_policy(client, django_user_model, path):
    client.force_login(django_user_model.objects.create_user("csp-user", password="pw-csp-123456"))
    response = client.get(path)
    assert response.status_code == 200
    assert "'unsafe-inline'" not in _policy(response)["script-src"]


@pytest.mark.django_db
def test_api_docs_load_their_start_up_script_as_a_file(client):
    page = client.get("/api/docs/").content.decode()
    assert re.search(r'<script src="[^"]*\?script=', page), "Swagger UI's start-up script should be a file"
    script = client.get("/api/docs/?script=")
    assert script.status_code == 200 and script["Content-Type"].startswith("application/javascript")
    assert "SwaggerUIBundle" in script.content.decode()
