"""The planning engine: pure Python and numpy, no Django.

Inputs are plain dataclasses (`inputs.py`), built by `planner.services` from the catalogue.
`evaluate(design)` gives one design's full Evaluation; `evaluate_batch(batch)` evaluates N
designs at once as arrays (the single-design path is a batch of one).
"""

from .batch import BatchInput, BatchResult, evaluate_batch
from .evaluate import evaluate, evaluate_many
from .inputs import (
    AdapterParams,
    BrickGroup,
    ClientParams,
    DesignInput,
    DiskParams,
    EnclosureParams,
    FabricParams,
    MdtStorage,
    MetadataParams,
    PartParams,
    PriceParams,
    RackParams,
    RaidLayout,
    ServerParams,
    TuningParams,
)
from .results import Evaluation

__all__ = [
    "AdapterParams",
    "BatchInput",
    "BatchResult",
    "BrickGroup",
    "ClientParams",
    "DesignInput",
    "DiskParams",
    "EnclosureParams",
    "Evaluation",
    "MetadataParams",
    "PartParams",
    "PriceParams",
    "RackParams",
    "TuningParams",
    "evaluate",
    "evaluate_batch",
    "evaluate_many",
    "FabricParams",
    "MdtStorage",
    "RaidLayout",
    "ServerParams",
]
