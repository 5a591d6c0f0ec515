"""The plan pages: sign-in required, a new plan from the list page, others' plans 404, no inline scripts."""

import re

import pytest

pytestmark = pytest.mark.django_db


def test_plan_pages_need_sign_in_and_hide_others_plans(client, django_user_model):
    assert client.get("/plans/").status_code == 302
    ann = django_user_model.objects.create_user("ann", password="pw-ann-123456")
    bob = django_user_model.objects.create_user("bob", password="pw-bob-123456")
    client.force_login(ann)
    response = client.post("/plans/", {"name": "Quarry plan"})
    assert response.status_code == 302
    plan_url = response["Location"]
    page = client.get(plan_url)
    assert page.status_code == 200
    html = page.content.decode()
    assert 'id="plan-initial"' in html and "frontend/js/plan" in html and 'id="sheet-link"' in html
    assert not re.search(r"<script(?![^>]*\bsrc=)(?![^>]*application/json)[^>]*>", html)  # only json_script and files
    assert "Quarry plan" in client.get("/plans/").content.decode()
    assert 'href="/plans/"' in html  # in the site navigation
    client.force_login(bob)
    assert client.get(plan_url).status_code == 404
    assert "Quarry plan" not in client.get("/plans/").content.decode()
