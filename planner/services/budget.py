"""Bounded work per request: every synchronous computation (evaluate, compare, solve) is given an
estimated cost before it starts, in the solver's unit, *candidate designs* (one row of an engine
batch), and is done inline only under a limit; the rest goes to a worker (solve) or is refused with
a 400 that says the limit (evaluate, compare). Anonymous callers get a smaller limit.

The weights are measured, not chosen (2-core development machine, 2026-11-22, in process, catalogue
warm; re-measure with `make bench` after engine changes): a solver batch evaluates about 500,000
candidates per second (2 us each, `bench.engine_bench`, batch of 10^5); a full single evaluation with
its rack layout and JSON costs about 5 ms plus 0.07 ms per brick (`design_evaluate` + `as_dict`, 1 to
2,000 bricks of md3460-performance: 5.5, 17, 42, 142 ms at 10, 100, 500, 2,000 bricks); a pruned
solve costs about 0.5 ms per brick option (108 options: 57 ms) and about 8 ms per pair of options
where mixes are tried (see `planner.services.solve.estimated_search`).
"""

from __future__ import annotations

from django.conf import settings

from planner.spec import SpecError

DESIGN_COST = 2_500  # one full evaluation's fixed part (~5 ms) in candidates (~2 us each)
BRICK_COST = 35  # each brick's share of layout, bill of materials and JSON (~0.07 ms)
OPTION_COST = 250  # resolving and searching one brick option of a solve (~0.5 ms)


def limit(user) -> int:
    """The inline work limit (candidate designs) for this caller."""
    signed_in = user is not None and getattr(user, "is_authenticated", False)
    return int(settings.SYNC_WORK_LIMIT if signed_in else settings.ANON_SYNC_WORK_LIMIT)


def evaluate_cost(spec: dict) -> int:
    """A design's evaluation in candidate designs: the fixed part and one share per brick."""
    bricks = sum(int(entry.get("count") or 0) for entry in spec.get("bricks") or [] if isinstance(entry, dict))
    return DESIGN_COST + BRICK_COST * bricks


def solve_cost(*, options: int, candidates: int) -> int:
    """A search: resolving its brick options, then evaluating its candidates."""
    return OPTION_COST * options + candidates


def _who(user) -> str:
    signed_in = user is not None and getattr(user, "is_authenticated", False)
    return "signed-in users" if signed_in else "anonymous callers (sign in or use a token for a larger limit)"


def check(cost: int, user, *, field: str, what: str, advice: str) -> None:
    """Refuse (400, naming `field`) work over the caller's inline limit."""
    bound = limit(user)
    if cost > bound:
        raise SpecError(
            {
                field: [
                    f"{what} is about {cost:,} candidate designs of work; the limit for one request is {bound:,} for {_who(user)}: {advice}"
                ]
            }
        )
