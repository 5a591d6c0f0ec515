"""The DCIM connections and pushes API: owner-only, token write-only and unreadable in the database,
400s naming fields, the job flow in eager mode against the in-process fake DCIM."""

from __future__ import annotations

import pytest
from django.contrib.auth import get_user_model
from django.db import connection as db

from dcim import clients
from dcim.models import DcimConnection, DcimPush
from planner import services

from .test_push_fake import FakeDcim

pytestmark = pytest.mark.django_db

TOKEN = "0123456789abcdef0123456789abcdef01234567"
SPEC = {"bricks": [{"template": "md3460-performance", "count": 2}], "metadata": {"placement": "none"}}


@pytest.fixture
def alice(api):
    user = get_user_model().objects.create_user("alice", password="pw-alice-123")
    api.force_authenticate(user)
    return user


@pytest.fixture
def bob():
    return get_user_model().objects.create_user("bob", password="pw-bob-123")


@pytest.fixture
def fake(monkeypatch):
    fake = FakeDcim("nautobot", token=TOKEN)
    monkeypatch.setattr(clients, "UrllibTransport", lambda **kw: fake)
    return fake


def make_connection(api, **kw):
    body = {"name": "Nautobot", "kind": "nautobot", "base_url": "https://nautobot.example.org/api/", "token": TOKEN, "site": "Hall A", **kw}
    return api.post("/api/v1/dcim/connections/", body, format="json")


def test_token_is_never_returned_and_unreadable_in_the_database(api, alice):
    res = make_connection(api)
    assert res.status_code == 201, res.json()
    body = res.json()
    assert "token" not in body and body["token_hint"] == "…4567"
    assert body["base_url"] == "https://nautobot.example.org"  # the /api/ suffix is the client's business
    for got in (api.get("/api/v1/dcim/connections/").json()["results"][0], api.get(f"/api/v1/dcim/connections/{body['id']}/").json()):
        assert TOKEN not in str(got)
    with db.cursor() as cur:
        cur.execute("SELECT * FROM dcim_dcimconnection")
        row = cur.fetchone()
    assert TOKEN not in str(row) and TOKEN[:20] not in str(row)
    conn = DcimConnection.objects.get()
    assert conn.get_token() == TOKEN  # readable only through the key


def test_update_without_token_keeps_it_and_with_token_replaces_it(api, alice):
    pk = make_connection(api).json()["id"]
    assert api.patch(f"/api/v1/dcim/connections/{pk}/", {"site": "Hall B"}, format="json").status_code == 200
    assert DcimConnection.objects.get().get_token() == TOKEN
    new = "f" * 40
    assert api.patch(f"/api/v1/dcim/connections/{pk}/", {"token": new}, format="json").json()["token_hint"] == "…ffff"
    assert DcimConnection.objects.get().get_token() == new


@pytest.mark.parametrize(
    ("body", "field", "message"),
    [
        ({"token": ""}, "token", "may not be blank"),
        ({"token": "Token abc"}, "token", "no spaces"),
        ({"base_url": "ftp://x.example.org"}, "base_url", "http:// or https://"),
        ({"kind": "switchboard"}, "kind", "not a valid choice"),
        ({"kind": "netbox", "token": "not-a-token"}, "token", "not a NetBox token"),
        ({"kind": "netbox", "token_version": "v2"}, "token", "nbt_<key>.<token>"),
        ({"token_version": "v1"}, "token_version", "only NetBox tokens have versions"),
        ({"site": ""}, "site", "may not be blank"),
    ],
)
def test_bad_connection_is_a_400_naming_the_field(api, alice, body, field, message):
    res = make_connection(api, **body)
    assert res.status_code == 400
    assert message in " ".join(res.json()[field]), res.json()


def test_missing_token_and_duplicate_name_are_400s(api, alice):
    body = {"name": "N", "kind": "nautobot", "base_url": "https://n.example.org", "site": "Hall A"}
    assert api.post("/api/v1/dcim/connections/", body, format="json").json() == {"token": ["This field is required."]}
    assert make_connection(api).status_code == 201
    assert make_connection(api).json() == {"name": ["you already have a connection named 'Nautobot'"]}


def test_netbox_token_version_detected(api, alice):
    v2 = make_connection(api, name="nb2", kind="netbox", token="nbt_abc123.SeCrEt_value-1").json()
    assert v2["token_version_effective"] == "v2" and v2["token_version"] == ""
    v1 = make_connection(api, name="nb1", kind="netbox").json()
    assert v1["token_version_effective"] == "v1"


def test_connections_are_owner_only(api, alice, bob):
    pk = make_connection(api).json()["id"]
    api.force_authenticate(bob)
    assert api.get("/api/v1/dcim/connections/").json()["results"] == []
    for method in ("get", "patch", "delete"):
        assert getattr(api, method)(f"/api/v1/dcim/connections/{pk}/", {}, format="json").status_code == 404
    assert api.post(f"/api/v1/dcim/connections/{pk}/test/").status_code == 404
    api.force_authenticate(None)
    assert api.get("/api/v1/dcim/connections/").status_code == 401


def test_connection_test_reports_the_version_or_the_dcims_message(api, alice, fake):
    pk = make_connection(api).json()["id"]
    assert api.post(f"/api/v1/dcim/connections/{pk}/test/").json() == {
        "ok": True,
        "product": "Nautobot",
        "version": "3.2.0",
        "status": 200,
        "detail": "",
    }
    assert fake.requests[-1][1] == "status/" and fake.requests[-1][4]["Authorization"] == f"Token {TOKEN}"
    api.patch(f"/api/v1/dcim/connections/{pk}/", {"token": "e" * 40}, format="json")
    got = api.post(f"/api/v1/dcim/connections/{pk}/test/").json()
    assert got == {"ok": False, "product": "Nautobot", "version": "", "status": 403, "detail": "Invalid token"}


def _design(owner, name="Two bricks"):
    return services.design_create(owner=owner, name=name, spec=SPEC)


def test_push_job_flow_dry_run_then_push_then_nothing_to_do(api, alice, fake):
    design = _design(alice)
    conn = make_connection(api).json()["id"]
    res = api.post("/api/v1/dcim/pushes/", {"connection": conn, "design": design.pk, "dry_run": True}, format="json")
    assert res.status_code == 202, res.json()
    dry = res.json()
    assert dry["status"] == "done" and dry["error"] == "" and dry["design_version"] == design.version
    assert set(dry["summary"]) == {"create"} and dry["summary"]["create"] == len(dry["report"])
    assert dry["progress"]["done"] == dry["progress"]["total"] == len(dry["report"])
    assert fake.writes() == []
    pushed = api.post("/api/v1/dcim/pushes/", {"connection": conn, "design": design.pk, "dry_run": False}, format="json").json()
    assert pushed["status"] == "done", pushed["error"]
    assert set(pushed["summary"]) == {"created"} and pushed["summary"]["created"] == dry["summary"]["create"]
    devices = fake.all("dcim/devices/")
    assert devices and all(d["position"] or d["position"] is None for d in devices)
    again = api.post("/api/v1/dcim/pushes/", {"connection": conn, "design": design.pk, "dry_run": False}, format="json").json()
    assert set(again["summary"]) == {"unchanged"}
    got = api.get(again["status_url"]).json()
    assert got["id"] == again["id"] and got["report"] == again["report"]
    assert [p["id"] for p in api.get("/api/v1/dcim/pushes/").json()["results"]] == [again["id"], pushed["id"], dry["id"]]


def test_push_failure_is_the_dcims_message_on_the_job(api, alice, fake):
    design = _design(alice)
    conn = make_connection(api, site="Nowhere").json()["id"]
    job = api.post("/api/v1/dcim/pushes/", {"connection": conn, "design": design.pk, "dry_run": False}, format="json").json()
    assert job["status"] == "failed"
    assert job["error"] == "The push could not start: the location 'Nowhere' does not exist in the DCIM: create it there first"
    assert set(job["summary"]) == {"skipped"}


def test_push_request_400s_name_the_field(api, alice, bob, fake):
    mine = _design(alice)
    theirs = _design(bob, "Bob's")
    conn = make_connection(api).json()["id"]
    res = api.post("/api/v1/dcim/pushes/", {"connection": conn, "design": theirs.pk}, format="json")
    assert res.status_code == 400 and res.json() == {"design": ["no design you can read has this id"]}
    bobs_conn = DcimConnection.objects.create(owner=bob, name="b", kind="nautobot", base_url="https://b.example.org", site="x")
    res = api.post("/api/v1/dcim/pushes/", {"connection": bobs_conn.pk, "design": mine.pk}, format="json")
    assert res.status_code == 400 and res.json() == {"connection": ["no connection of yours has this id"]}
    res = api.post("/api/v1/dcim/pushes/", {"design": mine.pk, "dry_run": "maybe"}, format="json")
    assert set(res.json()) == {"dry_run"}  # a value of the wrong JSON type is named first
    res = api.post("/api/v1/dcim/pushes/", {"design": mine.pk}, format="json")
    assert res.json() == {"connection": ["This field is required."]}
    assert DcimPush.objects.count() == 0


def test_pushes_are_owner_only(api, alice, bob, fake):
    design = _design(alice)
    conn = make_connection(api).json()["id"]
    pk = api.post("/api/v1/dcim/pushes/", {"connection": conn, "design": design.pk}, format="json").json()["id"]
    api.force_authenticate(bob)
    assert api.get(f"/api/v1/dcim/pushes/{pk}/").status_code == 404
    assert api.get("/api/v1/dcim/pushes/").json()["results"] == []


def test_broker_down_is_a_503_with_the_job_kept_and_sent_when_polled(api, alice, fake, monkeypatch):
    from datetime import timedelta

    from django.utils import timezone

    from config.celery import app
    from dcim import tasks

    design = _design(alice)
    conn = make_connection(api).json()["id"]
    sent = []

    def apply_async(args=None, **kwargs):
        if not sent and kwargs.get("retry") is False and not getattr(apply_async, "up", False):
            raise ConnectionError("Error 111 connecting to 127.0.0.1:6379. Connection refused.")
        sent.append(args)

    monkeypatch.setattr(tasks.push_design, "apply_async", apply_async)
    eager = app.conf.task_always_eager
    app.conf.update(CELERY_TASK_ALWAYS_EAGER=False)
    try:
        res = api.post("/api/v1/dcim/pushes/", {"connection": conn, "design": design.pk, "dry_run": True}, format="json")
        assert res.status_code == 503 and res["Retry-After"]
        assert "task queue is unavailable" in res.json()["detail"]
        job = res.json()["job"]
        assert job["status"] == "queued" and job["status_url"].endswith(f"/api/v1/dcim/pushes/{job['id']}")
        assert DcimPush.objects.get().enqueued_at is None and sent == []
        apply_async.up = True
        DcimPush.objects.update(created_at=timezone.now() - timedelta(seconds=10))
        assert api.get(job["status_url"]).status_code == 200
        assert sent == [[job["id"]]] and DcimPush.objects.get().enqueued_at is not None
    finally:
        app.conf.update(CELERY_TASK_ALWAYS_EAGER=eager)


def test_a_design_changed_after_the_request_is_not_pushed(alice, fake):
    from dcim.push import push_run

    design = _design(alice)
    conn = DcimConnection(owner=alice, name="n", kind="nautobot", base_url="https://n.example.org", site="Hall A")
    conn.set_token(TOKEN)
    conn.save()
    push = DcimPush.objects.create(owner=alice, connection=conn, design=design, design_version=design.version - 0, dry_run=False)
    type(design).objects.filter(pk=design.pk).update(version=design.version + 1)
    done = push_run(push_id=push.pk)
    assert done.status == "failed" and "nothing was sent" in done.error
    assert fake.requests == []


def test_task_is_registered_and_routed_to_the_exports_queue():
    from config.celery import app

    app.loader.import_default_modules()  # what a worker does at start: the apps' tasks modules, dcim.tasks among them
    assert "dcim.tasks.push_design" in app.tasks
    assert app.amqp.router.route({}, "dcim.tasks.push_design")["queue"].name == "exports"


def test_json_types_are_kept_not_coerced(api, alice):
    res = make_connection(api, verify_tls=0, name=5)
    assert res.status_code == 400 and set(res.json()) == {"verify_tls", "name"}
    res = api.post("/api/v1/dcim/pushes/", {"connection": "1", "design": 1, "dry_run": 1}, format="json")
    assert res.status_code == 400 and set(res.json()) == {"connection", "dry_run"}


def test_allowed_hosts_limit_the_addresses_users_may_enter(api, alice, settings):
    settings.DCIM_ALLOWED_HOSTS = "nautobot.example.org, netbox.example.org"
    assert make_connection(api).status_code == 201
    res = make_connection(api, name="internal", base_url="http://169.254.169.254/")
    assert res.status_code == 400
    assert res.json()["base_url"] == ["this site only allows DCIMs at: nautobot.example.org, netbox.example.org (DCIM_ALLOWED_HOSTS)"]
