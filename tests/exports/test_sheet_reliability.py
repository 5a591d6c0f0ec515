"""The rack sheet states the rebuild time and the annual data-loss probability on one line."""

import io

import pytest
from pypdf import PdfReader

from planner.services import design_create, design_evaluation

pytestmark = pytest.mark.django_db
D = {"bricks": [{"template": "md3460-performance", "count": 8}], "metadata": {"placement": "none"}}


def test_rack_sheet_has_the_rebuild_and_risk_line(api, django_user_model, django_capture_on_commit_callbacks):
    owner = django_user_model.objects.create_user("rita", password="pw-rita-123456")
    design = design_create(owner=owner, name="Risky rack", spec=D)
    api.force_authenticate(owner)
    with django_capture_on_commit_callbacks(execute=True):
        response = api.post(f"/api/v1/designs/{design.id}/exports/", {"format": "pdf-a4"}, format="json")
    job = api.get(response.json()["status_url"]).json()
    assert job["status"] == "done", job
    pdf = b"".join(api.get(job["download_url"]).streaming_content)
    text = " ".join(" ".join(page.extract_text().split()) for page in PdfReader(io.BytesIO(pdf)).pages)
    rel = design_evaluation(design=design).as_dict()["reliability"]
    assert f"a failed disk rebuilds in {rel['rebuild_hours_max']:.1f} h" in text
    assert f"probability of data loss {rel['annual_loss_probability']:.1e} a year" in text
