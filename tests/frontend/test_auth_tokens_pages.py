"""Sign in with a session; manage API tokens in the browser (create shows the key once, revoke works)."""

import re

import pytest
from django.core.management import call_command

from planner.models import ApiToken

pytestmark = pytest.mark.django_db


@pytest.fixture
def user(django_user_model):
    return django_user_model.objects.create_user("ida", password="pw-ida-123456")


def test_sign_in_and_out(client, user):
    assert "Sign in" in client.get("/").content.decode()
    response = client.post("/accounts/login/", {"username": "ida", "password": "pw-ida-123456"})
    assert response.status_code == 302
    assert "Sign out ida" in client.get("/").content.decode()
    bad = client.post("/accounts/login/", {"username": "ida", "password": "wrong"})
    assert bad.status_code == 200 and "error" in bad.content.decode()
    client.post("/accounts/logout/")
    assert "Sign in" in client.get("/").content.decode()


def test_tokens_page_needs_sign_in(client):
    response = client.get("/tokens/")
    assert response.status_code == 302 and "/accounts/login/" in response["Location"]


def test_create_use_and_revoke_a_token_in_the_browser(client, user):
    client.force_login(user)
    page = client.post("/tokens/", {"name": "procurement script"})
    assert page.status_code == 201
    key = re.search(r'<code id="new-key" class="key">([^<]+)</code>', page.content.decode()).group(1)
    token = ApiToken.objects.get(user=user)
    assert token.prefix == key[:10] and token.key_hash != key
    assert key not in client.get("/tokens/").content.decode()  # shown once
    from rest_framework.test import APIClient

    api = APIClient()
    api.credentials(HTTP_AUTHORIZATION=f"Token {key}")
    assert api.get("/api/v1/designs/").status_code == 200
    client.post(f"/tokens/{token.id}/revoke/")
    assert "revoked" in client.get("/tokens/").content.decode()
    assert api.get("/api/v1/designs/").status_code == 401


def test_a_token_without_a_name_is_refused_with_a_message(client, user):
    client.force_login(user)
    page = client.post("/tokens/", {"name": "  "}).content.decode()
    assert "Give the token a name" in page
    assert ApiToken.objects.count() == 0


def test_another_users_token_cannot_be_revoked(client, user, django_user_model):
    other = django_user_model.objects.create_user("jon", password="pw-jon-123456")
    from planner.services import token_create

    token, _ = token_create(user=other, name="theirs")
    client.force_login(user)
    assert client.post(f"/tokens/{token.id}/revoke/").status_code == 404
    assert ApiToken.objects.get(pk=token.pk).active


def test_management_command_prints_a_working_key(user, capsys):
    call_command("create_api_token", "ida", "nightly quote")
    key = capsys.readouterr().out.strip()
    assert key.startswith("srp_") and ApiToken.objects.filter(user=user, name="nightly quote").exists()
