"""The pruned search (bisection of the feasible counts, cheapest first until the frontier is long enough,
merged parts) gives exactly what evaluating every candidate gives: compared on random small spaces
against a brute force written here, independently of the solver."""

import dataclasses
import itertools

import numpy as np
import pytest

from planner.engine import BatchInput, evaluate_batch
from planner.engine.solver import (
    PAIR_BLOCK,
    TRIPLE_BLOCK,
    TRIPLE_MAX_COUNT,
    Candidate,
    SolveResult,
    Targets,
    even_osts,
    merge_exact,
    mix_design,
    monotone_options,
    pareto_mask,
    solve,
    solve_part,
    triple_candidates,
    with_option,
)
from planner.engine.units import PIB
from tests.engine import factories as f


def brute(options, targets, *, max_count, limit, pairs=(), pair_max=0, triples=(), triple_max=0):
    """Every candidate evaluated; frontier by comparing every pair of points. `max_count` caps every candidate's
    bricks in all (a mix: `pair_max` or `triple_max` on each line, and at most `max_count` together)."""
    rows = []  # (ids, design, counts)
    for i, o in enumerate(options):
        rows += [((i, c, -1, 0, -1, 0), o, (c,)) for c in range(1, max_count + 1)]
    for combos, top in ((pairs, pair_max), (triples, triple_max)):
        for combo in combos:
            design = mix_design([options[i] for i in combo])
            for counts in itertools.product(range(1, top + 1), repeat=len(combo)):
                if sum(counts) > max_count:
                    continue
                ids = [-1, 0, -1, 0, -1, 0]
                for j, (o, c) in enumerate(zip(combo, counts, strict=True)):
                    ids[2 * j], ids[2 * j + 1] = o, c
                rows.append((tuple(ids), design, counts))
    designs = [
        dataclasses.replace(d, bricks=tuple(dataclasses.replace(b, count=c) for b, c in zip(d.bricks, counts, strict=True)))
        for _, d, counts in rows
    ]
    res = evaluate_batch(BatchInput.from_designs(designs))  # padded to three lines where there are triples
    usable, read, write, price = res.usable_bytes / PIB, res.read_gbps, res.write_gbps, res.total
    ok = (
        (usable >= (targets.usable_pib or 0) - 1e-9)
        & (read >= (targets.read_gbps or 0) - 1e-9)
        & (write >= (targets.write_gbps or 0) - 1e-9)
        & (price <= (targets.budget if targets.budget is not None else np.inf))
        & (res.rack_count <= (targets.max_racks if targets.max_racks is not None else np.inf))
        & res.racks_fit
    )
    idx = np.flatnonzero(ok)
    g = np.minimum(read, write)
    frontier = set()
    for i in idx:
        better = (price[idx] <= price[i]) & (usable[idx] >= usable[i]) & (g[idx] >= g[i])
        same = (price[idx] == price[i]) & (usable[idx] == usable[i]) & (g[idx] == g[i])
        if not np.any(better & ~same) and not np.any(same & (idx < i)):
            frontier.add(int(i))
    order = sorted(idx.tolist(), key=lambda i: (price[i], -usable[i], i))
    ranked = [(rows[i][0], i in frontier) for i in order[:limit]]
    front = [rows[i][0] for i in order if i in frontier][:limit]
    return {"feasible": int(ok.sum()), "space": len(rows), "ranked": ranked, "frontier": front}


def ids(c):
    return (c.option, c.count, -1 if c.option2 is None else c.option2, c.count2, -1 if c.option3 is None else c.option3, c.count3)


def random_options(rng, n):
    disks = [f.DISK4, f.DISK6, dataclasses.replace(f.DISK6, slug="d10", name="10 TB", capacity_bytes=10e12, read_mbps=240, write_mbps=230)]
    failover = str(rng.choice(["paired", "none"]))
    placement = str(rng.choice(["none", "in_rack", "separate_rack"]))
    clients = f.clients(int(rng.integers(4, 200)), float(rng.choice([3.0, 6.0, 12.0]))) if rng.random() < 0.4 else None
    base = f.design(f.brick(count=1), failover=failover, placement=placement, clients=clients)
    out = []
    for _ in range(n):
        out.append(
            with_option(
                base,
                disk=disks[int(rng.integers(len(disks)))],
                expansions=int(rng.integers(0, 3)),
                hba_count=int(rng.integers(1, 3)),
                network_count=int(rng.integers(1, 3)),
            )
        )
    return out


def random_targets(rng):
    t = Targets(usable_pib=float(rng.uniform(0.05, 4.0)))
    if rng.random() < 0.7:
        t.read_gbps = float(rng.uniform(1, 60))
    if rng.random() < 0.3:
        t.write_gbps = float(rng.uniform(1, 50))
    if rng.random() < 0.3:
        t.budget = float(rng.uniform(2e5, 4e6))
    if rng.random() < 0.3:
        t.max_racks = int(rng.integers(1, 6))
    return t


def assert_same(result, expected):
    assert result.candidates_evaluated == expected["space"]
    assert result.feasible == expected["feasible"]
    assert [(ids(c), c.on_frontier) for c in result.ranked] == expected["ranked"]
    assert [ids(c) for c in result.frontier] == expected["frontier"]


@pytest.mark.parametrize("seed", range(24))
def test_pruned_search_equals_brute_force_on_random_spaces(seed):
    rng = np.random.default_rng(seed)
    options = random_options(rng, int(rng.integers(1, 6)))
    targets = random_targets(rng)
    max_count, limit = int(rng.integers(5, 70)), int(rng.integers(1, 30))
    if seed % 3 == 0:  # below the mixes' largest totals (6 + 6, 3 + 3 + 3): the cap on the total bricks bites
        max_count = int(rng.integers(3, 9))
    pairs = [(0, 1)] if len(options) > 1 and rng.random() < 0.5 else []
    triples = [(0, 1, 2)] if len(options) > 2 and rng.random() < 0.5 else []
    expected = brute(options, targets, max_count=max_count, limit=limit, pairs=pairs, pair_max=6, triples=triples, triple_max=3)
    result = solve(options, targets, max_count=max_count, limit=limit, pairs=pairs, pair_max_count=6, triples=triples, triple_max_count=3)
    assert_same(result, expected)
    assert result.designs_evaluated <= expected["space"] + 2 * len(options) * max_count  # bisection probes at most twice each count
    # the same space split into parts (one per option) and merged: the same answer
    parts_fn = lambda i, fl: solve_part(  # noqa: E731
        options,
        targets,
        indices=[i],
        max_count=max_count,
        limit=limit,
        frontier_limit=fl,
        pairs=pairs if i == 0 else (),
        pair_max_count=6,
        triples=triples if i == 0 else (),
        triple_max_count=3,
    )
    parts = [parts_fn(i, limit) for i in range(len(options))]
    assert_same(merge_exact(parts, parts_fn, targets, limit=limit), expected)


def test_pruning_evaluates_a_handful_of_counts_per_option():
    options = random_options(np.random.default_rng(1), 4)
    result = solve(options, Targets(usable_pib=2.0, read_gbps=20), max_count=5000, limit=20)
    assert result.candidates_evaluated == 4 * 5000 and result.feasible > 0
    assert result.designs_evaluated < 800  # of 20,000


def test_an_option_that_is_not_monotone_is_evaluated_at_every_count_and_still_exact():
    """Blanking panels dearer than a brick: one brick more can lower the price; bisection would be wrong,
    so the option is searched at every count."""
    base = f.design(f.brick(count=1), placement="in_rack")
    panel = f.SWITCH.__class__(slug="blank", name="Gold blanking panel", kind="accessory", height_u=1, power_w=0, weight_kg=1)
    rack = dataclasses.replace(f.RACK, blanking_panel=panel)
    prices = dataclasses.replace(f.PRICES, unit_prices={**f.PRICES.unit_prices, ("accessory", "blank"): 200_000})
    odd = dataclasses.replace(base, rack=rack, prices=prices)
    options = [base, odd]
    assert monotone_options(BatchInput.from_designs(options)).tolist() == [True, False]
    targets = Targets(usable_pib=0.5)
    res = evaluate_batch(
        BatchInput.from_designs([dataclasses.replace(odd, bricks=(dataclasses.replace(odd.bricks[0], count=c),)) for c in (8, 9)])
    )
    assert res.total[1] < res.total[0]  # really not monotone
    assert_same(solve(options, targets, max_count=40, limit=10), brute(options, targets, max_count=40, limit=10))


def test_vectorised_pareto_mask_matches_pairwise_comparison():
    rng = np.random.default_rng(7)
    for n in (1, 2, 5, 50, 400):
        price = rng.integers(0, 20, n).astype(float)  # many ties
        usable = rng.integers(0, 10, n).astype(float)
        gbps = rng.integers(0, 10, n).astype(float)
        expected = []
        for i in range(n):
            better = (price <= price[i]) & (usable >= usable[i]) & (gbps >= gbps[i])
            same = (price == price[i]) & (usable == usable[i]) & (gbps == gbps[i])
            expected.append(not np.any(better & ~same) and not np.any(same & (np.arange(n) < i)))
        assert pareto_mask(price, usable, gbps).tolist() == expected


def test_mix_blocks_sort_after_single_lines():
    assert PAIR_BLOCK < TRIPLE_BLOCK


def test_a_three_line_mix_is_the_cheapest_answer_when_no_one_or_two_lines_meet_the_target_as_closely():
    """10, 11 and 11.6 TB bricks (OSTs within 17 % of each other) priced by the terabyte: for 0.99 of one
    brick of each (32.6 TB a brick set), that set is cheaper than any count of one brick or any mix
    of two (the closest, 2 x 11.6 + 10 = 33.2 TB; 2 x 11 + 10 = 32 TB falls short)."""
    caps = (10, 11, 11.6)
    disks = [dataclasses.replace(f.DISK6, slug=f"x{c}", name=f"{c} TB", capacity_bytes=c * 1e12) for c in caps]
    prices = dataclasses.replace(f.PRICES, unit_prices={**f.PRICES.unit_prices, **{("disk", f"x{c}"): 60 * c for c in caps}})
    options = [dataclasses.replace(with_option(f.design(f.brick(count=1)), disk=d), prices=prices) for d in disks]
    one_each = sum(float(evaluate_batch(BatchInput.from_designs([o])).usable_bytes[0]) for o in options) / PIB
    targets, pairs = Targets(usable_pib=0.99 * one_each), [(0, 1), (0, 2), (1, 2)]
    result = solve(options, targets, max_count=20, limit=3, pairs=pairs, pair_max_count=10, triples=None)
    best = result.ranked[0]
    assert (best.option, best.count, best.option2, best.count2, best.option3, best.count3) == (0, 1, 1, 1, 2, 1)
    two_lines = solve(options, targets, max_count=20, limit=3, pairs=pairs, pair_max_count=10)
    assert two_lines.ranked[0].price > best.price and two_lines.ranked[0].option3 is None
    expected = brute(options, targets, max_count=20, limit=3, pairs=pairs, pair_max=10, triples=[(0, 1, 2)], triple_max=TRIPLE_MAX_COUNT)
    assert_same(result, expected)


def test_max_count_caps_the_total_bricks_of_single_lines_and_mixes_alike():
    """max_count is the most bricks a design has in all: a two- or three-line mix keeps its per-line caps
    (pair_max_count, triple_max_count) and has at most max_count bricks together; the space counts only those."""
    caps = (10, 11, 11.6)  # OSTs within 17 % of each other: mixes are tried
    disks = [dataclasses.replace(f.DISK6, slug=f"x{c}", name=f"{c} TB", capacity_bytes=c * 1e12) for c in caps]
    prices = dataclasses.replace(f.PRICES, unit_prices={**f.PRICES.unit_prices, **{("disk", f"x{c}"): 60 * c for c in caps}})
    options = [dataclasses.replace(with_option(f.design(f.brick(count=1)), disk=d), prices=prices) for d in disks]
    pairs, targets = [(0, 1), (0, 2), (1, 2)], Targets(usable_pib=0.3)
    result = solve(options, targets, max_count=4, limit=500, pairs=pairs, pair_max_count=10, triples=[(0, 1, 2)])
    designs = result.ranked + result.frontier
    assert designs and any(c.option3 is not None for c in designs) and any(c.option2 is not None and c.option3 is None for c in designs)
    assert max(c.count + c.count2 + c.count3 for c in designs) == 4
    # 3 options x 4 counts; 3 pairs x the 6 count pairs adding up to at most 4; one triple x its 4 count triples
    assert result.candidates_evaluated == 3 * 4 + 3 * 6 + 1 * 4
    expected = brute(options, targets, max_count=4, limit=500, pairs=pairs, pair_max=10, triples=[(0, 1, 2)], triple_max=TRIPLE_MAX_COUNT)
    assert_same(result, expected)
    # too few bricks for a mix: none is tried, and the single lines are still searched
    two = solve(options, targets, max_count=2, limit=500, pairs=pairs, pair_max_count=10, triples=[(0, 1, 2)])
    assert two.candidates_evaluated == 3 * 2 + 3 * 1 and all(c.option3 is None for c in two.ranked)
    assert max(c.count + c.count2 for c in two.ranked) <= 2


def test_mixes_of_uneven_osts_are_not_tried():
    """4 and 9 TB bricks' OSTs differ by far more than Lustre's 17 %: once the 4 TB OSTs are full only
    the 9 TB ones take new data, so the mix is not a candidate; 8 and 9 TB ones are."""
    disks = [dataclasses.replace(f.DISK6, slug=f"x{c}", name=f"{c} TB", capacity_bytes=c * 1e12) for c in (4, 8, 9)]
    options = [with_option(f.design(f.brick(count=1)), disk=d) for d in disks]
    assert not even_osts(options, (0, 2)) and even_osts(options, (1, 2))
    fake = SolveResult(0, 0, frontier=[Candidate(0, 1, 0, 0, 0, 0, 0, 0, option2=1, count2=1), Candidate(2, 1, 0, 0, 0, 0, 0, 0)])
    assert triple_candidates(fake, options) == []  # 4 TB with 8 and 9 TB: uneven
