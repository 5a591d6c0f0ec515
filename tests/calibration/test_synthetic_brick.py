"""A synthetic brick whose true figures are known: its obdfilter-survey sweep (USL over threads, at
three object counts) and its IOR sweep over client nodes are written as the tools print them,
uploaded, fitted and applied; the design's prediction must equal the truth within 3 %, at the peak
and at a smaller client count. Write-only data must never give a 500 anywhere."""

import numpy as np
import pytest
from django.core.files.uploadedfile import SimpleUploadedFile

from planner.engine.calibration import usl

pytestmark = pytest.mark.django_db

MIB = 2**20
# the truth: back end behind one OSS (GB/s over threads) and the end to end over client nodes on 4 bricks
BACK = {"write": (0.11, 0.02, 0.00003), "read": (0.12, 0.02, 0.00003)}  # lam, sigma, kappa
IOR_BRICKS = 4
EFFICIENCY = 0.85
THREADS = (12, 24, 48, 96, 144, 192, 288)
NODES = (1, 2, 4, 8, 16, 32, 64, 96)


def _back_peak(op):
    lam, sigma, kappa = BACK[op]
    n = np.sqrt((1 - sigma) / kappa)
    return float(usl(n, lam, sigma, kappa))


def _client_curve(op):
    """IOR over client nodes against IOR_BRICKS bricks: rises to EFFICIENCY x back end per brick."""
    peak = EFFICIENCY * _back_peak(op) * IOR_BRICKS
    sigma, kappa = 0.03, 0.0004
    n_star = np.sqrt((1 - sigma) / kappa)
    lam = peak / float(usl(n_star, 1.0, sigma, kappa))
    return lam, sigma, kappa


def _obdfilter_text(rng):
    lines = ["Sat Nov 21 10:00:00 UTC 2026 Obdfilter-survey for case=disk from oss01"]
    for thr in THREADS:
        for obj in (6, 12, 24):
            w = usl(thr, *BACK["write"]) * (1 + rng.normal(0, 0.01))
            r = usl(thr, *BACK["read"]) * (1 + rng.normal(0, 0.01))
            lines.append(
                f"ost  6 sz 201326592K rsz 1024K obj {obj:4d} thr {thr:4d} write {w * 1e9 / MIB:9.2f} [ 80.00, 120.00] "
                f"rewrite {w * 1e9 / MIB:9.2f} [ 80.00, 120.00] read {r * 1e9 / MIB:9.2f} [ 90.00, 130.00] "
            )
    return "\n".join(lines) + "\n"


HEADER = (
    "Operation   Max(MiB)   Min(MiB)  Mean(MiB)     StdDev   Max(OPs)   Min(OPs)  Mean(OPs)     StdDev    Mean(s) Stonewall(s) "
    "Stonewall(MiB) Test# #Tasks tPN reps fPP reord reordoff reordrand seed segcnt   blksiz    xsize aggs(MiB)   API RefNum"
)


def _ior_text(rng, ops=("write", "read")):
    out = []
    for nodes in NODES:
        tasks = nodes * 16
        out += [
            "IOR-3.3.0: MPI Coordinated Test of Parallel I/O",
            f"Command line        : ior -w -r -C -F -t 1m -b 16g -i 3 -o /lustre/scratch/ior/fpp -N {tasks}",
            "Path                : /lustre/scratch/ior",
            "FS                  : 1200.0 TiB   Used FS: 10.0%   Inodes: 1000.0 Mi   Used Inodes: 0.1%",
            "Options: ",
            "api                 : POSIX",
            "access              : file-per-process",
            f"nodes               : {nodes}",
            f"tasks               : {tasks}",
            "clients per node    : 16",
            "",
            "Summary of all tests:",
            HEADER,
        ]
        for op in ops:
            x = usl(nodes, *_client_curve(op)) * (1 + rng.normal(0, 0.01))
            mib = x * 1e9 / MIB
            out.append(
                f"{op:<9} {mib:10.2f} {mib * 0.97:10.2f} {mib * 0.98:10.2f} {mib * 0.01:10.2f} {mib:10.2f} {mib * 0.97:10.2f} "
                f"{mib * 0.98:10.2f} {mib * 0.01:10.2f} {10.0:10.5f}         NA            NA     0 {tasks:6d} {16:3d}    3   1     1        1         0    0      1 17179869184  1048576  {tasks * 16384.0:.1f} POSIX      0"
            )
        out.append("Finished            : Sat Nov 21 11:00:00 2026")
        out.append("")
    return "\n".join(out)


@pytest.fixture
def authed(api, django_user_model):
    api.force_authenticate(django_user_model.objects.create_user("synthetic", password="pw-syn-123456"))
    return api


def _upload(api, **files):
    body = {"name": "Synthetic brick", "brick_template": "md3460-performance", "ior_bricks": IOR_BRICKS}
    for field, (name, text) in files.items():
        body[field] = SimpleUploadedFile(name, text.encode())
    return api.post("/api/v1/calibrations/", body, format="multipart")


def _design(cal_id, clients):
    return {
        "bricks": [{"template": "md3460-performance", "count": 8}],
        "metadata": {"placement": "none"},
        "failover": "none",
        "calibration": cal_id,
        "clients": {"count": clients, "adapter": "ib-edr"},
    }


def test_a_synthetic_brick_is_predicted_within_3_percent_at_the_peak_and_at_fewer_clients(authed):
    rng = np.random.default_rng(11)
    response = _upload(authed, obdfilter=("obdfilter.txt", _obdfilter_text(rng)), ior=("ior.txt", _ior_text(rng)))
    assert response.status_code == 201, response.content
    cal = response.json()
    assert cal["refusals"] == []
    for op in ("write", "read"):
        assert cal[f"backend_{op}_gbps"] == pytest.approx(_back_peak(op), rel=0.03)
        assert cal[f"efficiency_{op}"] == pytest.approx(EFFICIENCY, rel=0.03)
        assert cal["fit"]["clients"][op]["peak_gbps"] == pytest.approx(EFFICIENCY * _back_peak(op) * IOR_BRICKS, rel=0.03)
    assert set(cal["fit"]["recommended"]) >= {"oss_threads", "client_nodes"}

    # 8 bricks; the design's clients per brick x the 4 bricks IOR ran on = the IOR node count that stands for it
    for clients in (512, 16):
        body = authed.post("/api/v1/evaluate/", _design(cal["id"], clients), format="json").json()
        for op in ("write", "read"):
            nodes = clients / 8 * IOR_BRICKS
            truth = 8 * min(float(usl(nodes, *_client_curve(op))), EFFICIENCY * _back_peak(op) * IOR_BRICKS) / IOR_BRICKS
            assert body[f"{op}_gbps"] == pytest.approx(truth, rel=0.03), (clients, op)
    few = authed.post("/api/v1/evaluate/", _design(cal["id"], 16), format="json").json()
    assert few["bottleneck"]["read"] == "measured_end_to_end"
    assert "measured_end_to_end_read" in few["sources"]["calibration"]["sources"]


def test_write_only_data_never_gives_a_500_and_reads_keep_the_data_sheets(
    authed, client, django_user_model, django_capture_on_commit_callbacks
):
    rng = np.random.default_rng(5)
    response = _upload(authed, ior=("write-only.txt", _ior_text(rng, ops=("write",))))
    assert response.status_code == 201, response.content
    cal = response.json()
    assert cal["end_to_end_read_gbps"] is None and cal["end_to_end_write_gbps"] > 0
    assert any("no read results" in note for note in cal["notes"])
    spec = _design(cal["id"], 512)
    body = authed.post("/api/v1/evaluate/", spec, format="json").json()
    assert body["read_gbps"] == pytest.approx(36.0)  # 8 x 4.5 from the data sheets
    stages = body["sources"]["calibration"]["stages"]
    assert "data sheets" in stages["read"]["all stages"]
    assert any("measured no reads" in w for w in body["warnings"])
    design = authed.post("/api/v1/designs/", {"name": "write-only calibrated", "spec": spec}, format="json").json()
    assert authed.get(f"/api/v1/designs/{design['id']}/evaluation/").status_code == 200
    with django_capture_on_commit_callbacks(execute=True):
        export = authed.post(f"/api/v1/designs/{design['id']}/exports/", {"format": "pdf-a4"}, format="json")
    assert export.status_code in (200, 202)
    assert authed.get(f"/api/v1/exports/{export.json()['id']}/").json()["status"] == "done"
    client.force_login(django_user_model.objects.get(username="synthetic"))
    assert client.get(f"/calibrations/{cal['id']}/").status_code == 200
    assert client.get(f"/designer/?design={design['id']}").status_code == 200
