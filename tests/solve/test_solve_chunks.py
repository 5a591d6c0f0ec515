"""A large search split into parts (a Celery group on the solve queue, eager in tests) gives the same
answer as the search in one piece; a part that fails fails the job with the reason; parts merge exactly."""

import numpy as np
import pytest

from planner.engine import solver
from planner.models import SolveChunk, SolveJob
from planner.services import solve as solve_service

pytestmark = pytest.mark.django_db
DISKS = ["nl-sas-4tb", "nl-sas-6tb", "nl-sas-8tb", "nl-sas-10tb", "nl-sas-12tb", "nl-sas-16tb"]


def request(**extra):
    return {
        "targets": {"usable_pib": 2, "read_gbps": 30},
        "templates": ["md3460-performance", "md3460-capacity"],
        "disks": DISKS,
        "expansions": [0, 1, 2],
        "max_bricks": 400,
        "mixes": False,
        "limit": 40,
        **extra,
    }


def test_a_search_in_parts_gives_the_same_answer_as_in_one_piece(monkeypatch):
    whole = solve_service.design_solve(request=request())
    monkeypatch.setattr(solve_service, "CHUNK_CANDIDATES", 1500)  # 18 options x 400 counts: 5 parts
    job = SolveJob.objects.create(request=request())
    solve_service.solve_run(job_id=str(job.id))
    job.refresh_from_db()
    assert job.status == "done" and job.progress == 100, job.error
    assert job.chunks_total == 5 and job.chunks_done == 5
    assert list(SolveChunk.objects.filter(job=job).values_list("status", flat=True)) == ["done"] * 5
    chunked = dict(job.result)
    assert chunked.pop("designs_evaluated") > whole["designs_evaluated"]  # each part evaluates its own cheapest counts
    assert chunked == {k: v for k, v in whole.items() if k != "designs_evaluated"}
    assert whole["results"] and whole["frontier"] and whole["designs_evaluated"] < whole["candidates_evaluated"] / 5


def test_targets_nothing_meets_are_explained_the_same_in_parts(monkeypatch):
    impossible = request(targets={"usable_pib": 50, "max_racks": 2})
    whole = solve_service.design_solve(request=impossible)
    monkeypatch.setattr(solve_service, "CHUNK_CANDIDATES", 3000)
    job = SolveJob.objects.create(request=impossible)
    solve_service.solve_run(job_id=str(job.id))
    job.refresh_from_db()
    assert job.status == "done" and job.chunks_total == 3
    assert {k: v for k, v in job.result.items() if k != "designs_evaluated"} == {k: v for k, v in whole.items() if k != "designs_evaluated"}
    assert whole["unmet"] and whole["unmet"][0]["constraint"] == "usable_pib"


def test_a_part_that_fails_fails_the_job_with_the_reason(monkeypatch):
    monkeypatch.setattr(solve_service, "CHUNK_CANDIDATES", 3000)
    real = solver.solve_part
    calls = []

    def flaky(*args, **kwargs):
        calls.append(1)
        if len(calls) == 2:
            raise RuntimeError("disk on fire")
        return real(*args, **kwargs)

    monkeypatch.setattr(solver, "solve_part", flaky)
    job = SolveJob.objects.create(request=request())
    solve_service.solve_run(job_id=str(job.id))
    job.refresh_from_db()
    assert job.status == "failed" and "Part 2 of the search failed: disk on fire" in job.error
    assert job.result is None and len(calls) == 2  # the third part saw the failed job and did not search
    assert SolveChunk.objects.get(job=job, index=1).status == "failed"


def _partial(points, bound):
    cols = {k: np.asarray([p[k] for p in points], dtype=float) for k in ("price", "usable", "read", "write")}
    n = len(points)
    cols.update(racks=np.ones(n), units=np.ones(n), power=np.zeros(n), fits=np.ones(n, dtype=bool))
    cols.update({k: np.asarray([p[k] for p in points], dtype=np.int64) for k in ("major", "minor")})
    cols.update(option=cols["major"].copy(), count=cols["minor"].copy())
    cols.update(option2=np.full(n, -1), count2=np.zeros(n, dtype=np.int64), option3=np.full(n, -1), count3=np.zeros(n, dtype=np.int64))
    return solver.Partial(space=100, evaluated=n, feasible=n, bound=bound, stats={}, points=cols)


def test_parts_merge_exactly_and_a_part_is_searched_again_when_the_merge_needs_more_of_it():
    """Part 0 returned two frontier points below its bound (12) that part 1 beats: the merged frontier below 12
    holds one point, fewer than the limit of 3, so part 0 is asked again with a longer frontier."""
    pt = lambda o, c, price, usable: {"major": o, "minor": c, "price": price, "usable": usable, "read": 1.0, "write": 1.0}  # noqa: E731
    part0 = _partial([pt(0, 1, 10, 1), pt(0, 2, 11, 2)], bound=12.0)
    part1 = _partial([pt(1, 1, 9, 3), pt(1, 2, 20, 6)], bound=np.inf)
    result, again = solver.merge_parts([part0, part1], solver.Targets(usable_pib=0.5), limit=3)
    assert result is None and again == [0]
    part0_whole = _partial([pt(0, 1, 10, 1), pt(0, 2, 11, 2), pt(0, 3, 15, 4), pt(0, 4, 30, 8)], bound=np.inf)
    asked = []
    merged = solver.merge_exact([part0, part1], lambda i, fl: asked.append((i, fl)) or part0_whole, solver.Targets(usable_pib=0.5), limit=3)
    assert asked == [(0, 12)]
    assert [(c.option, c.count) for c in merged.frontier] == [(1, 1), (0, 3), (1, 2)]
    assert [(c.option, c.count, c.on_frontier) for c in merged.ranked] == [(1, 1, True), (0, 1, False), (0, 2, False)]
