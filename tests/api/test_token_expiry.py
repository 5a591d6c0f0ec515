"""Token expiry: an optional moment set at creation (API and tokens page), shown back, and refused with a 401
that says the token expired."""

import re
from datetime import UTC, datetime, timedelta

import pytest
from django.utils import timezone
from rest_framework.test import APIClient

from planner.models import ApiToken
from planner.services import token_create

pytestmark = pytest.mark.django_db


@pytest.fixture
def user(django_user_model):
    return django_user_model.objects.create_user("eva", password="pw-eva-123456")


def _with_key(key: str) -> APIClient:
    client = APIClient()
    client.credentials(HTTP_AUTHORIZATION=f"Token {key}")
    return client


def test_api_creates_a_token_with_an_expiry_and_shows_it(api, user):
    api.force_authenticate(user)
    when = (timezone.now() + timedelta(days=30)).replace(microsecond=0)
    created = api.post("/api/v1/tokens/", {"name": "quarterly quote", "expires_at": when.isoformat()}, format="json")
    assert created.status_code == 201, created.json()
    body = created.json()
    assert datetime.fromisoformat(body["expires_at"].replace("Z", "+00:00")) == when
    assert body["active"] is True and body["expired"] is False
    assert ApiToken.objects.get(pk=body["id"]).expires_at == when
    listed = api.get("/api/v1/tokens/").json()["results"][0]
    assert listed["expires_at"] == body["expires_at"]
    assert _with_key(body["key"]).get("/api/v1/designs/").status_code == 200


def test_api_token_without_expiry_never_expires(api, user):
    api.force_authenticate(user)
    body = api.post("/api/v1/tokens/", {"name": "forever"}, format="json").json()
    assert body["expires_at"] is None and body["expired"] is False


@pytest.mark.parametrize(
    "value, message",
    [
        ("2001-01-01T00:00:00Z", "must be in the future"),
        ("not a date", "Datetime has wrong format"),
        (12, "Datetime has wrong format"),
    ],
)
def test_api_refuses_a_bad_expiry_naming_the_field(api, user, value, message):
    api.force_authenticate(user)
    response = api.post("/api/v1/tokens/", {"name": "t", "expires_at": value}, format="json")
    assert response.status_code == 400
    assert message in response.json()["expires_at"][0]
    assert ApiToken.objects.count() == 0


def test_an_expired_token_is_refused_with_401_saying_it_expired(user):
    token, key = token_create(user=user, name="short-lived", expires_at=timezone.now() + timedelta(hours=1))
    client = _with_key(key)
    assert client.get("/api/v1/designs/").status_code == 200
    ApiToken.objects.filter(pk=token.pk).update(expires_at=datetime(2026, 1, 2, 3, 4, tzinfo=UTC))
    response = client.get("/api/v1/designs/")
    assert response.status_code == 401
    assert response["WWW-Authenticate"] == "Token"
    detail = response.json()["detail"]
    assert "expired" in detail and "2026-01-02 03:04 UTC" in detail
    token.refresh_from_db()
    assert token.expired and not token.active


def test_expired_tokens_do_not_count_towards_the_limit(user):
    from planner.services.tokens import MAX_ACTIVE_TOKENS, active_tokens

    for i in range(MAX_ACTIVE_TOKENS):
        token_create(user=user, name=f"t{i}", expires_at=timezone.now() + timedelta(days=1))
    ApiToken.objects.filter(user=user).update(expires_at=timezone.now() - timedelta(seconds=1))
    assert active_tokens(user).count() == 0
    token_create(user=user, name="one more")


def test_tokens_page_sets_and_shows_an_expiry_date(client, user):
    client.force_login(user)
    day = (datetime.now(UTC) + timedelta(days=10)).date()
    page = client.post("/tokens/", {"name": "procurement script", "expires_on": day.isoformat()})
    assert page.status_code == 201
    token = ApiToken.objects.get(user=user)
    assert token.expires_at == datetime(day.year, day.month, day.day, tzinfo=UTC)
    html = client.get("/tokens/").content.decode()
    assert f"{day.isoformat()} 00:00" in html
    assert 'name="expires_on" type="date"' in html


@pytest.mark.parametrize("value", ["yesterday", "2001-02-03", "2026-13-40"])
def test_tokens_page_refuses_a_bad_or_past_date_with_a_message(client, user, value):
    client.force_login(user)
    page = client.post("/tokens/", {"name": "t", "expires_on": value}).content.decode()
    assert re.search(r"expiry (date must be after today|as a date)", page)
    assert ApiToken.objects.count() == 0


def test_tokens_page_shows_expired_tokens_as_expired(client, user):
    token, _ = token_create(user=user, name="old script")
    ApiToken.objects.filter(pk=token.pk).update(expires_at=timezone.now() - timedelta(days=1))
    client.force_login(user)
    row = re.search(rf'<tr data-token="{token.id}">(.*?)</tr>', client.get("/tokens/").content.decode(), re.S).group(1)
    assert "expired" in row and "Revoke" not in row
