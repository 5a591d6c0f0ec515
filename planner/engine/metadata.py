"""Metadata sizing: from a file count and a file-size distribution, the metadata capacity a Lustre
file system needs, the share of files that live entirely on the MDT (Data-on-MDT), how many MDTs,
and the smallest metadata cell that holds it. Pure Python.

Figures (defaults, from the Lustre Operations Manual): an ldiskfs MDT is formatted with one inode
per 2,560 bytes (1,024-byte inodes), and an ldiskfs MDT holds at most about 4 billion inodes.
With Data-on-MDT, the first `dom_stripe_bytes` of every file live on the MDT, so a file no larger
than the stripe lives there entirely.
"""

from __future__ import annotations

import math
from dataclasses import asdict, dataclass

INODE_RATIO_BYTES = 2560
MAX_INODES_PER_MDT = 4_000_000_000


@dataclass(frozen=True)
class CellOption:
    slug: str
    name: str
    mdts: int
    mdt_bytes: float  # usable bytes per MDT


@dataclass
class MetadataSizing:
    files: int
    files_on_mdt_share: float
    inode_bytes: float
    dom_bytes: float
    needed_bytes: float
    mdts_needed: int
    cell: str | None
    cell_name: str | None
    cell_capacity_bytes: float | None
    message: str

    def as_dict(self) -> dict:
        return asdict(self)


def _buckets(histogram: list[tuple[float, float]]) -> list[tuple[float, float, float]]:
    """(lower, upper, fraction) from (upper bound bytes, fraction of files) pairs, sorted; fractions normalised."""
    pairs = sorted((float(u), float(f)) for u, f in histogram)
    total = sum(f for _, f in pairs)
    if total <= 0:
        raise ValueError("the size distribution's fractions add up to zero")
    out, lower = [], 0.0
    for upper, fraction in pairs:
        out.append((lower, upper, fraction / total))
        lower = upper
    return out


def size_metadata(
    *,
    files: int,
    histogram: list[tuple[float, float]],
    dom_stripe_bytes: float = 0.0,
    inode_ratio_bytes: float = INODE_RATIO_BYTES,
    headroom: float = 0.2,
    cells: list[CellOption] = (),
) -> MetadataSizing:
    """Capacity, Data-on-MDT share and MDT count for `files` files sized as in `histogram`; the smallest cell that fits.

    Within a histogram bucket file sizes are taken at the bucket's upper bound (conservative).
    """
    if files < 1:
        raise ValueError("files must be at least 1")
    buckets = _buckets(histogram)
    dom = max(float(dom_stripe_bytes), 0.0)
    on_mdt = sum(f for lo, up, f in buckets if dom > 0 and up <= dom)
    # a bucket straddling the stripe: the part below it, linearly
    on_mdt += sum(f * (dom - lo) / (up - lo) for lo, up, f in buckets if dom > 0 and lo < dom < up)
    dom_bytes = files * sum(f * min(up, dom) for lo, up, f in buckets) if dom > 0 else 0.0
    inode_bytes = files * inode_ratio_bytes
    needed = (inode_bytes + dom_bytes) * (1.0 + headroom)
    by_inodes = math.ceil(files / MAX_INODES_PER_MDT)
    fitting = []
    for cell in cells:
        capacity = cell.mdts * cell.mdt_bytes
        mdts_needed = max(by_inodes, math.ceil(needed / cell.mdt_bytes))
        if mdts_needed <= cell.mdts:
            fitting.append((capacity, cell, mdts_needed))
    if fitting:
        capacity, cell, mdts_needed = min(fitting, key=lambda t: t[0])
        message = (
            f"{files:,} files need {needed / 1e12:.2f} TB of metadata space ({headroom:.0%} headroom included) on "
            f"{mdts_needed} MDT{'s' if mdts_needed > 1 else ''}; the {cell.name} holds {capacity / 1e12:.2f} TB."
        )
        return MetadataSizing(
            files=files,
            files_on_mdt_share=on_mdt,
            inode_bytes=inode_bytes,
            dom_bytes=dom_bytes,
            needed_bytes=needed,
            mdts_needed=mdts_needed,
            cell=cell.slug,
            cell_name=cell.name,
            cell_capacity_bytes=capacity,
            message=message,
        )
    largest = max(cells, key=lambda c: c.mdts * c.mdt_bytes, default=None)
    mdts_needed = max(by_inodes, math.ceil(needed / largest.mdt_bytes)) if largest else by_inodes
    message = (
        f"{files:,} files need {needed / 1e12:.2f} TB of metadata space on {mdts_needed} MDTs; no metadata cell in the "
        f"catalogue holds that"
        + (f" (the largest, {largest.name}, holds {largest.mdts * largest.mdt_bytes / 1e12:.2f} TB)." if largest else ".")
    )
    return MetadataSizing(
        files=files,
        files_on_mdt_share=on_mdt,
        inode_bytes=inode_bytes,
        dom_bytes=dom_bytes,
        needed_bytes=needed,
        mdts_needed=mdts_needed,
        cell=None,
        cell_name=None,
        cell_capacity_bytes=None,
        message=message,
    )
