"""`make bench`: an evaluate request against a health request, in process and under gunicorn.

Both figures are requests per second measured in the same run, on a throwaway SQLite database
(migrated, the shipped catalogue loaded with `hardware_catalog.importers.load_catalogue`), with
the test settings (`config.test`: tasks in-process, no rate limits that a benchmark would hit):

- in process: Django's test `Client` posts the README's evaluate example (the study's rack D) and
  gets `/api/v1/health/`, each for a fixed time after a warm-up, the two interleaved in short
  slices so that the machine's load swings hit both alike; no sockets, no server (each
  request still logs its line, as in production, to a file);
- gunicorn: the production command (`gunicorn -c config/gunicorn.conf.py config.wsgi:application`:
  threaded workers, access log) with 2 workers on a free local port, loaded by a small threaded
  generator in this process (a new connection per request) for about 5 s per endpoint, in
  alternating 1 s slices.

Recorded with `bench.report.record` as value = evaluate's rate, floor = health's rate, so the
ratio is evaluate / health (the share of health's rate evaluate reaches); the goal is >= 0.5.
"""

from __future__ import annotations

import contextlib
import http.client
import json
import os
import shutil
import socket
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
EVALUATE_BODY = {"bricks": [{"template": "md3460-performance", "count": 8, "disk": "nl-sas-4tb"}], "metadata": {"placement": "none"}}
"""The README's evaluate example (API section): the study's rack D, metadata provided elsewhere."""
HEALTH, EVALUATE = "/api/v1/health/", "/api/v1/evaluate/"
SECONDS_IN_PROCESS = 3.0
SLICE_IN_PROCESS = 0.25  # seconds of one endpoint before switching to the other (interleaved)
SECONDS_GUNICORN = 5.0
THREADS = 4


def _environment(tmp: Path) -> dict:
    env = {
        "DJANGO_SETTINGS_MODULE": "config.test",
        "DATABASE_URL": f"sqlite:///{tmp / 'bench.sqlite3'}",
        "MEDIA_ROOT": str(tmp / "media"),
        "CELERY_TASK_ALWAYS_EAGER": "true",
    }
    env.pop("CELERY_BROKER_URL", None)
    return env


def _interleaved_rates(first, second, seconds: float, slice_seconds: float) -> tuple[float, float]:
    """Calls per second of `first` and of `second`, each for about `seconds` in all, taken in
    alternating slices of `slice_seconds`: on a busy machine a burst of load then slows both alike,
    so their ratio holds where two back-to-back runs of a few seconds each can differ by 3x."""
    done, spent = [0, 0], [0.0, 0.0]
    while min(spent) < seconds:
        for k, fn in enumerate((first, second)):
            start = time.perf_counter()
            while (elapsed := time.perf_counter() - start) < slice_seconds:
                fn()
                done[k] += 1
            spent[k] += elapsed
    return done[0] / spent[0], done[1] / spent[1]


def in_process() -> tuple[float, float]:
    """Evaluate and health requests per second through Django's test Client, interleaved."""
    evaluate, health = _client_calls()
    for _ in range(20):  # imports, catalogue snapshot, first queries
        evaluate()
        health()
    return _interleaved_rates(evaluate, health, SECONDS_IN_PROCESS, SLICE_IN_PROCESS)


def _client_calls():
    """(evaluate, health): one request each through a Django test Client, checked for a 200."""
    from django.test import Client

    client = Client()
    body = json.dumps(EVALUATE_BODY)

    def evaluate():
        response = client.post(EVALUATE, body, content_type="application/json")
        assert response.status_code == 200, response.content[:300]

    def health():
        response = client.get(HEALTH)
        assert response.status_code == 200, response.content[:300]

    return evaluate, health


@contextlib.contextmanager
def _output_to(path: Path):
    """Standard output and error (file descriptors 1 and 2, so the request log too) into a file."""
    sys.stdout.flush()
    sys.stderr.flush()
    saved = os.dup(1), os.dup(2)
    with open(path, "w") as log:
        os.dup2(log.fileno(), 1)
        os.dup2(log.fileno(), 2)
        try:
            yield
        finally:
            sys.stdout.flush()
            sys.stderr.flush()
            os.dup2(saved[0], 1)
            os.dup2(saved[1], 2)
            os.close(saved[0])
            os.close(saved[1])


def _per_call_seconds(fn, calls: int = 400) -> float:
    """Best of five runs of `calls` calls, per call."""
    for _ in range(20):
        fn()
    best = float("inf")
    for _ in range(5):
        start = time.perf_counter()
        for _ in range(calls):
            fn()
        best = min(best, (time.perf_counter() - start) / calls)
    return best


def stages() -> tuple[dict, float, float]:
    """Where an evaluate request's time goes, in process: each step timed alone (seconds per call), and
    the evaluate request with the evaluation answered from memory against health, interleaved as above:
    the rate evaluate would reach if the engine, resolving and presenting cost nothing."""
    from unittest import mock

    from api.renderers import FastJSONRenderer
    from api.serializers import validate_design_spec
    from planner.engine import BatchInput, evaluate_batch
    from planner.engine.present import evaluation
    from planner.services.evaluation import catalogue_snapshot, design_resolve

    def validate():
        spec, errors = validate_design_spec(EVALUATE_BODY)
        assert errors is None, errors
        return spec

    spec = validate()
    snapshot = catalogue_snapshot()
    design = design_resolve(spec=spec, snapshot=snapshot)
    batch = BatchInput.from_designs([design])
    result = evaluate_batch(batch)
    answer = evaluation(design, batch, result, 0)
    steps = {
        "validate the DesignSpec (DRF fields, one tree a thread)": validate,
        "resolve it against the catalogue snapshot": lambda: design_resolve(spec=spec, snapshot=snapshot),
        "engine: pack the batch of one (from_designs)": lambda: BatchInput.from_designs([design]),
        "engine: evaluate_batch of one": lambda: evaluate_batch(batch),
        "engine: present the Evaluation": lambda: evaluation(design, batch, result, 0),
        "render the Evaluation as JSON (orjson)": lambda: FastJSONRenderer().render(answer.as_dict()),
    }
    seconds = {name: _per_call_seconds(fn) for name, fn in steps.items()}
    evaluate, health = _client_calls()
    in_request = _chained_seconds(list(steps), validate, snapshot, health)
    with mock.patch("api.views.design_evaluate", lambda **kw: answer):
        for _ in range(20):
            evaluate()
            health()
        stubbed, health_rate = _interleaved_rates(evaluate, health, SECONDS_IN_PROCESS, SLICE_IN_PROCESS)
    return seconds, in_request, stubbed, health_rate


def _chained_seconds(names: list[str], validate, snapshot, health, rounds: int = 400) -> dict:
    """The same steps as a request runs them: one after the other on fresh objects (nothing a step
    builds is reused by the next round), each round after a health request through the test Client,
    so that the caches hold what a request leaves in them; median seconds per step. Alone, a step
    runs with everything it touches in the CPU's caches and times shorter than inside a request."""
    from api.renderers import FastJSONRenderer
    from planner.engine import BatchInput, evaluate_batch
    from planner.engine.present import evaluation
    from planner.services.evaluation import design_resolve

    times: list[list[float]] = [[] for _ in names]
    clock = time.perf_counter
    for k in range(rounds + 20):
        health()
        t0 = clock()
        spec = validate()
        t1 = clock()
        design = design_resolve(spec=spec, snapshot=snapshot)
        t2 = clock()
        batch = BatchInput.from_designs([design])
        t3 = clock()
        result = evaluate_batch(batch)
        t4 = clock()
        answer = evaluation(design, batch, result, 0)
        t5 = clock()
        FastJSONRenderer().render(answer.as_dict())
        t6 = clock()
        if k >= 20:  # after a warm-up
            for i, (a, b) in enumerate(((t0, t1), (t1, t2), (t2, t3), (t3, t4), (t4, t5), (t5, t6))):
                times[i].append(b - a)
    return {name: sorted(t)[len(t) // 2] for name, t in zip(names, times, strict=True)}


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def _request(port: int, method: str, path: str, body: bytes | None) -> int:
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=30)
    try:
        headers = {"Content-Type": "application/json", "Connection": "close"} if body else {"Connection": "close"}
        conn.request(method, path, body=body, headers=headers)
        response = conn.getresponse()
        response.read()
        return response.status
    finally:
        conn.close()


def _load(port: int, method: str, path: str, body: bytes | None, seconds: float) -> tuple[float, float]:
    """Requests per second from THREADS threads, each sending one request after another, and the
    CPU the generator itself used (CPU seconds per second: near 1.0 means the generator, not the
    server, sets the rate)."""
    counts = [0] * THREADS
    errors: list[int] = []
    stop = time.perf_counter() + seconds

    def worker(k: int) -> None:
        while time.perf_counter() < stop:
            try:
                status = _request(port, method, path, body)
            except OSError as exc:  # counted, not fatal: the figure says how many
                errors.append(type(exc).__name__)
                continue
            if status != 200:
                errors.append(status)
                return
            counts[k] += 1

    start, cpu = time.perf_counter(), time.process_time()
    threads = [threading.Thread(target=worker, args=(k,)) for k in range(THREADS)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    elapsed = time.perf_counter() - start
    cpu = time.process_time() - cpu
    if any(isinstance(e, int) for e in errors) or len(errors) > 0.01 * max(sum(counts), 1):
        raise SystemExit(f"{method} {path} under gunicorn: {len(errors)} failures ({errors[:3]}) for {sum(counts)} answers")
    return sum(counts) / elapsed, cpu / elapsed


def under_gunicorn(env: dict) -> tuple[float, float, float, float] | None:
    gunicorn = shutil.which("gunicorn", path=str(Path(sys.executable).parent)) or shutil.which("gunicorn")
    if gunicorn is None:
        print("gunicorn not installed: skipped")
        return None
    port = _free_port()
    log = open(Path(env["MEDIA_ROOT"]).parent / "gunicorn.log", "w")  # noqa: SIM115 - closed below
    server = subprocess.Popen(
        [gunicorn, "-c", "config/gunicorn.conf.py", "config.wsgi:application", "--workers", "2", "--bind", f"127.0.0.1:{port}"],
        cwd=ROOT,
        env={**os.environ, **env, "WEB_MAX_REQUESTS": "0"},  # no worker recycling during the measurement
        stdout=log,
        stderr=subprocess.STDOUT,
    )
    try:
        deadline = time.time() + 60
        while True:
            try:
                if _request(port, "GET", HEALTH, None) == 200:
                    break
            except OSError:
                pass
            if server.poll() is not None or time.time() > deadline:
                raise SystemExit(f"gunicorn did not start (see {log.name})")
            time.sleep(0.2)
        body = json.dumps(EVALUATE_BODY).encode()
        _load(port, "POST", EVALUATE, body, 1.0)  # warm both workers
        _load(port, "GET", HEALTH, None, 1.0)
        runs: list[list[tuple[float, float]]] = [[], []]
        for _ in range(int(SECONDS_GUNICORN)):  # interleaved 1 s slices, as in process
            runs[0].append(_load(port, "POST", EVALUATE, body, 1.0))
            runs[1].append(_load(port, "GET", HEALTH, None, 1.0))
        (evaluate_rate, evaluate_cpu), (health_rate, health_cpu) = (tuple(sum(v) / len(r) for v in zip(*r, strict=True)) for r in runs)
        return evaluate_rate, health_rate, evaluate_cpu, health_cpu
    finally:
        server.terminate()
        try:
            server.wait(timeout=15)
        except subprocess.TimeoutExpired:
            server.kill()
        log.close()


def main() -> int:
    tmp = Path(tempfile.mkdtemp(prefix="planner-request-bench-"))
    env = _environment(tmp)
    os.environ.update(env)
    os.environ.pop("CELERY_BROKER_URL", None)
    import django

    django.setup()
    from django.core.management import call_command

    from bench.report import record
    from hardware_catalog.importers import load_catalogue

    call_command("migrate", verbosity=0)
    load_catalogue()

    print("Request benchmark: evaluate (README's example, study rack D) against health")
    # each request logs a line, as in production; to a file here, not the terminal
    with _output_to(tmp / "requests.log"):
        evaluate_rate, health_rate = in_process()
    print(
        f"in process (Django test Client): evaluate {evaluate_rate:,.0f} req/s, health {health_rate:,.0f} req/s, ratio {evaluate_rate / health_rate:.2f}"
    )
    record(
        "evaluate request vs health request, in process",
        evaluate_rate,
        "req/s",
        floor=health_rate,
        floor_label="health request, in process",
        goal="ratio >= 0.5",
        note=f"Django test Client, config.test, SQLite; {SECONDS_IN_PROCESS:.0f} s each after a warm-up, interleaved in {SLICE_IN_PROCESS} s slices; ratio = evaluate rate / health rate",
    )

    with _output_to(tmp / "requests-stages.log"):
        seconds, in_request, stubbed_rate, health_rate = stages()
    print("where an evaluate request's time goes, in process: each step timed alone, and in a chain between requests")
    for name, value in seconds.items():
        print(f"  {name:56s} {value * 1e6:8.1f} us alone {in_request[name] * 1e6:8.1f} us chained")
        record(
            f"evaluate step: {name}",
            in_request[name] * 1e3,
            "ms",
            note=f"in process, run as a request runs it (fresh objects, after a health request), median of 400; alone (best of 5 x 400 calls): {value * 1e3:.4f} ms",
        )
    chained = sum(in_request.values())
    print(f"  {'all steps, chained':56s} {chained * 1e6:8.1f} us; a health request takes {1e6 / health_rate:.0f} us")
    record(
        "evaluate steps, chained, vs a health request",
        chained * 1e3,
        "ms",
        floor=1e3 / health_rate,
        floor_label="a health request, in process",
        note="the evaluate request's own work (validation to JSON) against the whole of a health request: "
        "for evaluate to reach 0.5 of health's rate in process, this ratio would have to be at most 1",
    )
    print(
        f"evaluate with the evaluation answered from memory: {stubbed_rate:,.0f} req/s, health {health_rate:,.0f} req/s, ratio {stubbed_rate / health_rate:.2f}"
    )
    record(
        "evaluate request, evaluation answered from memory, vs health request, in process",
        stubbed_rate,
        "req/s",
        floor=health_rate,
        floor_label="health request, in process",
        note="design_evaluate replaced by a stored Evaluation: validation, DRF dispatch and JSON only; the most any engine work can reach",
    )

    rates = under_gunicorn(env)
    if rates is not None:
        evaluate_rate, health_rate, evaluate_cpu, health_cpu = rates
        print(
            f"gunicorn, 2 workers: evaluate {evaluate_rate:,.0f} req/s, health {health_rate:,.0f} req/s, ratio {evaluate_rate / health_rate:.2f} "
            f"(load generator CPU {evaluate_cpu:.2f} / {health_cpu:.2f} s per s: near 1 means the generator limits the rate)"
        )
        record(
            "evaluate request vs health request, gunicorn 2 workers",
            evaluate_rate,
            "req/s",
            floor=health_rate,
            floor_label="health request, gunicorn 2 workers",
            goal="ratio >= 0.5",
            note=f"gunicorn -c config/gunicorn.conf.py, 2 workers, config.test, SQLite; {THREADS} client threads in one process "
            f"on the same 2 cores, a new connection per request, {SECONDS_GUNICORN:.0f} s each; ratio = evaluate rate / health rate; "
            f"generator CPU {evaluate_cpu:.2f} (evaluate) and {health_cpu:.2f} (health) s per s: near 1, the generator, not the server, "
            "limits the rate",
        )
    shutil.rmtree(tmp, ignore_errors=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
