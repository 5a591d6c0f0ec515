"""RAID arithmetic, vectorised: what a write costs the disks, and what a ZFS raidz vdev gives `df`.

Hardware and md RAID (levels raid5, raid6, raid10) write a stripe of `data` segments plus
`parity` segments; ZFS raidz (raidz1-3) writes variable-width stripes in sectors and pads each
allocation to a multiple of parity + 1 sectors. All functions take numpy arrays (any common
shape) or scalars.
"""

from __future__ import annotations

import numpy as np

ZFS_SECTOR = 4096
"""ashift=12, the sector size the Lustre Operations Manual recommends for ZFS OSTs on 4K disks."""
ZFS_RECORD = 1 << 20
"""recordsize=1M, the Lustre Operations Manual's recommendation for ZFS OST datasets."""
ZFS_ACCOUNTING_BLOCK = 1 << 17
"""ZFS reports raidz space as if every block were 128 KiB (SPA_OLD_MAXBLOCKSIZE, vdev_deflate_ratio)."""
ZFS_SLOP_SHIFT = 5
"""spa_slop_shift = 5: ZFS keeps 1/32 of the pool back from `df` (OpenZFS module/zfs/spa_misc.c)."""
ZFS_MAX_SLOP = 128 * 2**30
"""spa_max_slop: since OpenZFS 2.1.0 the slop space is at most 128 GiB (spa_misc.c)."""
ZFS_MIN_SLOP = 128 * 2**20
"""spa_min_slop: at least 128 MiB (or half a tiny pool)."""
ZFS_LABEL_BYTES = 4 * 256 * 1024 + 3.5 * 2**20
"""Per disk: four 256 KiB vdev labels and the 3.5 MiB boot block area (OpenZFS vdev_label.c)."""
ZFS_MIN_MS_SHIFT, ZFS_MAX_MS_SHIFT, ZFS_MS_COUNT = 29, 34, 200
"""Metaslabs: about 200 per vdev, between 512 MiB and 16 GiB each (OpenZFS vdev.c defaults)."""
ZFS_EMBEDDED_LOG_MIN_MS = 64
"""Since OpenZFS 2.1.0 one metaslab of a vdev with at least 64 is set aside for the ZIL (vdev.c)."""


def partial_stripe_amplification(request_kib, segment_kib, data_disks, parity_disks):
    """Disk I/O per data byte for requests of `request_kib` on a parity RAID group, no merging.

    Each full stripe costs n+p segment writes for n data segments; a partial stripe of k
    segments costs min(2(k+p), n+p) segment I/Os (read-modify-write, or reconstruct-write reading
    the n-k untouched segments)."""
    request = np.asarray(request_kib, dtype=float)
    segment = np.asarray(segment_kib, dtype=float)
    n = np.asarray(data_disks, dtype=float)
    p = np.asarray(parity_disks, dtype=float)
    stripe = n * segment
    full = np.floor(request / stripe)
    remainder = request - full * stripe
    partial_segments = np.ceil(remainder / segment)
    partial_cost = np.where(remainder > 0, np.minimum(2.0 * (partial_segments + p), n + p), 0.0)
    return (full * (n + p) + partial_cost) / (request / segment)


def raidz_allocated_sectors(block_bytes, data_disks, parity_disks, sector=ZFS_SECTOR):
    """Sectors a raidz vdev allocates for one block: data sectors, parity sectors per row of
    `data_disks` data sectors, rounded up to a multiple of parity + 1 (OpenZFS vdev_raidz_asize)."""
    n = np.asarray(data_disks, dtype=float)
    p = np.asarray(parity_disks, dtype=float)
    d = np.ceil(np.asarray(block_bytes, dtype=float) / sector)
    total = d + np.ceil(d / np.maximum(n, 1.0)) * p
    return np.ceil(total / (p + 1.0)) * (p + 1.0)


def raidz_write_amplification(data_disks, parity_disks, record=ZFS_RECORD):
    """Disk bytes per data byte when ZFS writes whole records (copy-on-write: never read-modify-write)."""
    return raidz_allocated_sectors(record, data_disks, parity_disks) * ZFS_SECTOR / record


def write_amplification(request_kib, segment_kib, data_disks, parity_disks, level_code, cache_merge=0.0):
    """Disk I/O per byte of data written, for sequential streams of `request_kib` requests.

    level_code: 0 parity RAID (raid5/6), 1 RAID 10 (every byte written twice), 2 ZFS raidz.
    `cache_merge` is the share of partial stripes that the controller's write-back cache (or md's
    stripe cache) coalesces into full stripes before they reach the disks."""
    n = np.asarray(data_disks, dtype=float)
    p = np.asarray(parity_disks, dtype=float)
    code = np.asarray(level_code)
    full = (n + p) / n
    merge = np.minimum(np.maximum(cache_merge, 0.0), 1.0)  # np.clip's Python wrapper costs more than both
    parity = merge * full + (1.0 - merge) * partial_stripe_amplification(request_kib, segment_kib, n, p)
    if (code == 2).any():
        parity = np.where(code == 2, raidz_write_amplification(n, p), parity)
    return np.where(code == 1, 2.0, parity)


def full_stripe_amplification(data_disks, parity_disks, level_code):
    """Disk I/O per data byte for aligned full-stripe writes."""
    n = np.asarray(data_disks, dtype=float)
    p = np.asarray(parity_disks, dtype=float)
    code = np.asarray(level_code)
    out = (n + p) / n
    if (code == 2).any():
        out = np.where(code == 2, raidz_write_amplification(n, p), out)
    return np.where(code == 1, 2.0, out)


def zfs_deflate_ratio(data_disks, parity_disks):
    """Share of a raidz vdev's raw space that ZFS reports: a 128 KiB block's size over what it
    allocates, in 512-byte units rounded down as vdev_deflate_ratio does."""
    asize = raidz_allocated_sectors(ZFS_ACCOUNTING_BLOCK, data_disks, parity_disks) * ZFS_SECTOR
    return np.floor(ZFS_ACCOUNTING_BLOCK / (asize / 512.0)) / 512.0


def zfs_usable_bytes(data_disks, parity_disks, disk_bytes, metadata_fraction=0.0):
    """What `df` shows for a pool of one raidz vdev (OpenZFS 2.1 and later):

    raw space less each disk's labels, rounded down to whole metaslabs (one set aside for the
    ZIL when the vdev has 64 or more), deflated as ZFS reports raidz space (`zfs_deflate_ratio`),
    less the slop space (1/32 of the pool, at most 128 GiB, less half of it at most for the ZIL's
    metaslab, at least 128 MiB), less `metadata_fraction` for the OST's own metadata."""
    n = np.asarray(data_disks, dtype=float)
    p = np.asarray(parity_disks, dtype=float)
    asize = (n + p) * np.maximum(np.asarray(disk_bytes, dtype=float) - ZFS_LABEL_BYTES, 0.0)
    shift = np.clip(np.floor(np.log2(np.maximum(asize, 1.0) / ZFS_MS_COUNT)), ZFS_MIN_MS_SHIFT, ZFS_MAX_MS_SHIFT)
    metaslab = 2.0**shift
    count = np.floor(asize / metaslab)
    embedded = np.where(count >= ZFS_EMBEDDED_LOG_MIN_MS, metaslab, 0.0)
    ratio = zfs_deflate_ratio(n, p)
    normal = (count * metaslab - embedded) * ratio
    slop = np.minimum(normal / 2**ZFS_SLOP_SHIFT, ZFS_MAX_SLOP)
    slop = slop - np.minimum(embedded * ratio, slop / 2.0)
    slop = np.maximum(slop, np.minimum(normal / 2.0, ZFS_MIN_SLOP))
    return (normal - slop) * (1.0 - np.asarray(metadata_fraction, dtype=float))
