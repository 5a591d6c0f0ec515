"""Calibrations measured on another number of OSTs, on other parts, or with flagged results: the
plausibility check is per OST, the back end is scaled per OST to the brick's OST count (and never above
the parts' data-sheet limits when scaled up), a line whose parts differ keeps its data sheets, and the
messages say what was done and why.

md3460-performance (catalogue): 6 OSTs of RAID6 8+2 on nl-sas-4tb, whose data sheet gives 175 MB/s at
the outer zone: one OST's disks move at most 8 x 175 MB/s = 1.40 GB/s; its controllers 5.0 GB/s, host
links 8.83 GB/s, FDR adapter 6.0 GB/s; the tuning profile's Lustre efficiency 0.9."""

from pathlib import Path

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile

from tests.helpers import evaluate_ok

pytestmark = pytest.mark.django_db
DATA = Path(__file__).parent / "data"
SAMPLES = Path(__file__).resolve().parents[3] / "shared" / "samples"
MIB = 2**20
TWO = {"bricks": [{"template": "md3460-performance", "count": 2}], "metadata": {"placement": "none"}}


@pytest.fixture
def authed(api, django_user_model):
    api.force_authenticate(django_user_model.objects.create_user("perost", password="pw-perost-12345"))
    return api


def _upload(api, ior_bricks=None, **files):
    body = {"name": "per OST", "brick_template": "md3460-performance"}
    if ior_bricks:
        body["ior_bricks"] = ior_bricks
    for field, (name, text) in files.items():
        body[field] = SimpleUploadedFile(name, text.encode())
    return api.post("/api/v1/calibrations/", body, format="multipart")


def _case(osts, thr, write=None, read=None, obj=None, write_flag="[ 1.00, 2.00]", read_flag="[ 1.00, 2.00]"):
    line = f"ost {osts:2d} sz 16777216K rsz 1024K obj {obj or osts:4d} thr {thr:4d}"
    if write is not None:
        line += f" write {write:.2f} {write_flag}"
    if read is not None:
        line += f" read {read:.2f} {read_flag}"
    return line


def _gbps(mibps):
    return mibps * MIB / 1e9


# ---------------------------------------------------------------- A: per OST


def test_one_ost_reading_faster_than_its_disks_is_refused_naming_the_per_ost_ceiling(authed):
    # sample obdfilter-survey/02's read (8088.39 MiB/s = 8.48 GB/s) on 1 OST, without its SHORT flag: per brick it
    # looked possible (the brick's 6 OSTs reach 8.40), per OST it is 6x what 8 NL-SAS data disks can move
    text = _case(1, 8, write=1000.0, read=8088.39)
    response = _upload(authed, obdfilter=("one_ost.txt", text))
    assert response.status_code == 201, response.content
    cal = response.json()
    assert cal["backend_read_gbps"] is None
    [refusal] = cal["refusals"]
    assert refusal.startswith("obdfilter-survey read: 8.48 GB/s on 1 OST is 6.1x what 1 OST of this brick can physically deliver")
    assert "1.40 GB/s per OST, 8 data disks x 175 MB/s at their outer zone" in refusal
    assert "cannot read that fast" in refusal


def test_a_figure_scaled_up_from_fewer_osts_stays_under_the_parts_data_sheet_limit(authed):
    # 1 OST writing 1000 MiB/s = 1.05 GB/s: x 6 OSTs would be 6.29 GB/s, over the controllers' 5.0 a single OST
    # never loaded; the back end is kept at 5.0, so the prediction cannot rise over the uncalibrated one
    cal = _upload(authed, obdfilter=("one_ost.txt", _case(1, 8, write=1000.0))).json()
    assert cal["backend_write_gbps"] == pytest.approx(5.0)
    assert cal["backend_osts"] == 1
    note = next(n for n in cal["notes"] if n.startswith("obdfilter-survey write: measured 1.05 GB/s on 1 OST"))
    assert "the brick has 6 OSTs" in note and "6 x 1.049 = 6.29 GB/s" in note
    assert "an assumption" in note and "so 5.00 GB/s is used" in note
    assert cal["fit"]["backend_from"]["write"]["capped_at_gbps"] == pytest.approx(5.0)
    before, after = evaluate_ok(authed, TWO), evaluate_ok(authed, TWO, cal["id"])
    assert after["write_gbps"] <= before["write_gbps"] + 1e-9
    source = after["bricks"][0]["sources"]["measured_backend_write"]
    assert "on 1 OSTs" in source and "scaled per OST (linear, an assumption) to the brick's 6 OSTs: 6.29 GB/s" in source
    assert "kept at the parts' data-sheet limit 5.00 GB/s" in source


def test_a_slow_ost_scales_up_linearly_under_the_limit(authed):
    # 1 OST at 500 MiB/s = 0.524 GB/s: 6 OSTs give 3.15 GB/s, under the 5.0 limit; x 0.9 efficiency per brick
    cal = _upload(authed, obdfilter=("slow_ost.txt", _case(1, 8, write=500.0))).json()
    assert cal["backend_write_gbps"] == pytest.approx(6 * _gbps(500.0))
    after = evaluate_ok(authed, TWO, cal["id"])
    assert after["write_gbps"] == pytest.approx(2 * 6 * _gbps(500.0) * 0.9, rel=0.01)


def test_a_survey_of_more_osts_than_the_brick_is_scaled_down_per_ost(authed):
    # sample obdfilter-survey/01's write: 10982.73 MiB/s = 11.52 GB/s on 10 OSTs: 1.152 GB/s per OST, 6.91 GB/s for 6
    cal = _upload(authed, obdfilter=("ten.txt", _case(10, 10, write=10982.73, read=12358.60))).json()
    assert cal["refusals"] == []  # per OST both are under the disks' 1.40 GB/s (reads 1.30)
    assert cal["backend_write_gbps"] == pytest.approx(_gbps(10982.73) * 6 / 10)
    assert cal["backend_read_gbps"] == pytest.approx(_gbps(12358.60) * 6 / 10)
    assert cal["backend_osts"] == 10
    assert any("measured 11.52 GB/s on 10 OSTs (1.152 GB/s per OST)" in n and "6 x 1.152 = 6.91 GB/s" in n for n in cal["notes"])


def test_ten_osts_are_checked_against_ten_osts_worth_of_the_parts(authed):
    # 10 OSTs at 17000 MiB/s = 17.8 GB/s: 1.27x the 14.0 GB/s of ten OSTs' disks, a note (per brick it was 2.1x: refused)
    cal = _upload(authed, obdfilter=("ten.txt", _case(10, 10, write=17000.0))).json()
    assert cal["backend_write_gbps"] == pytest.approx(_gbps(17000.0) * 0.6)
    assert any(
        n.startswith("obdfilter-survey write: 17.83 GB/s on 10 OSTs is 1.27x") and "(14.00 GB/s: 1.40 GB/s per OST" in n
        for n in cal["notes"]
    )


def test_the_nearest_measured_ost_count_is_used_the_larger_on_a_tie(authed):
    text = "\n".join([_case(2, 16, write=2000.0), _case(8, 64, write=6000.0)])
    cal = _upload(authed, obdfilter=("two_counts.txt", text)).json()
    assert cal["backend_osts"] == 8 and cal["backend_write_gbps"] == pytest.approx(_gbps(6000.0) * 6 / 8)
    tie = "\n".join([_case(4, 16, write=3000.0), _case(8, 64, write=6000.0)])
    cal = _upload(authed, obdfilter=("tie.txt", tie)).json()
    assert cal["fit"]["backend_from"]["write"]["osts_measured"] == 8


# ---------------------------------------------------------------- C: messages


def test_a_slow_survey_gets_a_hint_about_the_survey_not_clients_or_network(authed):
    # 6 OSTs, 6 threads (1 per OST): 2000 MiB/s = 2.10 GB/s, 0.42 of the model's 5.0
    cal = _upload(authed, obdfilter=("slow.txt", _case(6, 6, write=2000.0))).json()
    note = next(n for n in cal["notes"] if n.startswith("obdfilter-survey write: 2.10 GB/s per brick is 0.42"))
    assert "no clients and no network" in note and "1 thread per OST" in note
    assert "check whether the clients or the network" not in note


def test_a_fast_write_note_speaks_of_writes(authed):
    # 6 OSTs writing 9.5 GB/s: 1.13x their disks' 8.40 GB/s, noted
    cal = _upload(authed, obdfilter=("fast.txt", _case(6, 48, write=9.5e9 / MIB))).json()
    note = next(n for n in cal["notes"] if n.startswith("obdfilter-survey write: 9.50 GB/s on 6 OSTs is 1.13x"))
    assert "write-back cache" in note and "reads" not in note


def test_ior_bricks_is_null_without_ior(authed, api):
    obd = _upload(authed, obdfilter=("obdfilter_sweep.txt", (DATA / "obdfilter_sweep.txt").read_text())).json()
    assert obd["ior_bricks"] is None
    assert authed.get(f"/api/v1/calibrations/{obd['id']}/").json()["ior_bricks"] is None
    ior = _upload(authed, ior_bricks=8, ior=("ior_330.txt", (DATA / "ior_330.txt").read_text())).json()
    assert ior["ior_bricks"] == 8
    schema = api.get("/api/schema/", {"format": "json"}).json()
    field = schema["components"]["schemas"]["Calibration"]["properties"]["ior_bricks"]
    assert field["type"] == "integer" and field.get("nullable") is True and field.get("readOnly") is True


def test_short_and_error_results_are_left_out_with_a_note(authed):
    text = "\n".join(
        [_case(6, 12 * k, write=1000.0 * k, read=1100.0 * k) for k in (1, 2, 4, 8)]
        + [_case(6, 192, write=9000.0, write_flag="SHORT", read=9500.0, read_flag="ERROR")]
    )
    cal = _upload(authed, obdfilter=("flagged.txt", text)).json()
    assert all(p[0] != 192 for p in cal["fit"]["write"]["points"])
    assert cal["backend_write_gbps"] <= _gbps(8000.0) * 1.05
    assert any(n.startswith("obdfilter-survey write: 1 result flagged SHORT (line 5) left out") for n in cal["notes"])
    assert any(n.startswith("obdfilter-survey read: 1 result flagged ERROR (line 5) left out") for n in cal["notes"])


def test_only_flagged_results_are_refused(authed):
    response = _upload(authed, obdfilter=("short.txt", _case(6, 48, write=5000.0, write_flag="SHORT")))
    assert response.status_code == 400
    assert response.json()["obdfilter"][0].startswith("obdfilter-survey write: 1 result flagged SHORT (line 1) left out")


# ---------------------------------------------------------------- D: IOR small enough for the clients' cache


def test_an_ior_run_of_under_a_gib_per_task_gets_a_note(authed):
    text = (DATA / "ior_330.txt").read_text().replace("-b 16g", "-b 200m").replace(" 17179869184 ", " 209715200 ")
    cal = _upload(authed, ior_bricks=8, ior=("small.txt", text)).json()
    note = next(n for n in cal["notes"] if n.startswith("IOR: 2 result(s) moved less than 1 GiB per task"))
    assert "64 task(s) x 200 MiB = 12800 MiB" in note and "assumption" in note
    big = _upload(authed, ior_bricks=8, ior=("ior_330.txt", (DATA / "ior_330.txt").read_text())).json()
    assert not any("less than 1 GiB per task" in n for n in big["notes"])


# ---------------------------------------------------------------- the real samples, when the checkout has them


@pytest.mark.skipif(not SAMPLES.is_dir(), reason="../shared/samples is not in this checkout")
def test_the_real_samples(authed):
    obd = SAMPLES / "obdfilter-survey"
    one = _upload(authed, obdfilter=("01.txt", (obd / "01_lustre_manual_example.txt").read_text())).json()
    assert one["backend_write_gbps"] == pytest.approx(_gbps(10982.73) * 0.6) and one["ior_bricks"] is None
    two = _upload(authed, obdfilter=("02.txt", (obd / "02_lu12168_commit_short.txt").read_text()))
    assert two.status_code == 400
    reasons = " ".join(two.json()["obdfilter"])
    assert "flagged SHORT" in reasons and "3.84 GB/s on 1 OST is 2.7x" in reasons and "1.40 GB/s per OST" in reasons
    three = _upload(authed, obdfilter=("03.txt", (obd / "03_readme_format_example.txt").read_text()))
    assert three.status_code == 400 and "no clients and no network" in three.json()["obdfilter"][0]
    ior = _upload(authed, ior_bricks=1, ior=("01.txt", (SAMPLES / "ior" / "01_akrr_v33_stampede2_lustre_ior330.txt").read_text()))
    assert any("2 task(s) x 200 MiB = 400 MiB" in n for n in ior.json()["notes"])
    # Polaris: five write iterations from 14,929 to 215,800 MiB/s (mean 145,953): the best is kept, with a note
    polaris = _upload(
        authed, ior_bricks=40, ior=("03.txt", (SAMPLES / "ior" / "03_radixio_polaris_lustre_ior400rc1_fpp64.txt").read_text())
    )
    spread = [n for n in polaris.json()["notes"] if "best iteration" in n]
    assert len(spread) == 1 and "IOR write" in spread[0] and "1.48x the mean" in spread[0], polaris.json()["notes"]
