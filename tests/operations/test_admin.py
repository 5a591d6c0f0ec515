"""Admin: a staff user opens the changelist and change page of every planner model; token hashes stay hidden."""

import pytest
from django.contrib.auth import get_user_model
from django.contrib.auth.models import Permission
from django.urls import reverse

from planner import services
from planner.models import ApiToken, Calibration, Design, ExportJob, SolveJob


@pytest.fixture
def rows(db):
    owner = get_user_model().objects.create_user("owner-admin", password="x" * 12)
    design = Design.objects.create(
        owner=owner, name="Rack D", spec={"bricks": [{"template": "t", "count": 1}]}, share_token="s3cret-link-token"
    )
    token, key = services.token_create(user=owner, name="procurement script")
    return {
        "design": design,
        "exportjob": ExportJob.objects.create(design=design, design_version=1, format="csv", error="disk full"),
        "solvejob": SolveJob.objects.create(owner=owner, request={"targets": {"usable_pib": 1}}, result={"designs": []}),
        "calibration": Calibration.objects.create(owner=owner, name="site sweep", brick_template="md3460-performance", fit={"a": 1}),
        "apitoken": token,
        "key": key,
    }


@pytest.fixture
def staff(client, db):
    user = get_user_model().objects.create_user("staff-admin", password="x" * 12, is_staff=True)
    user.user_permissions.set(Permission.objects.filter(content_type__app_label="planner"))
    client.force_login(user)
    return client


@pytest.mark.parametrize("model", ["design", "exportjob", "solvejob", "calibration", "apitoken"])
def test_staff_open_changelist_and_change_page(staff, rows, model):
    changelist = staff.get(reverse(f"admin:planner_{model}_changelist"))
    assert changelist.status_code == 200
    change = staff.get(reverse(f"admin:planner_{model}_change", args=[rows[model].pk]))
    assert change.status_code == 200
    searched = staff.get(reverse(f"admin:planner_{model}_changelist"), {"q": "x"})
    assert searched.status_code == 200


def test_a_token_key_and_its_hash_are_never_shown(staff, rows):
    token = rows["apitoken"]
    for url in (reverse("admin:planner_apitoken_changelist"), reverse("admin:planner_apitoken_change", args=[token.pk])):
        body = staff.get(url).content.decode()
        assert token.prefix in body
        assert rows["key"] not in body and token.key_hash not in body


def test_a_design_share_link_token_is_not_shown(staff, rows):
    body = staff.get(reverse("admin:planner_design_change", args=[rows["design"].pk])).content.decode()
    assert "s3cret-link-token" not in body


def test_staff_can_revoke_tokens_from_the_list(staff, rows):
    token = rows["apitoken"]
    response = staff.post(reverse("admin:planner_apitoken_changelist"), {"action": "revoke", "_selected_action": [token.pk]})
    assert response.status_code == 302
    token.refresh_from_db()
    assert token.revoked_at is not None


def test_computed_figures_are_read_only(staff, rows):
    job = rows["exportjob"]
    staff.post(reverse("admin:planner_exportjob_change", args=[job.pk]), {"status": "done", "error": ""})
    job.refresh_from_db()
    assert job.status == "queued" and job.error == "disk full"
    calibration = rows["calibration"]
    staff.post(reverse("admin:planner_calibration_change", args=[calibration.pk]), {"name": "renamed", "brick_template": "other"})
    calibration.refresh_from_db()
    assert calibration.name == "renamed" and calibration.brick_template == "md3460-performance"


def test_non_staff_are_sent_to_sign_in(client, rows):
    user = get_user_model().objects.create_user("plain", password="x" * 12)
    client.force_login(user)
    assert client.get(reverse("admin:planner_design_changelist")).status_code == 302


def test_no_admin_page_adds_rows_by_hand(staff, rows):
    for model in ("design", "exportjob", "solvejob", "calibration", "apitoken"):
        assert staff.get(reverse(f"admin:planner_{model}_add")).status_code == 403
    assert ApiToken.objects.count() == 1
