"""Real-browser tests: Playwright driving Debian's Chromium against Django's live server.

In CI (CI=true) Chromium must be there: a missing browser fails the run. On a developer's
machine without Chromium these tests are skipped with the reason shown. Screenshots go to
test-artifacts/ for a person to look at.
"""

import os
import shutil
from pathlib import Path

import pytest

os.environ.setdefault("DJANGO_ALLOW_ASYNC_UNSAFE", "true")  # Playwright's sync API runs an event loop in this thread

ARTIFACTS = Path(__file__).resolve().parents[2] / "test-artifacts"
IN_CI = os.environ.get("CI", "").lower() in ("1", "true", "yes")


def _chromium() -> str | None:
    for candidate in (os.environ.get("CHROMIUM_PATH"), "/usr/bin/chromium", shutil.which("chromium"), shutil.which("chromium-browser")):
        if candidate and Path(candidate).exists():
            return candidate
    return None


@pytest.fixture(scope="session")
def browser():
    path = _chromium()
    if path is None:
        if IN_CI:
            pytest.fail("Chromium is required for browser tests in CI (apt-get install chromium)")
        pytest.skip("Chromium not installed: browser tests skipped on this machine")
    from playwright.sync_api import sync_playwright

    with sync_playwright() as p:
        browser = p.chromium.launch(
            executable_path=path,
            args=[
                "--no-sandbox",
                "--disable-gpu",
                "--disable-quic",
                "--no-first-run",
                "--disable-background-networking",
                "--disable-component-update",
                "--disable-sync",
            ],
        )
        yield browser
        browser.close()


@pytest.fixture
def page(browser, live_server, transactional_db):
    """A fresh page on the live server, with the catalogue loaded (transactional tests flush tables)."""
    from hardware_catalog.importers import load_catalogue

    load_catalogue()
    # The pages' Content-Security-Policy forbids eval, which Playwright's string predicates
    # (wait_for_function("...")) use while polling; tests/browser/test_csp_browser.py checks the
    # policy itself on a page of its own that does not bypass it.
    context = browser.new_context(viewport={"width": 1400, "height": 900}, bypass_csp=True)
    page = context.new_page()
    page.base_url = live_server.url
    yield page
    context.close()


def screenshot(page, name: str) -> Path:
    ARTIFACTS.mkdir(exist_ok=True)
    path = ARTIFACTS / f"{name}.png"
    page.screenshot(path=str(path), full_page=True)
    return path
