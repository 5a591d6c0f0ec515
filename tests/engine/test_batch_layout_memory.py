"""How the batch is laid out: design-last storage, and count-independent figures computed once.

The figures must not depend on the layout: a batch repeated from one design (broadcast views,
computed once per option) gives the same numbers as the same batch built as full copies in C
order, and as each design evaluated alone.
"""

import dataclasses

import numpy as np
import pytest

from planner.engine import BatchInput, evaluate, evaluate_batch

from . import factories as f

SCALARS = ("usable_bytes", "raw_bytes", "osts", "disks", "servers", "enclosures", "read_gbps", "write_gbps", "hardware", "total")
SCALARS += ("power_w", "weight_kg", "rack_count", "units_used", "free_units", "support", "opex")
TABLES = ("stages", "brick_gbps", "limiting", "degraded_gbps", "standby", "part_qty", "dpart_qty", "system_limit")


def _base(**kw):
    return BatchInput.from_designs([f.design(f.brick(count=1), f.brick(count=1, expansions=2), **kw)])


def _counts(n, seed=3):
    return np.random.default_rng(seed).integers(0, 30, size=(n, 2)).astype(float)


def test_batch_arrays_are_stored_design_last():
    batch = BatchInput.from_designs([f.design(f.brick(count=2)), f.design(f.brick(count=3), f.brick(count=1, expansions=1))])
    assert batch.groups["count"].T.flags.c_contiguous
    assert batch.parts["price"].T.flags.c_contiguous
    again = BatchInput.concatenate([batch, batch.repeat(3)])
    assert again.groups["disk_bytes"].shape == (8, 2) and again.groups["disk_bytes"].T.flags.c_contiguous
    assert again.parts["power"].T.flags.c_contiguous


def test_repeating_one_design_shares_its_rows_instead_of_copying_them():
    batch = _base().repeat(1000)
    assert batch.groups["disk_bytes"].strides[0] == 0
    assert batch.parts["price"].strides[0] == 0
    with pytest.raises(ValueError):
        batch.groups["disk_bytes"][0, 0] = 1.0  # read-only: set a new array instead


@pytest.mark.parametrize("kw", [dict(placement="in_rack", failover="paired"), dict(placement="separate_rack", failover="none")])
def test_broadcast_batch_equals_the_same_batch_as_full_copies_and_each_design_alone(kw):
    n = 300
    counts = _counts(n)
    shared = _base(**kw).repeat(n)
    shared.groups["count"] = counts
    full = BatchInput(
        groups={k: np.array(np.broadcast_to(v, (n,) + v.shape[1:]), order="C") for k, v in shared.groups.items()},
        designs={k: np.array(v, order="C") for k, v in shared.designs.items()},
        parts={k: np.array(v, order="C") for k, v in shared.parts.items()},
        dparts={k: np.array(v, order="C") for k, v in shared.dparts.items()},
    )
    a, b = evaluate_batch(shared), evaluate_batch(full)
    for name in SCALARS + TABLES:
        np.testing.assert_allclose(getattr(a, name), getattr(b, name), rtol=1e-12, err_msg=name)
    for name in ("order", "fit_now", "new", "per_rack", "last", "standby_new"):
        np.testing.assert_array_equal(a.pack[name], b.pack[name], err_msg=name)
    for i in (0, 1, 7, 123, n - 1):
        bricks = [f.brick(count=int(counts[i, 0])), f.brick(count=int(counts[i, 1]), expansions=2)]
        alone = evaluate(f.design(*[x for x in bricks if x.count], **kw))
        assert a.total[i] == pytest.approx(alone.price["total"], abs=0.01)
        assert a.rack_count[i] == alone.rack_count
        assert a.read_gbps[i] == pytest.approx(alone.read_gbps, abs=0.01)
        assert a.usable_bytes[i] / 2**50 == pytest.approx(alone.usable_pib, abs=1e-4)


def test_a_measured_client_curve_makes_the_stage_table_depend_on_the_counts():
    curve = {"lam": 1.0, "sigma": 0.05, "kappa": 0.001, "peak_gbps": 9.0, "bricks": 2}
    brick = f.brick(count=1, client_curves={"read": curve, "write": curve})
    base = BatchInput.from_designs([f.design(brick, clients=f.clients(16))])
    batch = base.repeat(4)
    batch.groups["count"] = np.array([[1.0], [2.0], [4.0], [8.0]])
    res = evaluate_batch(batch)
    e2e = res.stages[7, 0, :, 0]
    assert np.all(np.diff(e2e) != 0)  # fewer clients per brick as bricks are added
    for i, c in enumerate((1, 2, 4, 8)):
        alone = evaluate(f.design(dataclasses.replace(brick, count=c), clients=f.clients(16)))
        assert res.read_gbps[i] == pytest.approx(alone.read_gbps, abs=0.01)


def _options():
    """Distinct one- and two-line designs: failover, metadata placement, disks and clients vary."""
    out = []
    for i, (failover, placement) in enumerate(
        [("paired", "in_rack"), ("none", "none"), ("paired", "separate_rack"), ("none", "in_rack"), ("paired", "none")]
    ):
        lines = [f.brick(count=1, disk=(f.DISK4, f.DISK6)[i % 2])]
        if i % 2 == 0:
            lines.append(f.brick(count=1, expansions=1 + i % 2))
        out.append(f.design(*lines, failover=failover, placement=placement, clients=f.clients(40) if i == 3 else None))
    return out


def test_rows_evaluate_options_at_counts_as_the_same_designs_built_in_full():
    options = BatchInput.from_designs(_options())
    n = 400
    rng = np.random.default_rng(11)
    rows = rng.integers(0, len(_options()), size=n)
    counts = rng.integers(0, 25, size=(n, options.groups["count"].shape[1])).astype(float)
    counts[:, 0] = np.maximum(counts[:, 0], 1.0)
    one_line = np.array([len(d.bricks) == 1 for d in _options()])
    counts[one_line[rows], 1] = 0.0  # padding lines stay empty
    shared = BatchInput(
        groups={**options.groups, "count": counts}, designs=options.designs, parts=options.parts, dparts=options.dparts, rows=rows
    )
    pick = lambda d: {k: np.asarray(v)[rows] for k, v in d.items()}  # noqa: E731
    full = BatchInput(
        groups={**pick(options.groups), "count": counts},
        designs=pick(options.designs),
        parts=pick(options.parts),
        dparts=pick(options.dparts),
    )
    a, b = evaluate_batch(shared), evaluate_batch(full)
    for name in SCALARS + TABLES + ("brick_power", "standby_weight", "backend_gbps"):
        np.testing.assert_allclose(getattr(a, name), getattr(b, name), rtol=1e-12, err_msg=name)
    for name in ("order", "fit_now", "new", "per_rack", "last", "standby_new"):
        np.testing.assert_array_equal(a.pack[name], b.pack[name], err_msg=name)
    assert a.bottleneck_names() == b.bottleneck_names()
    for i in (0, 5, 17, 250, n - 1):
        design = _options()[rows[i]]
        bricks = [dataclasses.replace(x, count=int(c)) for x, c in zip(design.bricks, counts[i], strict=False) if c > 0]
        alone = evaluate(dataclasses.replace(design, bricks=tuple(bricks)))
        assert a.total[i] == pytest.approx(alone.price["total"], abs=0.01)
        assert a.rack_count[i] == alone.rack_count and a.units_used[i] == alone.units_used
        assert a.write_gbps[i] == pytest.approx(alone.write_gbps, abs=0.01)
        assert a.degraded_gbps[1, i] == pytest.approx(alone.degraded["write_gbps"], abs=0.01)


def test_rows_with_a_measured_client_curve_fall_back_to_full_arrays():
    curve = {"lam": 1.0, "sigma": 0.05, "kappa": 0.001, "peak_gbps": 9.0, "bricks": 2}
    brick = f.brick(count=1, client_curves={"read": curve, "write": curve})
    options = BatchInput.from_designs([f.design(brick, clients=f.clients(16)), f.design(f.brick(count=1))])
    rows = np.array([0, 1, 0, 0])
    counts = np.array([[1.0], [3.0], [4.0], [8.0]])
    res = evaluate_batch(
        BatchInput(
            groups={**options.groups, "count": counts}, designs=options.designs, parts=options.parts, dparts=options.dparts, rows=rows
        )
    )
    for i in range(4):
        design = [f.design(brick, clients=f.clients(16)), f.design(f.brick(count=1))][rows[i]]
        alone = evaluate(dataclasses.replace(design, bricks=(dataclasses.replace(design.bricks[0], count=int(counts[i, 0])),)))
        assert res.read_gbps[i] == pytest.approx(alone.read_gbps, abs=0.01)


def test_at_counts_builds_the_rows_batch_without_copying_the_options():
    options = BatchInput.from_designs(_options())
    rows, counts = np.array([4, 0, 0, 2]), np.array([[3.0, 0.0], [1.0, 2.0], [7.0, 1.0], [2.0, 5.0]])
    batch = options.at_counts(rows, counts)
    assert batch.size == 4 and batch.groups["disk_bytes"] is options.groups["disk_bytes"]
    res = evaluate_batch(batch)
    for i in range(4):
        design = _options()[rows[i]]
        bricks = [dataclasses.replace(x, count=int(c)) for x, c in zip(design.bricks, counts[i], strict=False) if c > 0]
        assert res.total[i] == pytest.approx(evaluate(dataclasses.replace(design, bricks=tuple(bricks))).price["total"], abs=0.01)
