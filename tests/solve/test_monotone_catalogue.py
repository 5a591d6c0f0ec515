"""The pruned search assumes that, for one brick line, capacity, read and write GB/s, price and racks do not
fall as the brick count grows, where `monotone_options` says so. Checked here over the real catalogue:
every template with every disk and expansion count it takes, under several racks' worth of settings, each
evaluated at every count from 1 to 500."""

import numpy as np
import pytest

from hardware_catalog import models as cat
from planner.engine import BatchInput, evaluate_batch
from planner.engine.solver import monotone_options
from planner.services.solve import _options

pytestmark = pytest.mark.django_db
COUNTS = 500

SETTINGS = [
    {"metadata": {"placement": "in_rack"}},
    {"metadata": {"placement": "separate_rack"}, "tuning": "default"},
    {"metadata": {"placement": "none"}, "failover": "none"},
    {"metadata": {"placement": "in_rack"}, "clients": {"count": 64, "adapter": "ib-fdr"}},
]


@pytest.mark.parametrize("settings", SETTINGS, ids=lambda s: "-".join(f"{k}" for k in s) + f"-{s['metadata']['placement']}")
def test_figures_do_not_fall_with_the_brick_count_for_options_said_to_be_monotone(settings):
    request = {
        "templates": list(cat.BrickTemplate.objects.filter(owner__isnull=True).values_list("slug", flat=True)),
        "disks": list(cat.Disk.objects.values_list("slug", flat=True)),
        "expansions": [0, 1, 2, 3, 4],
        **settings,
    }
    options, described = _options(request, None)
    assert len(options) >= 20
    base = BatchInput.from_designs(options)
    mono = monotone_options(base)
    assert mono.mean() >= 0.9, [d["template"] + "/" + d["disk"] for d, m in zip(described, mono, strict=True) if not m]
    rows = np.repeat(np.arange(len(options)), COUNTS)
    batch = BatchInput(
        groups={k: v[rows] for k, v in base.groups.items()},
        designs={k: v[rows] for k, v in base.designs.items()},
        parts={k: v[rows] for k, v in base.parts.items()},
        dparts={k: v[rows] for k, v in base.dparts.items()},
    )
    batch.groups["count"] = np.tile(np.arange(1, COUNTS + 1, dtype=float), len(options))[:, None]
    res = evaluate_batch(batch)
    for name, figure in (
        ("usable", res.usable_bytes),
        ("read", res.read_gbps),
        ("write", res.write_gbps),
        ("price", res.total),
        ("racks", res.rack_count),
    ):
        steps = np.diff(np.asarray(figure, dtype=float).reshape(len(options), COUNTS), axis=1)
        falls = (steps < -1e-9 * np.maximum(1.0, np.abs(np.asarray(figure)).max())).any(axis=1)
        bad = [described[i]["template"] + "/" + described[i]["disk"] for i in np.flatnonzero(falls & mono)]
        assert not bad, f"{name} falls with the count for {bad}"
    fits = np.asarray(res.racks_fit).reshape(len(options), COUNTS)
    assert (fits == fits[:, :1]).all()  # rack fit does not depend on the count
