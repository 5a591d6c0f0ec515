"""Design to target: the study's racks come out as the answers; impossible targets say which constraint fails."""

import numpy as np
import pytest

from planner.engine.solver import capacity_target, gbps_target_from_clients, gbps_target_from_jobs, pareto_mask

pytestmark = pytest.mark.django_db
URL = "/api/v1/solve/"
MD3460 = {"templates": ["md3460-performance", "md3460-capacity"], "disks": ["nl-sas-4tb"]}


def test_one_pib_and_9_gbps_with_metadata_in_the_rack_is_study_rack_a_with_b_on_the_frontier(api):
    body = api.post(
        URL, {**MD3460, "targets": {"usable_pib": 1.0, "read_gbps": 9}, "metadata": {"placement": "in_rack"}}, format="json"
    ).json()
    best = body["results"][0]
    assert (best["template"], best["count"], best["disk"]) == ("md3460-capacity", 2, "nl-sas-4tb")
    assert best["rack_count"] == 1 and best["read_gbps"] == pytest.approx(9.0) and best["usable_pib"] >= 1.0
    assert [r["price"] for r in body["results"]] == sorted(r["price"] for r in body["results"])
    frontier = {(f["template"], f["count"]) for f in body["frontier"]}
    assert ("md3460-capacity", 2) in frontier and ("md3460-performance", 6) in frontier
    assert best["spec"]["bricks"] == [{"template": "md3460-capacity", "count": 2, "disk": "nl-sas-4tb", "expansions": 2}]
    assert body["unmet"] == [] and body["feasible"] > 0
    assert body["candidates_evaluated"] == 2 * 200 + 30 * 30  # each template 1-200 bricks, and the two mixed 1-30 each
    mixes = [f for f in body["frontier"] if len(f["lines"]) == 2]
    assert mixes and {line["template"] for line in mixes[0]["lines"]} == {"md3460-capacity", "md3460-performance"}
    mixed = api.post("/api/v1/evaluate/", mixes[0]["spec"], format="json").json()
    assert mixed["price"]["total"] == pytest.approx(mixes[0]["price"], abs=0.05) and mixed["read_gbps"] == pytest.approx(
        mixes[0]["read_gbps"]
    )
    without = api.post(URL, {**MD3460, "targets": {"usable_pib": 1.0, "read_gbps": 9}, "mixes": False}, format="json").json()
    assert without["candidates_evaluated"] == 400


def test_36_gbps_and_1_3_pib_without_metadata_is_study_rack_d(api):
    body = api.post(
        URL, {**MD3460, "targets": {"usable_pib": 1.3, "read_gbps": 36}, "metadata": {"placement": "none"}}, format="json"
    ).json()
    best = body["results"][0]
    assert (best["template"], best["count"]) == ("md3460-performance", 8)
    assert best["rack_count"] == 1 and best["read_gbps"] == pytest.approx(36.0)
    evaluated = api.post("/api/v1/evaluate/", best["spec"], format="json").json()
    assert evaluated["price"]["total"] == pytest.approx(best["price"], abs=0.05)


def test_max_bricks_caps_the_total_bricks_of_every_design_mixes_included(api):
    """A tester's request: max_bricks 20 used to return mixes of 20 + 3 bricks. Every answer, one line or a mix of
    two or three, now has at most 20 bricks in all, and the schema says max_bricks is that cap."""
    body = api.post(URL, {"targets": {"usable_pib": 2, "read_gbps": 30, "write_gbps": 30}, "max_bricks": 20}, format="json").json()
    assert body["results"] and body["frontier"]
    designs = body["results"] + body["frontier"]
    assert any(len(d["lines"]) > 1 for d in designs)  # mixes are still tried
    for d in designs:
        assert d["count"] == sum(line["count"] for line in d["lines"]) == sum(b["count"] for b in d["spec"]["bricks"])
        assert d["count"] <= 20, d["name"]
    schema = api.get("/api/schema/", {"format": "json"}).json()
    ref = schema["paths"]["/api/v1/solve/"]["post"]["requestBody"]["content"]["application/json"]["schema"]["$ref"]
    fields = schema["components"]["schemas"][ref.rsplit("/", 1)[1]]["properties"]
    assert "in all" in fields["max_bricks"]["description"] and "at most max_bricks in all" in fields["mixes"]["description"]


@pytest.mark.parametrize(
    "targets, constraint, fragment",
    [
        ({"usable_pib": 1.0, "read_gbps": 9, "budget": 100000}, "budget", "The budget target (at most 100,000 USD) cannot be met"),
        ({"read_gbps": 5000}, "read_gbps", "read throughput target (at least 5,000.0 GB/s) cannot be met with up to 60 bricks in all"),
        ({"usable_pib": 1.0, "max_racks": 1, "read_gbps": 400}, "read_gbps", "with at least 1.00 PiB usable and within 1 rack"),
    ],
)
def test_impossible_targets_say_which_constraint_cannot_be_met(api, targets, constraint, fragment):
    body = api.post(URL, {**MD3460, "targets": targets, "max_bricks": 60}, format="json").json()
    assert body["results"] == [] and body["feasible"] == 0
    assert any(u["constraint"] == constraint and fragment in u["message"] for u in body["unmet"]), body["unmet"]


def test_targets_met_alone_but_not_together_name_the_constraint_and_the_best_reachable_design(api):
    body = api.post(URL, {**MD3460, "targets": {"usable_pib": 3.0, "read_gbps": 9, "max_racks": 1}}, format="json").json()
    assert body["feasible"] == 0
    unmet = {u["constraint"]: u for u in body["unmet"]}
    assert "combination" not in unmet and set(unmet) == {"usable_pib", "max_racks"}
    capacity = unmet["usable_pib"]
    assert capacity["message"].startswith(
        "The usable capacity target (at least 3.00 PiB) cannot be met with at least 9.0 GB/s read and within 1 rack"
    )
    assert capacity["design"]["rack_count"] == 1 and capacity["design"]["usable_pib"] == capacity["best_reachable"] < 3.0
    assert capacity["design"]["read_gbps"] >= 9 and "MD3460" in capacity["design"]["name"]  # names, not slugs
    racks = unmet["max_racks"]
    assert "cannot be met with at least 3.00 PiB usable" in racks["message"] and racks["best_reachable"] >= 2
    assert racks["design"]["usable_pib"] >= 3.0 and racks["design"]["rack_count"] == racks["best_reachable"]
    assert "each target can be met on its own" not in str(body["unmet"]).lower()


def test_fifty_pib_in_two_racks_names_the_capacity_it_can_reach(api):
    body = api.post(URL, {**MD3460, "targets": {"usable_pib": 50, "max_racks": 2}}, format="json").json()
    unmet = {u["constraint"]: u for u in body["unmet"]}
    assert unmet["usable_pib"]["message"].startswith(
        "The usable capacity target (at least 50.00 PiB) cannot be met within 2 racks: the best reachable is"
    )
    assert unmet["usable_pib"]["design"]["rack_count"] <= 2


def test_one_row_per_distinct_design_and_names_not_slugs(api):
    """A capacity brick with 0 expansions is a performance brick: the options are deduplicated by what they resolve to."""
    body = api.post(URL, {**MD3460, "expansions": [0, 1, 2], "targets": {"usable_pib": 1}, "limit": 500}, format="json").json()
    assert body["candidates_evaluated"] == 3 * 200 + 2 * 30 * 30  # performance (0), capacity with 1 and with 2; two mixes
    compositions = [tuple((line["template"], line["count"], line["expansions"]) for line in r["lines"]) for r in body["results"]]
    assert len(compositions) == len(set(compositions))
    assert not any(line["template"] == "md3460-capacity" and line["expansions"] == 0 for r in body["results"] for line in r["lines"])
    names = [r["name"] for r in body["results"]]
    assert len(names) == len(set(names))
    assert any("MD3460 capacity brick with 1 expansion, 4 TB" in n for n in names) and not any("nl-sas-4tb" in n for n in names)
    line = body["frontier_line"]
    assert line[0]["price"] == body["results"][0]["price"]  # starts at the cheapest design meeting the targets
    assert [r["price"] for r in line] == sorted(r["price"] for r in line)
    assert [r["usable_pib"] for r in line] == sorted(r["usable_pib"] for r in line) and len(line) > 2


def test_demand_helper_turns_workload_and_growth_into_targets(api):
    demand = {"job_slots": 400, "mb_per_s_per_job": 50, "current_pib": 0.5, "annual_growth": 0.4, "years": 2}
    body = api.post(URL, {**MD3460, "demand": demand, "metadata": {"placement": "none"}}, format="json").json()
    assert body["targets"]["read_gbps"] == pytest.approx(20.0)
    assert body["targets"]["usable_pib"] == pytest.approx(0.98)
    assert repr(body["targets"]["usable_pib"]) == "0.98"  # 0.5 x 1.4^2 without float noise
    assert body["results"][0]["read_gbps"] >= 20.0 and body["results"][0]["usable_pib"] >= 0.98


@pytest.mark.parametrize(
    "payload, field",
    [
        ({"targets": {}}, "targets"),
        ({"targets": {"usable_pib": -1}}, "targets"),
        ({"targets": {"usable_pib": 1}, "templates": ["nope"]}, "templates"),
        ({"targets": {"usable_pib": 1}, "disks": ["floppy"]}, "disks"),
        ({"targets": {"usable_pib": 1}, "max_bricks": 5000}, "max_bricks"),
        ({"demand": {"job_slots": 10}}, "demand"),
        ({"targets": {"usable_pib": 1}, "colour": "red"}, "colour"),
    ],
)
def test_bad_solve_requests_name_the_field(api, payload, field):
    response = api.post(URL, payload, format="json")
    assert response.status_code == 400 and field in response.json()


def test_when_no_option_is_left_the_field_that_ruled_them_out_is_named(api):
    """Paired failover on bricks that keep their disks inside the server rules out every option: the 400
    names `failover` and why, not only `templates`; an expansion count a template cannot take names `expansions`."""
    body = api.post(URL, {"targets": {"usable_pib": 0.1}, "templates": ["r730xd-internal"], "failover": "paired"}, format="json")
    assert body.status_code == 400
    errors = body.json()
    assert "no brick option fits" in errors["templates"][0] and "'failover'" in errors["templates"][0]
    assert errors["failover"] == [
        "R730xd server-internal brick keeps its disks inside its server: no failover partner can reach them, so 'paired' "
        "cannot protect it; use failover 'none' (or a template with shared storage)"
    ]
    body = api.post(URL, {"targets": {"usable_pib": 0.1}, "templates": ["r730xd-internal"], "expansions": [2]}, format="json")
    assert body.status_code == 400
    assert body.json()["expansions"] == ["r730xd-internal: takes at most 0 expansion enclosures, not 2"]


def test_demand_arithmetic():
    assert gbps_target_from_jobs(1000, 20) == pytest.approx(20.0)
    assert gbps_target_from_clients(64, 0.5) == 32.0
    assert capacity_target(1.0, 0.5, 2) == pytest.approx(2.25)


def test_pareto_mask_keeps_only_undominated_points():
    price = np.array([1.0, 2.0, 3.0, 2.5])
    usable = np.array([1.0, 2.0, 1.5, 2.0])
    gbps = np.array([10.0, 10.0, 30.0, 5.0])
    assert pareto_mask(price, usable, gbps).tolist() == [True, True, True, False]


def test_solve_page_ranks_answers_and_links_them_to_the_designer(client):
    page = client.get("/solve/").content.decode()
    assert 'id="solve-form"' in page
    for group in ("allowed-templates", "allowed-disks", "allowed-expansions"):  # the form in labelled groups
        assert f'<fieldset id="{group}"><legend>' in page
    assert "<legend>Brick templates</legend>" in page and "<legend>Disks</legend>" in page
    html = client.get(
        "/solve/",
        {
            "run": "1",
            "usable_pib": "1",
            "read_gbps": "9",
            "templates": ["md3460-performance", "md3460-capacity"],
            "disks": ["nl-sas-4tb"],
            "placement": "in_rack",
            "max_bricks": "40",
        },
    ).content.decode()
    first = html[html.index("<tbody>") :].split("</tr>")[0]
    assert "2 × MD3460 capacity brick" in first and "✓" in first and "/designer/?spec=" in first and "cheapest" in first
    assert "md3460-capacity</td>" not in first and "nl-sas-4tb" not in first.split("href")[0].split("data-count")[1]  # names, not slugs
    summary = html[html.index('id="solve-summary"') :].split("</p>")[0]
    assert "usable ≥ 1.00 PiB" in summary and "read ≥ 9.0 GB/s" in summary and "write" not in summary  # no write target set
    assert 'id="frontier-line"' in html
    link = first.split('href="')[1].split('"')[0].replace("&amp;", "&")
    designer = client.get(link).content.decode()
    assert '"template": "md3460-capacity", "count": 2' in designer
    bad = client.get("/solve/", {"run": "1"})
    assert bad.status_code == 400 and "give at least one of usable_pib" in bad.content.decode()
    assert "[&#x27;" not in bad.content.decode()  # messages as text, not a Python list


def test_the_solve_page_leaves_failover_to_each_brick_so_internal_disk_bricks_can_be_found(client):
    """The page has no failover field: it used to send 'paired', which rules out every brick that keeps its
    disks inside its server; by default (as in the API) each brick gets the failover it can have."""
    html = client.get("/solve/", {"run": "1", "usable_pib": "0.2", "templates": ["r730xd-internal"], "max_bricks": "40"})
    assert html.status_code == 200, html.content.decode()[:2000]
    assert "R730xd server-internal brick" in html.content.decode().split("<tbody>")[1]
    impossible = client.get(
        "/solve/", {"run": "1", "read_gbps": "5000", "templates": ["md3460-capacity"], "max_bricks": "20"}
    ).content.decode()
    assert "cannot be met" in impossible and "Best reachable on this axis" in impossible
    fifty = client.get(
        "/solve/", {"run": "1", "usable_pib": "50", "max_racks": "2", "templates": ["md3460-capacity"], "max_bricks": "100"}
    ).content.decode()
    assert "The usable capacity target (at least 50.00 PiB) cannot be met within 2 racks" in fifty
    assert "each target can be met on its own" not in fifty.lower()


def test_designer_refuses_a_damaged_spec_link(client):
    assert "damaged" in client.get("/designer/", {"spec": "!!!"}).content.decode()


def test_metadata_sizing_chooses_a_cell_that_fits_and_puts_it_in_the_design(api):
    sizing = {"files": 500_000_000, "histogram": [[4096, 0.4], [65536, 0.3], [1048576, 0.2], [1e10, 0.1]], "dom_stripe_bytes": 65536}
    body = api.post(URL, {**MD3460, "targets": {"usable_pib": 1.0}, "metadata_sizing": sizing}, format="json").json()
    m = body["metadata_sizing"]
    assert m["files_on_mdt_share"] == pytest.approx(0.7)
    assert m["dom_bytes"] == pytest.approx(5e8 * (0.4 * 4096 + 0.6 * 65536))
    assert m["needed_bytes"] == pytest.approx((5e8 * 2560 + m["dom_bytes"]) * 1.2)
    assert m["cell"] == "mds-cell-ssd" and m["mdts_needed"] == 2  # 21.2 TB: more than the 15k SAS cell's 3.4 TB
    assert body["results"][0]["spec"]["metadata"]["cell"] == "mds-cell-ssd"
    small = api.post(
        URL,
        {**MD3460, "targets": {"usable_pib": 1.0}, "metadata_sizing": {"files": 10**8, "percentiles": {"50": 8192, "100": 1e9}}},
        format="json",
    ).json()
    assert small["metadata_sizing"]["cell"] == "mds-cell" and small["metadata_sizing"]["files_on_mdt_share"] == 0


def test_metadata_too_large_for_any_cell_is_explained(api):
    body = api.post(
        URL, {**MD3460, "targets": {"usable_pib": 1.0}, "metadata_sizing": {"files": 10**11, "histogram": [[1e6, 1.0]]}}, format="json"
    )
    assert body.status_code == 400 and "no metadata cell in the catalogue holds that" in body.json()["metadata_sizing"][0]


@pytest.mark.parametrize("sizing", [{"files": 10}, {"files": 10, "histogram": [[1, 0.0]]}, {"files": 10, "percentiles": {"50": 1}}])
def test_bad_metadata_sizing_is_a_400(api, sizing):
    assert api.post(URL, {**MD3460, "targets": {"usable_pib": 1.0}, "metadata_sizing": sizing}, format="json").status_code == 400


def test_large_searches_run_as_a_task_with_progress(api, django_capture_on_commit_callbacks, settings):
    settings.ANON_SYNC_WORK_LIMIT = 10_000  # this search (108 options) is over it: a job
    request = {
        "targets": {"usable_pib": 2, "read_gbps": 30},
        "disks": ["nl-sas-4tb", "nl-sas-6tb", "nl-sas-8tb", "nl-sas-10tb", "nl-sas-12tb", "nl-sas-16tb"],
        "expansions": [0, 1, 2],
        "max_bricks": 500,
    }
    with django_capture_on_commit_callbacks(execute=True):
        response = api.post(URL, request, format="json")
    assert response.status_code == 202
    job = api.get(response.json()["status_url"]).json()
    assert job["status"] == "done" and job["progress"] == 100
    assert job["result"]["candidates_evaluated"] >= 10_000 and job["result"]["results"]
    assert api.get("/api/v1/solve/jobs/00000000-0000-0000-0000-000000000000/").status_code == 404


def test_the_page_runs_a_large_search_as_a_job(client, django_capture_on_commit_callbacks, settings):
    settings.ANON_SYNC_WORK_LIMIT = 10_000  # this search (108 options) is over it: a job
    with django_capture_on_commit_callbacks(execute=True):
        response = client.get(
            "/solve/",
            {
                "run": "1",
                "usable_pib": "2",
                "read_gbps": "30",
                "disks": ["nl-sas-4tb", "nl-sas-6tb", "nl-sas-8tb", "nl-sas-10tb", "nl-sas-12tb", "nl-sas-16tb"],
                "expansions": ["0", "1", "2"],
                "max_bricks": "500",
            },
        )
    assert response.status_code == 302 and "?job=" in response["Location"]
    html = client.get(response["Location"]).content.decode()
    assert 'id="solve-results"' in html


@pytest.mark.parametrize("job", ["000000000000000000000000000000000000", "not-a-uuid", "00000000-0000-0000-0000-000000000000"])
def test_unknown_or_malformed_solve_jobs_are_404_or_a_message(api, client, job):
    assert api.get(f"/api/v1/solve/jobs/{job}/").status_code == 404
    page = client.get("/solve/", {"job": job})
    assert page.status_code == 400 and "no such search" in page.content.decode()
