"""Byte and rate units, stated once.

Disk sizes are vendor decimal (TB = 10^12 bytes); usable capacity is binary as `df` shows it
(TiB = 2^40, PiB = 2^50 bytes); throughput is decimal GB/s (10^9 bytes/s); benchmark tools print
MiB/s (2^20 bytes/s).
"""

KIB = 2**10
MIB = 2**20
TB = 10**12
TIB = 2**40
PIB = 2**50
MB = 10**6
GB = 10**9

HOURS_PER_YEAR = 8766  # 365.25 days


def tb_to_bytes(tb: float) -> float:
    """Decimal terabytes to bytes."""
    return tb * TB


def bytes_to_tib(n_bytes):
    """Bytes to binary TiB (works on numpy arrays too)."""
    return n_bytes / TIB


def bytes_to_pib(n_bytes):
    """Bytes to binary PiB (works on numpy arrays too)."""
    return n_bytes / PIB


def bytes_to_tb(n_bytes):
    """Bytes to decimal TB."""
    return n_bytes / TB


def mbps_to_gbps(mbps):
    """MB/s (10^6) to GB/s (10^9)."""
    return mbps / 1000.0


def mibps_to_gbps(mibps):
    """MiB/s, as IOR and obdfilter-survey print, to GB/s."""
    return mibps * MIB / GB


PCIE_LANE_GBPS = {1: 0.25, 2: 0.5, 3: 128 / 130, 4: 2 * 128 / 130, 5: 4 * 128 / 130}
"""Raw payload of one PCIe lane in GB/s per direction, by generation: 2.5, 5, 8, 16 and 32 GT/s
(PCI-SIG base specifications), with 8b/10b line code up to 2.0 and 128b/130b from 3.0."""


def pcie_slot_gbps(adapter_gbps: float, adapter_gen: int, slot_gen: int) -> float:
    """An adapter's usable PCIe payload (`adapter_gbps`, at its own generation) in a slot of an older
    generation: scaled by the lanes' raw rates, so the adapter keeps its share after protocol overhead.
    Unchanged when the slot is as new or newer, or a generation is unknown."""
    if slot_gen >= adapter_gen or slot_gen not in PCIE_LANE_GBPS or adapter_gen not in PCIE_LANE_GBPS:
        return adapter_gbps
    return adapter_gbps * PCIE_LANE_GBPS[slot_gen] / PCIE_LANE_GBPS[adapter_gen]


def link_payload_gbps(lanes: float, lane_gbit: float, efficiency: float) -> float:
    """Payload of a link in GB/s: lanes x signalling Gb/s per lane x efficiency / 8 bits."""
    return lanes * lane_gbit * efficiency / 8.0
