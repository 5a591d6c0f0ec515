"""Static files as production serves them (issue 15): collectstatic with whitenoise's compressed
manifest storage gives every file a content-hashed name, every `{% static %}` reference in the
templates resolves in that manifest, hashed names are cached for good, and the vendored partial
plotly.js bundle is the file its checksum names."""

import hashlib
import json
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest
from django.core.management import call_command
from django.test import RequestFactory, override_settings

ROOT = Path(__file__).resolve().parents[2]
MANIFEST_BACKEND = "whitenoise.storage.CompressedManifestStaticFilesStorage"
STATIC_TAG = re.compile(r"""{%\s*static\s+(['"])(?P<name>[^'"]+)\1\s*%}""")
TEMPLATE_DIRS = [p for p in ROOT.glob("*/templates") if ".venv" not in p.parts]


def _template_references() -> dict[str, set[str]]:
    refs: dict[str, set[str]] = {}
    for directory in TEMPLATE_DIRS:
        for path in directory.rglob("*.html"):
            for match in STATIC_TAG.finditer(path.read_text()):
                refs.setdefault(match["name"], set()).add(str(path.relative_to(ROOT)))
    return refs


@pytest.fixture
def collected(tmp_path, monkeypatch):
    """collectstatic into a temporary STATIC_ROOT with the production storage (compression skipped:
    it changes no name, only adds .gz/.br beside each file, and takes a minute)."""
    from whitenoise.storage import CompressedManifestStaticFilesStorage

    monkeypatch.setattr(CompressedManifestStaticFilesStorage, "compress_files", lambda self, paths: iter(()))
    storages = {
        "default": {"BACKEND": "django.core.files.storage.FileSystemStorage"},
        "staticfiles": {"BACKEND": MANIFEST_BACKEND},
    }
    with override_settings(STATIC_ROOT=str(tmp_path), STORAGES=storages, DEBUG=False):
        call_command("collectstatic", interactive=False, verbosity=0)
        yield tmp_path, json.loads((tmp_path / "staticfiles.json").read_text())["paths"]


def test_production_settings_use_the_manifest_storage():
    env = {**os.environ, "DEBUG": "false", "SECRET_KEY": "x", "CELERY_TASK_ALWAYS_EAGER": "true"}
    env["DJANGO_SETTINGS_MODULE"] = "config.base"
    env.pop("DJANGO_ALLOW_ASYNC_UNSAFE", None)
    code = "import django; django.setup(); from django.conf import settings; print(settings.STORAGES['staticfiles']['BACKEND'])"
    out = subprocess.run([sys.executable, "-c", code], cwd=ROOT, env=env, capture_output=True, text=True, check=True)
    assert out.stdout.strip() == MANIFEST_BACKEND


def test_every_template_static_reference_resolves_in_the_manifest(collected):
    root, manifest = collected
    refs = _template_references()
    assert {"frontend/css/planner.css", "plotly/plotly-basic.min.js", "frontend/js/designer.js"} <= set(refs)
    missing = {name: sorted(where) for name, where in refs.items() if name not in manifest}
    assert not missing, f"{{% static %}} names that collectstatic does not produce: {missing}"
    for name in refs:
        hashed = manifest[name]
        assert hashed != name and (root / hashed).exists()
        assert re.search(r"\.[0-9a-f]{12}\.", hashed), hashed


def test_no_static_file_names_another_by_a_literal_static_path():
    """A JS or CSS file that writes '/static/...' would bypass the hashed names (and break once
    only hashed files are kept): static files reach each other through templates or relative url()."""
    offenders = []
    for path in (ROOT / "frontend" / "static").rglob("*"):
        if path.suffix in {".js", ".css"} and re.search(r"""['"(]/static/""", path.read_text()):
            offenders.append(str(path.relative_to(ROOT)))
    assert not offenders


@pytest.mark.django_db
def test_pages_name_hashed_files_under_the_manifest_storage(collected, client):
    _, manifest = collected
    for url in ("/", "/designer/", "/compare/", "/solve/", "/catalogue/", "/accounts/login/"):
        response = client.get(url)
        assert response.status_code == 200, url
        html = response.content.decode()
        for src in re.findall(r'<script[^>]+src="/static/([^"]+)"', html) + re.findall(r'<link[^>]+href="/static/([^"]+)"', html):
            assert src in manifest.values(), f"{url} names {src}, not a hashed name"
    designer = client.get("/designer/").content.decode()
    assert f"/static/{manifest['plotly/plotly-basic.min.js']}" in designer


def test_hashed_names_are_cached_for_good(collected):
    from django.http import HttpResponse
    from whitenoise.middleware import WhiteNoiseMiddleware

    _, manifest = collected
    with override_settings(WHITENOISE_AUTOREFRESH=False, WHITENOISE_USE_FINDERS=False):
        middleware = WhiteNoiseMiddleware(get_response=lambda request: HttpResponse(status=404))
        hashed = middleware(RequestFactory().get("/static/" + manifest["frontend/js/designer.js"]))
        plain = middleware(RequestFactory().get("/static/frontend/js/designer.js"))
    assert hashed.status_code == 200
    assert hashed["Cache-Control"] == "max-age=315360000, public, immutable"
    assert plain.status_code == 200 and "immutable" not in plain["Cache-Control"]


def test_the_vendored_plotly_bundle_is_the_one_its_checksum_and_lockfile_name():
    vendor = ROOT / "frontend" / "vendor" / "plotly"
    bundle = (vendor / "plotly-basic.min.js").read_bytes()
    recorded = (vendor / "SHA256SUMS").read_text().split()[0]
    assert hashlib.sha256(bundle).hexdigest() == recorded
    lock = json.loads((vendor / "package-lock.json").read_text())
    version = lock["packages"]["node_modules/plotly.js-basic-dist-min"]["version"]
    assert f"plotly.js (basic - minified) v{version}" in bundle[:200].decode()
    assert "MIT License" in (vendor / "LICENSE").read_text()
    assert len(bundle) < 1.5 * 1024 * 1024 - 200 * 1024  # leaves room for the pages' own scripts
