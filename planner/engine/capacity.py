"""Capacity: RAID layout -> OSTs -> raw and usable bytes. Vectorised over numpy arrays.

One RAID group (virtual disk, or raidz vdev) is one Lustre OST. Raw capacity counts every
installed disk (spares included) in decimal bytes; usable capacity is what `df` shows as the
file systems' size:
- ldiskfs on hardware or md RAID (raid5, raid6, raid10): data disks x disk bytes x (1 - the
  file system's overhead); RAID 10 has as many data disks as mirrors;
- ZFS raidz: the vdev's space as ZFS reports it (raidz padding for 128 KiB blocks, labels), less
  the 1/32 slop space and the OST's metadata share (see `raid.zfs_usable_bytes`).
"""

from __future__ import annotations

import numpy as np

from .raid import zfs_usable_bytes

LEVEL_PARITY, LEVEL_MIRROR, LEVEL_RAIDZ = 0, 1, 2


def level_code(level: str) -> int:
    """0 for parity RAID (raid5/6), 1 for RAID 10, 2 for ZFS raidz1-3."""
    if level == "raid10":
        return LEVEL_MIRROR
    if level.startswith("raidz"):
        return LEVEL_RAIDZ
    return LEVEL_PARITY


def osts_per_brick(enclosures, groups_per_enclosure):
    """OSTs in one brick: one per RAID group in each enclosure."""
    return np.asarray(enclosures) * np.asarray(groups_per_enclosure)


def disks_per_brick(enclosures, groups_per_enclosure, data_disks, parity_disks, spares_per_enclosure):
    """Installed disks in one brick: RAID group members plus hot spares, in every enclosure."""
    per_enclosure = np.asarray(groups_per_enclosure) * (np.asarray(data_disks) + np.asarray(parity_disks))
    return np.asarray(enclosures) * (per_enclosure + np.asarray(spares_per_enclosure))


def usable_bytes_per_ost(data_disks, parity_disks, disk_bytes, fs_overhead_fraction, code):
    """Usable bytes of one OST as df shows it (see the module docstring)."""
    n = np.asarray(data_disks, dtype=float)
    ldiskfs = n * np.asarray(disk_bytes, dtype=float) * (1.0 - np.asarray(fs_overhead_fraction, dtype=float))
    raidz = np.asarray(code) == LEVEL_RAIDZ
    if not raidz.any():
        return ldiskfs
    zfs = zfs_usable_bytes(n, parity_disks, disk_bytes, fs_overhead_fraction)
    return np.where(raidz, zfs, ldiskfs)


MAX_INODES_PER_LDISKFS_MDT = 4_000_000_000
"""ldiskfs holds at most about 4 billion inodes per MDT (Lustre Operations Manual, file system limits)."""


def mdt_figures(mdt) -> dict:
    """A metadata cell's MDT storage: usable bytes over all MDTs, and the inodes they hold at
    one inode per `bytes_per_inode` (capped at ldiskfs's per-MDT limit)."""
    from .inputs import MdtStorage

    assert isinstance(mdt, MdtStorage)
    per_group = float(
        usable_bytes_per_ost(mdt.raid.data, mdt.raid.parity, mdt.disk.capacity_bytes, mdt.fs_overhead_fraction, level_code(mdt.raid.level))
    )
    usable = per_group * mdt.raid.groups
    inodes = usable / max(mdt.bytes_per_inode, 1)
    cap = MAX_INODES_PER_LDISKFS_MDT * max(mdt.mdts, 1)
    return {"usable_bytes": usable, "inodes": min(inodes, cap), "capped": inodes > cap}
