"""The Evaluation of one design, as the public JSON contract (v1) describes it."""

from __future__ import annotations

from dataclasses import dataclass, field


@dataclass
class Evaluation:
    """What the planner tells about a design. Capacity binary (TiB/PiB) except raw (decimal TB);
    throughput GB/s (10^9 B/s); money in `price["currency"]`; power W; weight kg."""

    name: str
    usable_pib: float
    usable_tib: float
    raw_tb: float
    read_gbps: float
    write_gbps: float
    bottleneck: dict
    stages: list
    bricks: list
    degraded: dict
    price: dict
    rack_count: int
    racks: list
    units_used: int
    power_w: float
    weight_kg: float
    counts: dict
    heat_btu_per_h: float = 0.0
    warnings: list = field(default_factory=list)
    assumptions: list = field(default_factory=list)
    sources: dict = field(default_factory=dict)
    metadata: dict | None = None
    reliability: dict | None = None
    """Rebuild time and throughput while rebuilding per line; MTTDL and annual data-loss probability."""
    ost_balance: dict | None = None
    """OSTs of different sizes (mixed generations): None when every OST has the same size."""

    def as_dict(self) -> dict:
        return {
            "name": self.name,
            "usable_pib": round(self.usable_pib, 4),
            "usable_tib": round(self.usable_tib, 1),
            "raw_tb": round(self.raw_tb, 1),
            "read_gbps": round(self.read_gbps, 2),
            "write_gbps": round(self.write_gbps, 2),
            "bottleneck": self.bottleneck,
            "stages": self.stages,
            "bricks": self.bricks,
            "degraded": self.degraded,
            "price": self.price,
            "rack_count": self.rack_count,
            "racks": self.racks,
            "units_used": self.units_used,
            "power_w": round(self.power_w, 1),
            "heat_btu_per_h": round(self.heat_btu_per_h),
            "weight_kg": round(self.weight_kg, 1),
            "counts": self.counts,
            "warnings": self.warnings,
            "assumptions": self.assumptions,
            "sources": self.sources,
            "metadata": self.metadata,
            "reliability": self.reliability,
            "ost_balance": self.ost_balance,
        }
