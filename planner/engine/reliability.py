"""Rebuilds and data-loss risk, OSTs of mixed sizes, and migration time. Pure Python, no Django.

Rebuild time
    A failed disk is rebuilt at the disk's sustained (surface-averaged) rate times the rebuild
    share the RAID implementation gives it while the file system keeps serving I/O:
    time = disk capacity / (sustained rate x share). A declustered layout (dRAID, GPFS/Spectrum
    Scale RAID, dynamic disk pools) spreads the rebuild over every disk of its pool, so it is
    faster by the pool's width over the stripe's width (Holland & Gibson, "Parity declustering for
    continuous operation in redundant disk arrays", ASPLOS 1992; the OpenZFS dRAID documentation
    states the same ratio for sequential resilver).

Mean time to data loss (MTTDL)
    The Markov approximations for independent disk failures of Patterson, Gibson & Katz (1988)
    and Chen, Lee, Gibson, Katz & Patterson, "RAID: High-Performance, Reliable Secondary
    Storage", ACM Computing Surveys 26(2), 1994, section 3.4, extended to t failures tolerated:
    a group of N disks reaches t failed disks at the rate

        N (N-1) ... (N-t+1) MTTR^(t-1) / MTTF^t

    and then loses data if one more disk fails before the rebuild ends (probability
    (N-t) MTTR / MTTF) or if the rebuild, now without redundancy, meets an unrecoverable read
    error while reading the N-t surviving disks (Chen et al. 1994's "double disk failure" and
    "disk failure plus bit error" terms; Elerath & Pecht, IEEE Trans. Computers 58(3), 2009, show
    the read-error term dominates for large disks). So

        1 / MTTDL = N...(N-t+1) MTTR^(t-1) / MTTF^t x ((N-t) MTTR / MTTF + P_ure(N-t disks))

    which for t = 1 without read errors is RAID 5's MTTF^2 / (N (N-1) MTTR) and for t = 2 is
    RAID 6's MTTF^3 / (N (N-1) (N-2) MTTR^2). raidz1-3 are t = 1..3 (the same layouts in
    software). RAID 10 loses data when a disk's mirror partner fails (or meets a read error)
    during its rebuild: 1 / MTTDL = N / MTTF x (MTTR / MTTF + P_ure(1 disk)). A declustered pool
    of D disks is counted conservatively as one group of D disks (any t+1 concurrent failures in
    the pool are taken to lose data) with the shorter MTTR, and the read-error term over the
    stripe's N-t surviving disks' worth of data.
    MTTF = 8766 h / AFR; P_ure(k disks) = 1 - exp(-k x disk bits x URE rate).

File system
    With G groups (or pools) in all, data-loss events arrive at sum(G_i / MTTDL_i) per hour, so
    P(data loss within a year) = 1 - exp(-8766 h x sum(G_i / MTTDL_i)).
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from .capacity import level_code, usable_bytes_per_ost
from .inputs import RAID_PARITY, BrickGroup, DesignInput
from .units import GB, HOURS_PER_YEAR, MB, TIB

REBUILD_SHARE_HARDWARE = 0.30
REBUILD_SHARE_HARDWARE_SOURCE = (
    "Assumption: a RAID controller gives a rebuild 30 % of the disks' rate while serving I/O "
    "(Broadcom MegaRAID's default rebuild rate is 30 %, StorCLI 'set rebuildrate'; other controllers' priorities differ)"
)
REBUILD_SHARE_SOFTWARE = 0.50
REBUILD_SHARE_SOFTWARE_SOURCE = (
    "Assumption: software RAID (Linux md, ZFS) rebuilds at half the disks' sustained rate under streaming load "
    "(md throttles between speed_limit_min 1 MB/s and speed_limit_max 200 MB/s per disk as other I/O allows; ZFS resilver likewise yields)"
)
DEFAULT_AFR_PERCENT = 0.73
"""Used when a disk has no AFR: 1.2 million hours MTBF, a common enterprise data sheet figure (assumption)."""
DEFAULT_URE_PER_BIT = 1e-15
"""Used when a disk has no URE rate: 1 in 10^15 bits, the common enterprise NL-SAS data sheet figure (assumption)."""
OST_SPREAD_THRESHOLD = 0.17
"""OST sizes differing by more than 17 %: Lustre's allocator stops round-robin and weights new
objects by free space when OSTs' free space differs by more than qos_threshold_rr = 17 %
(Lustre Operations Manual, "Managing Free Space")."""
DEFAULT_PER_CLIENT_GBPS = 0.25
"""Assumption: one rsync-style copy stream per client moves about 250 MB/s of large files
(single-threaded copy tools reach a few hundred MB/s; small files are slower). Settable."""


def mttf_hours(afr_percent: float) -> float:
    """Mean time to failure in hours from an annualised failure rate in % (MTTF = 8766 h / AFR)."""
    return HOURS_PER_YEAR / (afr_percent / 100.0)


def tolerated_failures(level: str, parity: int) -> int:
    """Disk failures a group survives: 1 for raid5/raidz1 and RAID 10, 2 for raid6/raidz2, 3 for raidz3."""
    if level == "raid10":
        return 1
    return RAID_PARITY.get(level, parity)


def declustering_ratio(pool_disks: int, group_disks: int) -> float:
    """How much faster a declustered pool rebuilds: pool width over stripe width (at least 1)."""
    return max(1.0, pool_disks / max(group_disks, 1))


def rebuild_hours(disk_bytes: float, sustained_mbps: float, share: float, ratio: float = 1.0) -> float:
    """Hours to rebuild one disk: capacity / (sustained MB/s x rebuild share x declustering ratio)."""
    return disk_bytes / (sustained_mbps * MB * share * ratio) / 3600.0


def p_unrecoverable(disks_read: float, disk_bytes: float, ure_per_bit: float) -> float:
    """Probability of at least one unrecoverable read error reading `disks_read` whole disks (Poisson)."""
    return -math.expm1(-disks_read * disk_bytes * 8.0 * ure_per_bit)


def mttdl_hours(
    level: str, width: int, parity: int, mttf: float, mttr: float, p_ure: float = 0.0, failure_width: int | None = None
) -> float:
    """Mean time to data loss of one group (see the module docstring), hours.

    `width`: disks in the stripe (data + parity); `p_ure`: the probability of a read error while
    rebuilding without redundancy (reading the surviving disks); `failure_width`: disks whose
    failures count (the pool of a declustered layout; default `width`)."""
    n = failure_width or width
    if level == "raid10":
        rate = n / mttf * (mttr / mttf + p_ure)
    else:
        t = tolerated_failures(level, parity)
        reach = 1.0
        for i in range(t):
            reach *= n - i
        reach *= mttr ** (t - 1) / mttf**t
        rate = reach * ((n - t) * mttr / mttf + p_ure)
    return math.inf if rate <= 0 else 1.0 / rate


def annual_loss_probability(units: float, mttdl: float, years: float = 1.0) -> float:
    """P(data loss within `years`) for `units` independent groups of the given MTTDL (hours)."""
    if mttdl == math.inf or units <= 0:
        return 0.0
    return -math.expm1(-units * HOURS_PER_YEAR * years / mttdl)


def rebuild_share(group: BrickGroup) -> tuple[float, str]:
    """The share of a disk's rate the brick's RAID gives a rebuild, with its source."""
    if group.head.controllers > 0 and not group.raid.zfs:
        return REBUILD_SHARE_HARDWARE, REBUILD_SHARE_HARDWARE_SOURCE
    return REBUILD_SHARE_SOFTWARE, REBUILD_SHARE_SOFTWARE_SOURCE


@dataclass(frozen=True)
class LineReliability:
    """Rebuild and risk figures of one brick line."""

    template: str
    level: str
    width: int
    declustered: bool
    pool_disks: int
    rebuild_share: float
    rebuild_mbps: float
    rebuild_hours: float
    mttf_hours: float
    ure_per_bit: float
    p_ure_rebuild: float
    mttdl_hours: float
    """Of one group (or one declustered pool)."""
    units_per_brick: int
    """Groups (or declustered pools) per brick."""
    units: int
    """In the whole line: units per brick x bricks."""
    rebuilding_loss: float
    """Share of a brick's throughput lost while one of its disks rebuilds."""
    read_gbps_rebuilding: float
    write_gbps_rebuilding: float

    def as_dict(self) -> dict:
        return {
            "brick": self.template,
            "level": self.level,
            "stripe_width": self.width,
            "declustered": self.declustered,
            "pool_disks": self.pool_disks,
            "rebuild_share": self.rebuild_share,
            "rebuild_mbps": round(self.rebuild_mbps, 1),
            "rebuild_hours": round(self.rebuild_hours, 2),
            "disk_mttf_hours": round(self.mttf_hours),
            "ure_per_bit": self.ure_per_bit,
            "p_read_error_in_rebuild": _sig(self.p_ure_rebuild),
            "group_mttdl_hours": _sig(self.mttdl_hours),
            "groups": self.units,
            "read_gbps_per_brick_rebuilding": round(self.read_gbps_rebuilding, 3),
            "write_gbps_per_brick_rebuilding": round(self.write_gbps_rebuilding, 3),
            "throughput_lost_while_rebuilding": round(self.rebuilding_loss, 4),
        }


def _sig(value: float, digits: int = 4) -> float | None:
    """`digits` significant figures (probabilities and MTTDLs span many orders); None for infinity."""
    if value == math.inf:
        return None
    if value == 0:
        return 0.0
    return float(f"{value:.{digits}g}")


def line_reliability(group: BrickGroup, count: int, sustained_mbps: float, read_gbps: float, write_gbps: float) -> LineReliability:
    """Rebuild time, per-group MTTDL and the brick's throughput while rebuilding, for `count` bricks
    of `group` whose disks stream at `sustained_mbps` and deliver `read_gbps`/`write_gbps` each."""
    raid, disk = group.raid, group.disk
    width = raid.group_disks
    share, _ = rebuild_share(group)
    declustered = bool(raid.declustered) and raid.level != "raid10"
    pool = raid.disks if declustered else width
    ratio = declustering_ratio(pool, width) if declustered else 1.0
    mttr = rebuild_hours(disk.capacity_bytes, sustained_mbps, share, ratio)
    mttf = mttf_hours(disk.afr_percent if disk.afr_percent > 0 else DEFAULT_AFR_PERCENT)
    ure = disk.ure_per_bit if disk.ure_per_bit > 0 else DEFAULT_URE_PER_BIT
    survivors = 1 if raid.level == "raid10" else width - tolerated_failures(raid.level, raid.parity)
    p_ure = p_unrecoverable(survivors, disk.capacity_bytes, ure)
    mttdl = mttdl_hours(raid.level, width, raid.parity, mttf, mttr, p_ure, failure_width=pool)
    units_per_brick = group.enclosures if declustered else group.osts
    if declustered:
        lost = share / group.enclosures  # every disk of one enclosure's pool gives the rebuild its share
    else:
        lost = 1.0 / max(group.osts, 1)  # the rebuilding group's share of the brick
    return LineReliability(
        template=group.template,
        level=raid.level,
        width=width,
        declustered=declustered,
        pool_disks=pool,
        rebuild_share=share,
        rebuild_mbps=sustained_mbps * share * ratio,
        rebuild_hours=mttr,
        mttf_hours=mttf,
        ure_per_bit=ure,
        p_ure_rebuild=p_ure,
        mttdl_hours=mttdl,
        units_per_brick=units_per_brick,
        units=units_per_brick * count,
        rebuilding_loss=lost,
        read_gbps_rebuilding=read_gbps * (1.0 - lost),
        write_gbps_rebuilding=write_gbps * (1.0 - lost),
    )


def system_mttdl(lines: list[LineReliability]) -> float:
    """The file system's MTTDL in hours: 1 / sum over lines of groups / group MTTDL."""
    rate = sum(line.units / line.mttdl_hours for line in lines if line.mttdl_hours != math.inf)
    return math.inf if rate <= 0 else 1.0 / rate


ASSUMPTIONS = (
    "Rebuild time = disk capacity / (the disk's surface-averaged sustained rate x the rebuild share); declustered layouts "
    "are faster by pool width / stripe width (Holland & Gibson 1992). The whole disk is rebuilt (ZFS resilvers only allocated "
    "data, so a part-full raidz pool is faster).",
    "Rebuild share: " + REBUILD_SHARE_HARDWARE_SOURCE + "; " + REBUILD_SHARE_SOFTWARE_SOURCE + ".",
    "While a disk rebuilds, its brick loses the rebuilding RAID group's share of its throughput (one OST of the brick's OSTs; "
    "for a declustered pool, the rebuild share of every disk of that enclosure). Where a controller or link rather than the "
    "disks limits the brick the real loss is smaller.",
    "MTTDL from the Markov approximations of Patterson, Gibson & Katz (1988) and Chen et al. (ACM Computing Surveys 1994) "
    "with the unrecoverable-read-error term during a rebuild without redundancy (Elerath & Pecht 2009): independent failures at "
    "MTTF = 8766 h / AFR, MTTR = the rebuild time; a declustered pool is counted as one group of all its disks (conservative).",
    f"A disk without a data-sheet AFR is taken at {DEFAULT_AFR_PERCENT} %, without a URE rate at 1 in 10^15 bits (assumptions). "
    "Field AFRs are often higher than data sheets' and failures are correlated (same batch, same age): treat the probability "
    "as a lower bound. Metadata targets are not counted.",
)


def design_reliability(design: DesignInput, sustained_mbps: list[float], brick_read: list[float], brick_write: list[float]) -> dict:
    """The Evaluation's `reliability` object: per line rebuild time and throughput while rebuilding,
    and for the file system the MTTDL and the annual probability of data loss."""
    lines = [line_reliability(g, g.count, sustained_mbps[j], brick_read[j], brick_write[j]) for j, g in enumerate(design.bricks)]
    mttdl = system_mttdl(lines)
    units = sum(line.units for line in lines)
    return {
        "lines": [line.as_dict() for line in lines],
        "rebuild_hours_max": round(max((line.rebuild_hours for line in lines), default=0.0), 2),
        "groups": units,
        "mttdl_hours": _sig(mttdl),
        "annual_loss_probability": _sig(annual_loss_probability(1.0, mttdl)),
        "assumptions": list(ASSUMPTIONS),
    }


def group_loss_rate(group: BrickGroup, sustained_mbps: float) -> float:
    """Data-loss events per hour per brick of `group` (units per brick / MTTDL): what the solver
    multiplies by the count (P = 1 - exp(-count x rate x 8766))."""
    line = line_reliability(group, 1, sustained_mbps, 0.0, 0.0)
    return 0.0 if line.mttdl_hours == math.inf else line.units_per_brick / line.mttdl_hours


# -- mixed generations ----------------------------------------------------------------------


def ost_bytes(group: BrickGroup) -> float:
    """Usable bytes of one OST of `group`."""
    r = group.raid
    return float(usable_bytes_per_ost(r.data, r.parity, group.disk.capacity_bytes, group.fs_overhead_fraction, level_code(r.level)))


def ost_balance(
    design: DesignInput, line_read: list[float], line_write: list[float], system_read: float, system_write: float
) -> dict | None:
    """OSTs of different sizes in one file system (None with a single OST size).

    Lustre's allocator weights new objects by free space once OSTs' free space differs by more than
    17 %, so the bigger OSTs receive more new objects; once the smaller OSTs are full, new data
    lands only on the lines holding the largest OSTs, and the full file system writes (and reads
    what it last wrote) at those lines' throughput alone. `line_read`/`line_write` are each line's
    GB/s (all its bricks); the figure is capped by the system's (clients, fabric)."""
    sizes = [ost_bytes(g) for g in design.bricks]
    if len(set(round(s) for s in sizes)) <= 1:
        return None
    largest, smallest = max(sizes), min(sizes)
    big = [j for j, s in enumerate(sizes) if s >= largest / (1.0 + OST_SPREAD_THRESHOLD)]
    spread = largest / smallest - 1.0 if smallest > 0 else math.inf
    return {
        "ost_tib": [round(s / TIB, 2) for s in sizes],
        "ost_tib_smallest": round(smallest / TIB, 2),
        "ost_tib_largest": round(largest / TIB, 2),
        "spread": round(spread, 3) if spread != math.inf else None,
        "uneven": spread > OST_SPREAD_THRESHOLD,
        "threshold": OST_SPREAD_THRESHOLD,
        "largest_lines": [design.bricks[j].template for j in big],
        "read_gbps_once_smaller_full": round(min(sum(line_read[j] for j in big), system_read), 2),
        "write_gbps_once_smaller_full": round(min(sum(line_write[j] for j in big), system_write), 2),
    }


# -- migration ------------------------------------------------------------------------------


def time_to_copy(
    n_bytes: float,
    clients: int,
    client_gbps: float,
    source_gbps: float,
    target_gbps: float,
    per_client_rate_gbps: float = DEFAULT_PER_CLIENT_GBPS,
) -> dict:
    """Time to copy `n_bytes` between two file systems with `clients` copy clients.

    The copy runs at the slowest of: the source's read rate, the target's write rate, and the
    clients' rate (clients x the smaller of each client's link and the per-client copy rate, an
    assumption). Returns hours, days, the rate and which side bounds it ("source", "target" or
    "clients"; on a tie, the first of these)."""
    per_client = min(client_gbps, per_client_rate_gbps) if per_client_rate_gbps > 0 else client_gbps
    sides = {"source": source_gbps, "target": target_gbps, "clients": clients * per_client}
    bound = min(sides, key=lambda k: sides[k])
    rate = sides[bound]
    seconds = n_bytes / (rate * GB) if rate > 0 else math.inf
    return {
        "hours": seconds / 3600.0,
        "days": seconds / 86400.0,
        "rate_gbps": rate,
        "bound_by": bound,
        "sides_gbps": sides,
        "per_client_gbps": per_client,
    }
