"""Throughput: per-stage limits of a brick, read and write, and the stage that limits each.

All functions are vectorised: arguments are numpy arrays of any common shape (designs x brick
groups), results are GB/s (10^9 bytes/s). The model, stage by stage:

- disks: data disks x sustained read rate; for writes every RAID-group disk works, and each byte
  of data costs `write_amplification` disk bytes (full stripes: (n+p)/n; partial stripes: the
  controller's cheaper of read-modify-write and reconstruct-write).
- expansion_link: Lustre spreads file-per-process I/O evenly over OSTs, so the OSTs behind the
  shared expansion link carry exp_osts/total_osts of the brick's traffic; the brick can go no
  faster than link x total_osts / exp_osts (writes also carry parity and RMW traffic).
- raid_controller: the controllers' sustained limit (writes at full-stripe cost scale with the
  amplification), and their large-request service rate x request size; with no controllers
  (software RAID) the servers' parity engine.
- host_links: SAS (or iSCSI) ports cabled from the head to the brick's own server(s); with HA
  pairing half of each server's ports go to its partner's enclosure.
- measured_backend: when a calibration gives a brick's obdfilter-survey figure, it caps the back end.
- server: the SAS HBAs' payload (PCIe-capped); network: the network adapters' payload.
The brick delivers min(stages) x the tuning profile's software efficiency (IOR over
obdfilter-survey).
"""

from __future__ import annotations

import numpy as np

from .inputs import STAGES

STAGE_INDEX = {name: i for i, name in enumerate(STAGES)}


def write_amplification(request_kib, segment_kib, data_disks, parity_disks, mirrored):
    """Disk I/O per byte of data written, for requests of `request_kib` on a RAID group.

    Parity RAID: each full stripe costs n+p segment writes for n data segments; a partial stripe
    of k segments costs min(2(k+p), n+p) segment I/Os (read-modify-write, or reconstruct-write
    reading the n-k untouched segments). Mirrors (RAID 10) always cost (n+p)/n with p = n.
    """
    request = np.asarray(request_kib, dtype=float)
    segment = np.asarray(segment_kib, dtype=float)
    n = np.asarray(data_disks, dtype=float)
    p = np.asarray(parity_disks, dtype=float)
    stripe = n * segment
    full = np.floor(request / stripe)
    remainder = request - full * stripe
    partial_segments = np.ceil(remainder / segment)
    partial_cost = np.where(remainder > 0, np.minimum(2.0 * (partial_segments + p), n + p), 0.0)
    cost = full * (n + p) + partial_cost
    data_segments = request / segment
    parity_amp = cost / data_segments
    full_amp = (n + p) / n
    return np.where(np.asarray(mirrored, dtype=bool), full_amp, parity_amp)


def full_stripe_amplification(data_disks, parity_disks):
    """Disk I/O per data byte for aligned full-stripe writes: (n+p)/n."""
    n = np.asarray(data_disks, dtype=float)
    return (n + np.asarray(parity_disks, dtype=float)) / n


def stage_limits(b, *, request_kib, paired):
    """Per-brick stage limits in GB/s, shape (..., len(STAGES), 2): [..., stage, (read, write)].

    `b` is a mapping of arrays (see `BatchInput`); `request_kib` and `paired` broadcast against
    the group arrays.
    """
    inf = np.inf
    n = b["raid_data"].astype(float)
    p = b["raid_parity"].astype(float)
    enclosures = 1.0 + b["expansions"]
    groups = b["groups_per_enclosure"].astype(float)
    amp = write_amplification(request_kib, b["segment_kib"], n, p, b["mirrored"])
    amp_full = full_stripe_amplification(n, p)

    # disks
    data_disks = enclosures * groups * n
    group_disks = enclosures * groups * (n + p)
    disks_read = data_disks * b["disk_read_mbps"] / 1000.0
    disks_write = group_disks * b["disk_write_mbps"] / amp / 1000.0

    # expansion link, shared by every expansion enclosure behind the head
    total_osts = enclosures * groups
    exp_osts = b["expansions"] * groups
    share = total_osts / np.maximum(exp_osts, 1.0)
    link = b["exp_link_gbps"]
    exp_read = np.where(exp_osts > 0, link * share, inf)
    exp_write = np.where(exp_osts > 0, link / amp * share, inf)

    # RAID controllers (or software RAID in the servers)
    servers = b["servers_per_brick"].astype(float)
    request_bytes = np.asarray(request_kib, dtype=float) * 1024.0
    rate = b["ctrl_requests_per_s"]
    rate_limit = np.where(rate > 0, rate * request_bytes / 1e9, inf)
    has_ctrl = b["controllers"] > 0
    ctrl_read = np.where(has_ctrl, np.minimum(b["ctrl_read_mbps"] / 1000.0, rate_limit), b["sw_raid_read_mbps"] * servers / 1000.0)
    ctrl_write_bw = np.where(has_ctrl, b["ctrl_write_mbps"], b["sw_raid_write_mbps"] * servers) / 1000.0 * amp_full / amp
    ctrl_write = np.where(has_ctrl, np.minimum(ctrl_write_bw, rate_limit), ctrl_write_bw)

    # host links from the head to this brick's server(s)
    ports = b["host_ports"].astype(float)
    own_ports = np.where(np.asarray(paired, dtype=bool), np.maximum(np.floor(ports / 2.0), 1.0), ports)
    host = own_ports * b["head_uplink_port_gbps"]

    # a measured back end (obdfilter-survey calibration) caps everything behind the OSS
    measured_read = np.where(b["measured_read_gbps"] > 0, b["measured_read_gbps"], inf)
    measured_write = np.where(b["measured_write_gbps"] > 0, b["measured_write_gbps"], inf)

    # server (SAS HBAs, PCIe-capped) and network adapters
    server = np.where(b["hba_count"] > 0, b["hba_count"] * b["hba_gbps"] * servers, inf)
    network = b["net_count"] * b["net_gbps"] * servers

    shape = np.broadcast(disks_read, exp_read, ctrl_read, host, measured_read, server, network, disks_write).shape
    out = np.empty(shape + (len(STAGES), 2))
    for i, (r, w) in enumerate(
        [
            (disks_read, disks_write),
            (exp_read, exp_write),
            (ctrl_read, ctrl_write),
            (host, host),
            (measured_read, measured_write),
            (server, server),
            (network, network),
        ]
    ):
        out[..., i, 0] = r
        out[..., i, 1] = w
    return out


def brick_delivery(stages, read_efficiency, write_efficiency):
    """From stage limits (..., S, 2): delivered GB/s per brick (..., 2) and limiting stage (..., 2)."""
    limiting = np.argmin(stages, axis=-2)
    raw = np.min(stages, axis=-2)
    eff = np.stack(np.broadcast_arrays(np.asarray(read_efficiency, float), np.asarray(write_efficiency, float)), axis=-1)
    return raw * eff, limiting
