"""Upload benchmark output, fit it, apply the profile to a design: the evaluation changes and says
which figures came from the calibration."""

from pathlib import Path

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile

pytestmark = pytest.mark.django_db
DATA = Path(__file__).parent / "data"
D = {"bricks": [{"template": "md3460-performance", "count": 8}], "metadata": {"placement": "none"}}


@pytest.fixture
def user(django_user_model):
    return django_user_model.objects.create_user("cal", password="pw-cal-123456")


@pytest.fixture
def authed(api, user):
    api.force_authenticate(user)
    return api


def _upload(api, ior_bricks=8, **files):
    body = {"name": "Site OSS sweep", "brick_template": "md3460-performance", "ior_bricks": ior_bricks}
    for field, name in files.items():
        body[field] = SimpleUploadedFile(name, (DATA / name).read_bytes())
    return api.post("/api/v1/calibrations/", body, format="multipart")


def test_upload_fit_apply_and_the_evaluation_changes(authed):
    response = _upload(authed, obdfilter="obdfilter_sweep.txt", ior="ior_330.txt")
    assert response.status_code == 201, response.content
    cal = response.json()
    # back end: the USL peak of the sweep (MiB/s -> GB/s); end to end: IOR best over 8 bricks
    assert 5.0 < cal["backend_write_gbps"] < 8.0 and 6.0 < cal["backend_read_gbps"] < 11.0
    assert cal["end_to_end_write_gbps"] == pytest.approx(8583.19 * 2**20 / 1e9 / 8)
    assert cal["efficiency_write"] == pytest.approx(cal["end_to_end_write_gbps"] / cal["backend_write_gbps"])
    assert cal["fit"]["write"]["recommended_threads"] in (24, 48, 96, 144, 192, 288, 384)
    assert len(cal["fit"]["write"]["points"]) >= 8 and cal["fit"]["write"]["r_squared"] > 0.95

    before = authed.post("/api/v1/evaluate/", D, format="json").json()
    after = authed.post("/api/v1/evaluate/", {**D, "calibration": cal["id"]}, format="json").json()
    assert before["read_gbps"] == pytest.approx(36.0)
    # the measured back end replaces the data-sheet stages behind the OSS (not a minimum with them),
    # so the calibrated bricks deliver what IOR measured per brick, capped only by the FDR network (6.0)
    expected_write = min(cal["backend_write_gbps"] * cal["efficiency_write"], 6.0) * 8
    assert expected_write == pytest.approx(min(cal["end_to_end_write_gbps"], 6.0) * 8)
    assert after["write_gbps"] == pytest.approx(expected_write, rel=0.01)
    assert after["write_gbps"] != pytest.approx(before["write_gbps"], rel=0.01)
    calibration = after["sources"]["calibration"]
    assert calibration["id"] == cal["id"] and calibration["applied_to"] == ["md3460-performance"]
    assert set(calibration["from_calibration"]) >= {"measured_backend_write", "software_efficiency_write"}
    # both operations' back ends were measured: they replace the data-sheet stages; the network is still the data sheets'
    assert "network" in calibration["from_data_sheets"] and not any(
        s.startswith("raid_controller") for s in calibration["from_data_sheets"]
    )
    brick = after["bricks"][0]
    assert "obdfilter-survey" in brick["sources"]["measured_backend_write"]
    assert brick["software_efficiency"]["write"] == pytest.approx(cal["efficiency_write"])
    assert any(s["stage"] == "measured_backend" for s in after["stages"])


def test_a_design_saved_with_a_calibration_evaluates_with_it(authed):
    cal = _upload(authed, obdfilter="obdfilter_sweep.txt").json()
    design = authed.post("/api/v1/designs/", {"name": "calibrated D", "spec": {**D, "calibration": cal["id"]}}, format="json").json()
    ev = authed.get(f"/api/v1/designs/{design['id']}/evaluation/").json()
    assert ev["sources"]["calibration"]["id"] == cal["id"]


def test_calibrations_are_private(api, authed, django_user_model):
    cal = _upload(authed, ior="ior_330.txt").json()
    other = django_user_model.objects.create_user("eve", password="pw-eve-123456")
    api.force_authenticate(other)
    assert api.get(f"/api/v1/calibrations/{cal['id']}/").status_code == 404
    body = api.post("/api/v1/evaluate/", {**D, "calibration": cal["id"]}, format="json").json()
    assert body["calibration"][0].startswith(f"no calibration #{cal['id']} of yours")
    api.force_authenticate(None)
    assert api.post("/api/v1/evaluate/", {**D, "calibration": cal["id"]}, format="json").status_code == 400
    assert api.get("/api/v1/calibrations/").status_code == 401


def test_ior_only_calibration_sets_the_back_end_from_the_tuning_efficiency(authed):
    cal = _upload(authed, ior="ior.json", ior_bricks=1).json()
    assert cal["backend_read_gbps"] is None and cal["efficiency_read"] is None
    ev = authed.post("/api/v1/evaluate/", {**D, "calibration": cal["id"]}, format="json").json()
    per_brick = cal["end_to_end_read_gbps"]
    assert ev["read_gbps"] == pytest.approx(min(per_brick, 4.5) * 8, rel=0.01)


@pytest.mark.parametrize(
    "files, field, message",
    [
        ({"obdfilter": "ior_330.txt"}, "obdfilter", "not obdfilter-survey"),
        ({"ior": "ior_broken.json"}, "ior", "ior_broken.json: line 4: broken JSON"),
        ({"ior": "not_a_benchmark.txt"}, "ior", "not obdfilter-survey or IOR output"),
        ({}, "files", "upload an obdfilter-survey output"),
    ],
)
def test_bad_uploads_are_refused_naming_the_file_and_the_line(authed, files, field, message):
    response = _upload(authed, **files)
    assert response.status_code == 400
    assert message in response.json()[field][0]


def test_too_few_thread_counts_are_explained(authed):
    text = "\n".join(f"ost 6 sz 1K rsz 1024K obj 6 thr {t} write {100 * t}.0 [ 1.0, 2.0] read {110 * t}.0 [ 1.0, 2.0]" for t in (6, 12))
    body = {"name": "short", "brick_template": "md3460-performance", "obdfilter": SimpleUploadedFile("short.txt", text.encode())}
    cal = authed.post("/api/v1/calibrations/", body, format="multipart").json()
    assert cal["fit"]["refused"][0].startswith("write: a fit needs results at 4 or more different thread counts")
    assert cal["backend_write_gbps"] == pytest.approx(1200 * 2**20 / 1e9)


def test_uploads_are_size_limited(authed):
    big = SimpleUploadedFile("huge.txt", b"ost 1 sz 1K rsz 1K obj 1 thr 1 write 1.0\n" * 40000)
    response = authed.post(
        "/api/v1/calibrations/", {"name": "x", "brick_template": "md3460-performance", "obdfilter": big}, format="multipart"
    )
    assert response.status_code == 400 and "the limit is 1048576 bytes" in response.json()["obdfilter"][0]


def test_calibration_pages_upload_show_the_fit_and_apply(client, user):
    client.force_login(user)
    page = client.get("/calibrations/").content.decode()
    assert 'enctype="multipart/form-data"' in page
    with (DATA / "obdfilter_sweep.txt").open("rb") as obd, (DATA / "ior_400.txt").open("rb") as ior:
        response = client.post(
            "/calibrations/",
            {"name": "From the page", "brick_template": "md3460-performance", "obdfilter": obd, "ior": ior, "ior_bricks": "4"},
        )
    assert response.status_code == 302
    detail = client.get(response["Location"]).content.decode()
    assert "From the page" in detail and "recommended OSS threads" in detail and 'id="fit-chart"' in detail
    assert "?calibration=" in detail
    bad = client.post("/calibrations/", {"name": "x", "brick_template": "md3460-performance"})
    assert bad.status_code == 400 and "upload an obdfilter-survey output" in bad.content.decode()


def test_ior_far_below_what_the_parts_deliver_is_refused_with_the_reason(authed):
    # 3.1 GB/s over 8 bricks is 0.39 GB/s per brick: under a tenth of the 4.5 GB/s the parts deliver
    response = _upload(authed, ior="ior.json", ior_bricks=8)
    assert response.status_code == 400
    assert "under a tenth of what the brick's parts deliver" in response.json()["ior"][0]
