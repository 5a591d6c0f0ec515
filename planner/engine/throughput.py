"""Throughput: per-stage limits of a brick, read and write, and the stage that limits each.

Vectorised over brick lines and designs: `b` is a mapping of arrays of one common (broadcastable)
shape, in `batch.evaluate_batch` design last, (G, N) (see `batch.GROUP_FIELDS`); results are GB/s
(10^9 bytes/s) laid out stages first, (S, 2, G, N), so that the minimum over the stages runs over
the leading axis, row by contiguous row. The model, stage by stage:

- disks: the disks' surface-averaged sustained rate (outer and inner zone, see
  `DiskParams.sustained_factor`). Reads: data disks, or every disk of a RAID 10 group (both
  mirrors serve reads). Writes: every disk of the group works and each data byte costs
  `raid.write_amplification` disk bytes (full stripes (n+p)/n; partial stripes read-modify-write
  or reconstruct-write, less what the write-back cache merges; RAID 10 2; raidz its padded stripes).
- expansion_link: file-per-process I/O spreads evenly over the OSTs, so the OSTs behind the shared
  expansion link carry exp_osts/total_osts of the brick's traffic.
- raid_controller: the controllers' streaming limit (writes at full-stripe cost scale with the
  amplification) and their large-request rate x request size; SAN members each bring their own
  controllers. Without controllers (JBOD): the server's software RAID (parity and CPU) limit.
- host_links: the storage ports cabled to the brick's server(s). Storage cabled directly to an HA
  pair (RAID head, JBOD) gives each server half its ports to its partner's enclosure; a SAN is
  reached through switches, so every port stays in use, and the array's own ports cap it too.
- server: the storage-side adapters (SAS HBAs or SAN NICs), capped by their PCIe slots.
- measured_backend: a site's obdfilter-survey figure replaces the stages above it (calibration).
- network: the adapters towards the clients, at their protocol's goodput.
- measured_end_to_end: a calibration's IOR curve over client nodes, at the design's clients per
  brick (only when both are given).

A brick delivers min(back end x Lustre software efficiency, network): the efficiency (IOR over
obdfilter-survey) applies to the back end only, since the network figure already carries its
protocol's goodput.
"""

from __future__ import annotations

import numpy as np

from .capacity import LEVEL_MIRROR
from .inputs import STAGES
from .raid import full_stripe_amplification, write_amplification

STAGE_INDEX = {name: i for i, name in enumerate(STAGES)}
KIND_SHARED, KIND_INTERNAL, KIND_SAN = 0, 1, 2
MEASURED = STAGE_INDEX["measured_backend"]
NETWORK = STAGE_INDEX["network"]
END_TO_END = STAGE_INDEX["measured_end_to_end"]


def request_kib_at_controller(request_kib, controller_max_kib):
    """The request reaching the controllers: the profile's request, split by the controller's (or
    SAN protocol's) own largest request when it has one."""
    limit = np.asarray(controller_max_kib, dtype=float)
    req = np.asarray(request_kib, dtype=float)
    return np.where(limit > 0, np.minimum(req, np.where(limit > 0, limit, 1.0)), req)


def stage_limits(b, *, request_kib, paired, survivor: bool = False):
    """Per-brick stage limits in GB/s, shape (S, 2) + the arrays' shape: [stage, (read, write), line, design].

    `request_kib` and `paired` (per design) broadcast against the group arrays. With `survivor`,
    also the back end of an HA pair with one OSS server down, (2,) + the arrays' shape (see
    `survivor_backend`): returns (stages, survivor)."""
    inf = np.inf
    n = b["raid_data"]
    p = b["raid_parity"]
    code = b["level_code"]
    enclosures = 1.0 + b["expansions"]
    groups = b["groups_per_enclosure"]
    kind = b["kind_code"]
    san = kind == KIND_SAN
    request = request_kib_at_controller(request_kib, b["ctrl_max_request_kib"])
    amp = write_amplification(request, b["segment_kib"], n, p, code, b["cache_merge"])
    amp_full = full_stripe_amplification(n, p, code)
    shape = np.broadcast(n, request).shape
    out = np.empty((len(STAGES), 2) + shape)

    # disks
    osts = enclosures * groups
    readers = np.where(code == LEVEL_MIRROR, n + p, n)
    out[0, 0] = osts * readers * b["disk_read_mbps"] / 1000.0
    out[0, 1] = osts * (n + p) * b["disk_write_mbps"] / amp / 1000.0

    # expansion link, shared by every expansion enclosure behind the head (not for SAN members)
    exp_osts = np.where(san, 0.0, b["expansions"] * groups)
    share = osts / np.maximum(exp_osts, 1.0)
    has_exp = exp_osts > 0
    out[1, 0] = np.where(has_exp, b["exp_link_gbps"] * share, inf)
    out[1, 1] = np.where(has_exp, b["exp_link_gbps"] / amp * share, inf)

    # RAID controllers (per SAN member), or software RAID in the servers
    servers = b["servers_per_brick"]
    units = np.where(san, enclosures, 1.0)
    rate = b["ctrl_requests_per_s"]
    rate_limit = np.where(rate > 0, rate * request * 1024.0 / 1e9, inf)
    has_ctrl = b["controllers"] > 0
    out[2, 0] = np.where(has_ctrl, units * np.minimum(b["ctrl_read_mbps"] / 1000.0, rate_limit), b["sw_raid_read_mbps"] * servers / 1000.0)
    write_bw = np.where(has_ctrl, b["ctrl_write_mbps"], b["sw_raid_write_mbps"] * servers) / 1000.0 * amp_full / amp
    out[2, 1] = np.where(has_ctrl, units * np.minimum(write_bw, rate_limit), write_bw)

    # host links from the storage to this brick's server(s)
    ports = b["storage_ports"] * servers
    shared_pair = np.asarray(paired, dtype=bool) & (kind == KIND_SHARED)
    own_ports = np.where(shared_pair, np.maximum(np.floor(ports / 2.0), 1.0), ports)
    port_gbps = np.where(b["hba_port_gbps"] > 0, np.minimum(b["head_port_gbps"], b["hba_port_gbps"]), b["head_port_gbps"])
    server_side = own_ports * port_gbps
    array_side = units * b["head_ports"] * b["head_port_gbps"]
    out[3, 0] = np.where(san, np.minimum(server_side, array_side), server_side)
    out[3, 1] = out[3, 0]

    # storage-side adapters (PCIe-capped), measured back end, network adapters
    out[4, 0] = np.where(b["hba_count"] > 0, b["hba_count"] * b["hba_gbps"] * servers, inf)
    out[4, 1] = out[4, 0]
    out[5, 0] = np.where(b["measured_read_gbps"] > 0, b["measured_read_gbps"], inf)
    out[5, 1] = np.where(b["measured_write_gbps"] > 0, b["measured_write_gbps"], inf)
    out[6, 0] = b["net_count"] * b["net_gbps"] * servers
    out[6, 1] = out[6, 0]
    out[7] = inf  # filled by `measured_end_to_end` where a calibration measured a client curve
    if not survivor:
        return out
    return out, survivor_backend(
        out, b, has_ctrl=has_ctrl, san=san, own_ports=own_ports, ports=ports, port_gbps=port_gbps, array_side=array_side
    )


def servers_left(servers_per_brick):
    """An HA pair of bricks with one server down: the servers left, in bricks' worth of servers
    ((2 x servers per brick - 1) / servers per brick; 1 for the usual one OSS a brick)."""
    servers = np.maximum(servers_per_brick, 1.0)
    return (2.0 * servers - 1.0) / servers


def survivor_backend(stages, b, *, has_ctrl, san, own_ports, ports, port_gbps, array_side):
    """One OSS server of an HA pair down: the back end (GB/s, before Lustre's efficiency) that the
    pair's remaining server(s) deliver for both bricks, (2,) + the arrays' shape.

    What belongs to the storage works for both bricks and counts twice: the disks, the expansion
    links, the RAID controllers (they sit in the enclosures), and the host ports of storage cabled
    to both servers (the survivor reaches each enclosure through half its ports, as its partner did).
    What belongs to a server counts for the servers left, (2 x servers per brick - 1) / servers per
    brick of one brick's figure: the storage-side adapters (HBAs, SAN NICs), software RAID (parity
    computed by the servers) and, for a SAN, the server's own ports. A measured back end (one OSS's
    obdfilter-survey) counts twice for the storage, capped by the data sheets' server-side stages."""
    left = servers_left(b["servers_per_brick"])
    shape = stages.shape[1:]
    surv = np.empty(shape)
    work = np.empty(shape)
    np.multiply(stages[0], 2.0, out=surv)  # disks
    np.minimum(surv, 2.0 * stages[1], out=surv)  # expansion links
    np.minimum(surv, np.where(has_ctrl, 2.0, left) * stages[2], out=surv)  # RAID controllers, or software RAID
    host = np.minimum(2.0 * own_ports, left * ports) * port_gbps  # direct-attached: half the survivor's ports each
    if san.any():
        host = np.where(san, np.minimum(left * ports * port_gbps, 2.0 * array_side), host)
    np.minimum(surv, host, out=surv)  # host links (the same for read and write)
    server_side = np.multiply(left, stages[4], out=work)  # storage-side adapters
    if not has_ctrl.all():
        server_side = np.where(has_ctrl, server_side, np.minimum(server_side, left * stages[2]))  # and software RAID
    np.minimum(surv, server_side, out=surv)
    measured = stages[MEASURED]
    has = np.isfinite(measured)
    if not has.any():
        return surv
    return np.where(has, np.minimum(2.0 * measured, server_side), surv)


def measured_end_to_end(stages, b, *, clients_per_brick):
    """Where a calibration fitted IOR over client nodes (ran against `cc_bricks` bricks), each brick
    delivers at most that curve at the design's clients per brick: X(clients_per_brick x cc_bricks)
    / cc_bricks, never above the curve's peak. Fills the `measured_end_to_end` stage in place."""
    bricks = b["cc_bricks"]
    if not (bricks > 0).any():
        return
    nodes = np.maximum(np.asarray(clients_per_brick, dtype=float) * bricks, 1.0)
    for op, name in ((0, "read"), (1, "write")):
        lam, sigma, kappa, peak = (b[f"cc_{name}_{k}"] for k in ("lam", "sigma", "kappa", "peak"))
        x = lam * nodes / (1.0 + sigma * (nodes - 1.0) + kappa * nodes * (nodes - 1.0))
        has = (bricks > 0) & (lam > 0)
        stages[END_TO_END, op] = np.where(has, np.minimum(x, peak) / np.maximum(bricks, 1.0), np.inf)


def backend(stages):
    """The back end (GB/s, (2, G, N)) and the stage that sets it: a measured back end replaces the
    data-sheet stages it measured; otherwise the smallest of them."""
    # the smallest stage and the first stage that has it, one stage row at a time (np.argmin over a
    # leading axis copies the array to put that axis last)
    value = stages[0].copy()
    idx = np.zeros(value.shape, dtype=np.intp)
    smaller = np.empty(value.shape, dtype=bool)
    for s in range(1, MEASURED):
        np.less(stages[s], value, out=smaller)
        np.copyto(value, stages[s], where=smaller)
        np.copyto(idx, s, where=smaller)
    measured = stages[MEASURED]
    has = np.isfinite(measured)
    return np.where(has, measured, value), np.where(has, MEASURED, idx)


def brick_delivery(stages, efficiency):
    """Delivered GB/s per brick (2, G, N), the limiting stage (2, G, N) and the back end after
    efficiency: min(back end x efficiency, network, a measured end-to-end curve)."""
    back, back_idx = backend(stages)
    back_eff = back * efficiency
    net = stages[NETWORK]
    e2e = stages[END_TO_END]
    delivered = np.minimum(np.minimum(back_eff, net), e2e)
    limiting = np.where(back_eff <= net, back_idx, NETWORK)
    limiting = np.where(e2e < np.minimum(back_eff, net), END_TO_END, limiting)
    return delivered, limiting, back_eff
