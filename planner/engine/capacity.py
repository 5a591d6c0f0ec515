"""Capacity: RAID layout -> OSTs -> raw and usable bytes. Vectorised over numpy arrays.

One RAID group (virtual disk) of `data + parity` disks is one Lustre OST. Raw capacity counts
every installed disk (spares included) in decimal bytes; usable capacity is what `df` shows as
the file system's size: OSTs x data disks x disk bytes x (1 - file-system overhead).
"""

from __future__ import annotations

import numpy as np


def osts_per_brick(enclosures, groups_per_enclosure):
    """OSTs in one brick: one per RAID group in each enclosure."""
    return np.asarray(enclosures) * np.asarray(groups_per_enclosure)


def disks_per_brick(enclosures, groups_per_enclosure, data_disks, parity_disks, spares_per_enclosure):
    """Installed disks in one brick: RAID group members plus hot spares, in every enclosure."""
    per_enclosure = np.asarray(groups_per_enclosure) * (np.asarray(data_disks) + np.asarray(parity_disks))
    return np.asarray(enclosures) * (per_enclosure + np.asarray(spares_per_enclosure))


def usable_bytes_per_ost(data_disks, disk_bytes, fs_overhead_fraction):
    """Usable bytes of one OST: data disks x disk size, less the file-system overhead."""
    return np.asarray(data_disks) * np.asarray(disk_bytes) * (1.0 - np.asarray(fs_overhead_fraction))
