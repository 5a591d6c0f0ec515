"""Evaluate designs in full: rows of one batch, presented as Evaluations (see `present.py`)."""

from __future__ import annotations

from .batch import BatchInput, evaluate_batch
from .inputs import DesignInput
from .present import evaluation
from .results import Evaluation


def evaluate_many(designs: list[DesignInput]) -> list[Evaluation]:
    """Several designs in one batch: design i is row i."""
    batch = BatchInput.from_designs(list(designs))
    res = evaluate_batch(batch)
    return [evaluation(d, batch, res, i) for i, d in enumerate(designs)]


def evaluate(design: DesignInput) -> Evaluation:
    """Usable capacity, throughput with its bottleneck, price, rack fit and warnings of one design:
    row 0 of a batch of one."""
    return evaluate_many([design])[0]
