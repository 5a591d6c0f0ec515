"""The "Send to DCIM" page: signed-in only, the user's own connections, the designer's link to it, no inline script."""

import re

import pytest
from django.contrib.auth import get_user_model
from django.test import Client

from dcim.models import DcimConnection
from planner import services

pytestmark = pytest.mark.django_db
SPEC = {"bricks": [{"template": "md3460-performance", "count": 2}], "metadata": {"placement": "none"}}


@pytest.fixture
def users():
    make = get_user_model().objects.create_user
    return make("alice", password="pw-alice-123"), make("bob", password="pw-bob-123")


def test_page_needs_sign_in():
    res = Client().get("/dcim/send/")
    assert res.status_code == 302 and "/login" in res["Location"]


def test_page_lists_own_connections_and_chosen_design_without_tokens(users):
    alice, bob = users
    mine = DcimConnection(owner=alice, name="Alice's Nautobot", kind="nautobot", base_url="https://n.example.org", site="Hall A")
    mine.set_token("a" * 36 + "9z9z")
    mine.save()
    DcimConnection.objects.create(owner=bob, name="Bob's NetBox", kind="netbox", base_url="https://b.example.org", site="B")
    design = services.design_create(owner=alice, name="Rack D", spec=SPEC)
    theirs = services.design_create(owner=bob, name="Bob's rack", spec=SPEC)
    client = Client()
    client.force_login(alice)
    html = client.get(f"/dcim/send/?design={design.pk}").content.decode()
    assert "Alice&#x27;s Nautobot" in html and "Bob&#x27;s NetBox" not in html
    assert f'<option value="{design.pk}" selected>Rack D (v1)</option>' in html
    assert "Bob&#x27;s rack" not in html
    assert "a" * 36 not in html and "9z9z" not in html
    assert re.findall(r"<script(?![^>]*\bsrc=)[^>]*>", html) == []  # CSP: no inline script
    assert 'src="/static/dcim/push.js"' in html
    html = client.get(f"/dcim/send/?design={theirs.pk}").content.decode()
    assert "That design does not exist or is not shared with you." in html


def test_designer_links_to_the_page_with_its_design(users):
    alice, _ = users
    design = services.design_create(owner=alice, name="Rack D", spec=SPEC)
    client = Client()
    client.force_login(alice)
    html = client.get(f"/designer/?design={design.pk}").content.decode()
    assert f'href="/dcim/send/?design={design.pk}"' in html


def test_admin_shows_only_the_last_four_characters(users):
    alice, _ = users
    staff = get_user_model().objects.create_superuser("root", password="pw-root-123")
    conn = DcimConnection(owner=alice, name="N", kind="nautobot", base_url="https://n.example.org", site="Hall A")
    conn.set_token("b" * 36 + "7y7y")
    conn.save()
    client = Client()
    client.force_login(staff)
    html = client.get(f"/admin/dcim/dcimconnection/{conn.pk}/change/").content.decode()
    assert "…7y7y" in html and "b" * 36 not in html and conn.token_encrypted not in html
    listing = client.get("/admin/dcim/dcimconnection/").content.decode()
    assert "…7y7y" in listing and "b" * 36 not in listing
    res = client.post(
        f"/admin/dcim/dcimconnection/{conn.pk}/change/",
        {
            "owner": alice.pk,
            "name": "N",
            "kind": "nautobot",
            "base_url": "https://n.example.org",
            "token_version": "",
            "site": "Hall A",
            "tenant": "",
            "verify_tls": "on",
            "new_token": "c" * 40,
        },
    )
    assert res.status_code == 302
    conn.refresh_from_db()
    assert conn.get_token() == "c" * 40 and conn.token_last4 == "cccc"
