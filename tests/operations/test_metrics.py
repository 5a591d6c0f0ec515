"""/metrics: django-prometheus's request counter, the job gauges by status, queue depth from Redis."""

import os
import re

import pytest
from django.contrib.auth import get_user_model

from planner.models import Design, ExportJob, SolveJob


def sample(text: str, name: str, **labels) -> float | None:
    """The value of one sample in the Prometheus text format, or None if it is not there."""
    for line in text.splitlines():
        if line.startswith("#"):
            continue
        match = re.match(r"^([a-zA-Z_:][a-zA-Z0-9_:]*)(?:\{(.*)\})? (\S+)$", line)
        if not match or match.group(1) != name:
            continue
        found = dict(re.findall(r'(\w+)="([^"]*)"', match.group(2) or ""))
        if all(found.get(k) == v for k, v in labels.items()):
            return float(match.group(3))
    return None


@pytest.mark.django_db
def test_metrics_has_the_request_counter_and_job_gauges(client):
    owner = get_user_model().objects.create_user("metrics-owner", password="x" * 12)
    design = Design.objects.create(owner=owner, name="d", spec={"bricks": []})
    ExportJob.objects.create(design=design, design_version=1, format="csv", status=ExportJob.Status.QUEUED)
    ExportJob.objects.create(design=design, design_version=1, format="xlsx", status=ExportJob.Status.QUEUED)
    ExportJob.objects.create(design=design, design_version=1, format="pdf", status=ExportJob.Status.FAILED)
    SolveJob.objects.create(request={}, status=SolveJob.Status.QUEUED)

    client.get("/api/v1/health/")
    response = client.get("/metrics")
    assert response.status_code == 200
    assert response["Content-Type"].startswith("text/plain")
    text = response.content.decode()

    assert sample(text, "django_http_requests_total_by_method_total", method="GET") >= 1
    assert "django_http_requests_latency_seconds_by_view_method" in text
    assert "django_db_execute_total" in text  # database metrics through the wrapped backend
    assert sample(text, "planner_jobs", kind="export", status="queued") == 2
    assert sample(text, "planner_jobs", kind="export", status="failed") == 1
    assert sample(text, "planner_jobs", kind="export", status="done") == 0  # every status, even with no rows
    assert sample(text, "planner_jobs", kind="solve", status="queued") == 1
    assert "planner_queue_depth" not in text  # eager tasks: no broker, no queue


@pytest.mark.django_db
def test_job_gauges_cost_one_query_per_model(client, django_assert_max_num_queries):
    from planner.metrics import PlannerCollector

    with django_assert_max_num_queries(2):
        families = list(PlannerCollector().collect())
    assert [f.name for f in families] == ["planner_jobs"]


@pytest.mark.django_db
def test_metrics_token_when_set(client, settings):
    settings.METRICS_TOKEN = "s3cret-scrape"
    assert client.get("/metrics").status_code == 401
    assert client.get("/metrics", HTTP_AUTHORIZATION="Bearer wrong").status_code == 401
    assert client.get("/metrics", HTTP_AUTHORIZATION="Bearer s3cret-scrape").status_code == 200


@pytest.mark.django_db
def test_queue_depth_from_redis_when_the_broker_is_redis(client, settings):
    redis = pytest.importorskip("redis")
    url = os.environ.get("METRICS_TEST_REDIS_URL", "redis://127.0.0.1:6379/11")
    conn = redis.Redis.from_url(url, socket_connect_timeout=1)
    try:
        conn.ping()
    except redis.RedisError:
        if os.environ.get("CI"):
            raise
        pytest.skip(f"no Redis at {url}")
    solve, export = "metrics-test-solve", "metrics-test-export"
    conn.delete(solve, export)
    try:
        conn.rpush(solve, "a", "b", "c")
        conn.rpush(export, "x")
        settings.CELERY_TASK_ALWAYS_EAGER = False
        settings.CELERY_BROKER_URL = url
        settings.CELERY_SOLVE_QUEUE = solve
        settings.CELERY_EXPORT_QUEUE = export
        text = client.get("/metrics").content.decode()
    finally:
        conn.delete(solve, export)
    assert sample(text, "planner_queue_depth", queue=solve) == 3
    assert sample(text, "planner_queue_depth", queue=export) == 1
