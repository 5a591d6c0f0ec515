"""Designer benchmark (issue 15): in a real Chromium against a live development server, the time from
the last keystroke in a brick count to the totals of that count on the page, and the JavaScript the
designer page loads (uncompressed bytes of every script response).

Run: `.venv/bin/python -m bench.frontend_bench` (needs Chromium: /usr/bin/chromium or CHROMIUM_PATH).
A benchmark, not a test: figures go to bench/results.json through bench/report.py. The floor of the
latency is the evaluate request itself (its duration in the browser's resource timing), so what
is left is the debounce and the drawing.
"""

from __future__ import annotations

import os
import shutil
import socket
import statistics
import subprocess
import sys
import tempfile
import time
import urllib.request
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
TRIALS = 20
KEY_GAP_MS = 30  # a fast typist: keys closer together than the debounce

# Installed once the page has loaded: when the last key went down, and when the designer showed an
# answer (it sets <body data-evaluated> once the totals are drawn).
PROBE = """() => {
  window.__bench = {lastKey: 0, shown: []};
  document.addEventListener('keydown', () => { window.__bench.lastKey = performance.now(); }, true);
  new MutationObserver(() => { window.__bench.shown.push([performance.now(), document.body.dataset.evaluated]); })
    .observe(document.body, {attributes: true, attributeFilter: ['data-evaluated']});
}"""


def _chromium() -> str | None:
    for candidate in (os.environ.get("CHROMIUM_PATH"), "/usr/bin/chromium", shutil.which("chromium"), shutil.which("chromium-browser")):
        if candidate and Path(candidate).exists():
            return candidate
    return None


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _serve(tmp: Path) -> tuple[subprocess.Popen, str, object]:
    env = {
        **os.environ,
        "DEBUG": "true",
        "SECRET_KEY": "frontend-bench",
        "DATABASE_URL": f"sqlite:///{tmp / 'bench.sqlite3'}",
        "MEDIA_ROOT": str(tmp / "media"),
        "DJANGO_SETTINGS_MODULE": "config.base",
        "LOG_FORMAT": "text",
    }
    env.pop("CELERY_BROKER_URL", None)
    python = sys.executable
    subprocess.run([python, "manage.py", "migrate", "--noinput", "-v0"], cwd=ROOT, env=env, check=True)
    subprocess.run([python, "manage.py", "load_catalogue"], cwd=ROOT, env=env, check=True, stdout=subprocess.DEVNULL)
    port = _free_port()
    log = open(tmp / "runserver.log", "w")  # noqa: SIM115 - closed by the caller
    server = subprocess.Popen(
        [python, "manage.py", "runserver", f"127.0.0.1:{port}", "--noreload"], cwd=ROOT, env=env, stdout=log, stderr=subprocess.STDOUT
    )
    base = f"http://127.0.0.1:{port}"
    deadline = time.time() + 60
    while True:
        try:
            with urllib.request.urlopen(base + "/api/v1/health/", timeout=2) as response:
                if response.status == 200:
                    break
        except OSError:
            pass
        if server.poll() is not None or time.time() > deadline:
            server.kill()
            raise SystemExit(f"the development server did not start (see {log.name})")
        time.sleep(0.2)
    return server, base, log


def _measure(page, base: str) -> tuple[list[float], list[float], int, list[tuple[str, int]]]:
    scripts: list[tuple[str, int]] = []

    def on_response(response):
        if response.request.resource_type == "script":
            scripts.append((response.url.removeprefix(base), len(response.body())))

    page.on("response", on_response)
    page.goto(base + "/designer/?example=study-d")
    page.wait_for_function("document.body.dataset.evaluated !== undefined")
    page.wait_for_load_state("networkidle")
    page.evaluate(PROBE)
    js_bytes = sum(size for _, size in scripts)

    latencies, requests = [], []
    counts = [12, 21] * (TRIALS // 2 + 1)
    for trial in range(TRIALS):
        count = counts[trial]
        before = page.evaluate("window.__bench.shown.length")
        page.click("#b0-count", click_count=3)
        page.keyboard.type(str(count), delay=KEY_GAP_MS)
        page.wait_for_function(
            f"document.getElementById('status').textContent.startsWith('{count} bricks,') && window.__bench.shown.length > {before}"
        )
        page.wait_for_timeout(150)  # let a late answer show, if one ever did
        probe = page.evaluate("window.__bench")
        shown_after_key = [t for t, _ in probe["shown"] if t >= probe["lastKey"]]
        latencies.append(shown_after_key[-1] - probe["lastKey"])
        entries = page.evaluate(
            "performance.getEntriesByType('resource').filter(e => e.name.endsWith('/designer/evaluate/')).map(e => e.duration)"
        )
        requests.append(entries[-1])
        page.evaluate("performance.clearResourceTimings()")
    return latencies, requests, js_bytes, scripts


def main() -> int:
    chromium = _chromium()
    if chromium is None:
        print("Chromium not installed: designer benchmark skipped")
        return 0
    sys.path.insert(0, str(ROOT))
    from playwright.sync_api import sync_playwright

    from bench.report import record

    tmp = Path(tempfile.mkdtemp(prefix="planner-frontend-bench-"))
    server, base, log = _serve(tmp)
    try:
        with sync_playwright() as p:
            browser = p.chromium.launch(executable_path=chromium, args=["--no-sandbox", "--disable-gpu", "--no-first-run"])
            # bypass_csp: the probe and the waits are page scripts of the benchmark, not of the site
            context = browser.new_context(viewport={"width": 1400, "height": 900}, bypass_csp=True)
            latencies, requests, js_bytes, scripts = _measure(context.new_page(), base)
            browser.close()
    finally:
        server.terminate()
        try:
            server.wait(timeout=15)
        except subprocess.TimeoutExpired:
            server.kill()
        log.close()

    mib = js_bytes / 2**20
    median, p90 = statistics.median(latencies), sorted(latencies)[int(0.9 * (len(latencies) - 1))]
    request = statistics.median(requests)
    print("Designer benchmark (Chromium, development server)")
    for url, size in scripts:
        print(f"  script {url:<55} {size / 1024:8.1f} KiB")
    print(f"designer page JS: {js_bytes:,} bytes ({mib:.2f} MiB)")
    print(
        f"last keystroke -> totals updated: median {median:.0f} ms, p90 {p90:.0f} ms, max {max(latencies):.0f} ms "
        f"over {TRIALS} edits; the evaluate request itself: median {request:.0f} ms"
    )
    record(
        "designer: last keystroke -> totals updated",
        median / 1000,
        "s",
        floor=request / 1000,
        floor_label="the evaluate request itself (browser resource timing)",
        goal="<= 150 ms",
        note=f"median of {TRIALS} edits typed {KEY_GAP_MS} ms apart; p90 {p90:.0f} ms; study D, development server",
    )
    record(
        "designer page JS",
        mib,
        "MiB",
        goal="< 1.5 MiB",
        note="uncompressed bytes of every script response on /designer/: " + ", ".join(f"{u} {s:,}" for u, s in scripts),
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
