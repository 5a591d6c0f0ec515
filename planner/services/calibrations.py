"""Calibrations: parse a site's obdfilter-survey and IOR output, fit it, keep it as a profile a
DesignSpec can name, and say which figures came from it."""

from __future__ import annotations

from planner.engine.benchparse import ParseError, parse_benchmark
from planner.engine.calibration import FitError, fit_usl, sweep_points
from planner.engine.units import mibps_to_gbps
from planner.models import Calibration
from planner.spec import SpecError

from .catalogue import visible_templates

MAX_UPLOAD_BYTES = 1024 * 1024


NON_LUSTRE_PATHS = ("gpfs", "nfs", "beegfs", "cephfs", "/ceph", "weka", "/dev/shm", "/tmp/", "panfs", "isilon")
"""Path fragments that show IOR wrote to something other than Lustre (IOR prints `Path` and `FS`)."""
MIN_TRANSFER = 1 << 20
MIN_BLOCK_PER_TASK = 1 << 30
"""An assumption, not a data-sheet figure: an IOR run moving less than 1 GiB per task (-b) may be served
by the clients' page cache (a node's memory holds tens of GiB), so it gets a note; it is not refused."""
BAND_HIGH_REFUSE, BAND_HIGH_WARN, BAND_LOW_WARN, BAND_LOW_REFUSE = 1.5, 1.1, 0.5, 0.1
"""Plausibility band of a measured figure per brick (see `_band`): over 1.5x the parts' physical
ceiling or under 0.1x the model's figure is refused; over 1.1x or under 0.5x noted."""


HARDWARE = {
    "server": "server",
    "head": "head",
    "hba": "storage adapters",
    "storage_ports": "storage ports per server",
    "expansions": "expansion enclosures",
    "disk": "disk",
    "raid": "RAID layout",
}
"""The parts of a brick behind its OSS, which a measured back end stands for, in words."""


def brick_hardware(group) -> dict:
    """What a brick line has behind its OSS (the parts obdfilter-survey measures), as comparable words."""
    raid = group.raid
    return {
        "server": group.server.slug,
        "head": group.head.slug,
        "hba": f"{group.hba_count} x {group.hba.slug}" if group.hba else "none",
        "storage_ports": str(group.storage_ports),
        "expansions": f"{group.expansions} x {group.expansion.slug}" if group.expansions and group.expansion else "0",
        "disk": group.disk.slug,
        "raid": f"{raid.level} {raid.groups} x {raid.data}+{raid.parity}" + (" declustered" if raid.declustered else ""),
    }


def hardware_differences(measured: dict, line: dict) -> list[str]:
    """What a line has that the measured brick had not, in words ('disk nl-sas-8tb (measured: nl-sas-4tb)')."""
    return [f"{HARDWARE[k]} {line[k]} (measured: {measured[k]})" for k in HARDWARE if k in measured and measured[k] != line.get(k)]


def _parts_figures(template: str, owner) -> dict | None:
    """What one brick of the template can deliver by its parts, per operation, GB/s:
    `ceiling` the physical upper bound behind the OSS (disks at their outer-zone rate, expansion
    link, host links, HBAs; not the modelled controller limit, which a measurement may well beat),
    `per_ost` the disks of one OST at their outer-zone rate, `shared` what the OSTs share behind the
    OSS (expansion link, host links, HBAs), `scale_cap` the most a figure scaled up from fewer OSTs may
    reach (the ceiling and the controllers' catalogue limit, which a survey of fewer OSTs did not load),
    `backend` the model's back end, `network` the adapters' goodput, and `end_to_end` the model's
    delivered figure; `brick` the parts behind the OSS (`brick_hardware`)."""
    from planner import engine
    from planner.engine.throughput import NETWORK

    from .evaluation import design_resolve

    try:
        design = design_resolve(spec={"bricks": [{"template": template, "count": 1}], "metadata": {"placement": "none"}}, user=owner)
    except SpecError:
        return None
    batch = engine.BatchInput.from_designs([design])
    res = engine.evaluate_batch(batch)
    stages = res.stages[:, :, 0, 0]
    group = design.bricks[0]
    outer = 1.0 / group.disk.sustained_factor
    osts = group.osts
    out = {"osts": osts, "brick": brick_hardware(group)}
    for k, op in enumerate(("read", "write")):
        disks = float(stages[0, k]) * outer
        shared = min(float(stages[1, k]), float(stages[3, k]), float(stages[4, k]))
        ceiling = min(disks, shared)
        per_ost = disks / osts
        data_disks = group.raid.data * group.disk.read_mbps / 1000.0
        out[op] = {
            "ceiling": ceiling,
            "per_ost": per_ost,
            "per_ost_words": f"{group.raid.data} data disks x {group.disk.read_mbps:.0f} MB/s at their outer zone"
            if abs(per_ost - data_disks) < 1e-6 * data_disks
            else "its disks at their outer-zone rate",
            "shared": shared,
            "scale_cap": min(ceiling, float(stages[2, k])),
            "backend": float(min(stages[:5, k])),
            "network": float(stages[NETWORK, k]),
            "end_to_end": float(res.brick_gbps[k, 0, 0]),
        }
    return out


def ceiling_at(parts: dict, op: str, osts: int) -> float:
    """The physical ceiling of `osts` OSTs of the brick's parts: each OST's disks at their outer-zone
    rate, and what the OSTs share behind the OSS (links, HBAs), taken whole for up to the brick's own
    OST count and in proportion beyond it (more OSTs than the brick has mean more of its parts)."""
    p = parts[op]
    return min(osts * p["per_ost"], p["shared"] * max(1.0, osts / parts["osts"]))


HINTS_HIGH = {
    ("obdfilter-survey", "read"): "an OST of these disks cannot read that fast: the reads came from a cache (the OSS's memory or the "
    "controllers'; make the survey's size= several times the cache) or from flash, or the survey ran on another OSS's OSTs too",
    ("obdfilter-survey", "write"): "an OST of these disks cannot write that fast: the writes went to a write-back cache (make the "
    "survey's size= several times the cache) or to flash, or the survey ran on another OSS's OSTs too",
    ("IOR", "read"): "check the number of bricks IOR ran against, and that reads did not come from the clients' cache (IOR -C)",
    ("IOR", "write"): "check the number of bricks IOR ran against, and that the writes reached the servers (IOR -e fsyncs them) rather "
    "than the clients' page cache",
}


def _band(what: str, op: str, value: float, parts: dict, key: str, refusals: list, notes: list, *, at=None, low_hint=None) -> bool:
    """Check a measured figure against the brick's parts; False when refused.

    `value` is per brick. For obdfilter-survey `at` = (the OST count measured, the figure measured
    there): that figure is checked against as many OSTs' worth of the parts' physical ceiling
    (`ceiling_at`), and `value` (the back end taken at the brick's OST count) against the model.
    Above 1.5x the physical ceiling (`ceiling`, or min(ceiling, network) for IOR) is refused: no
    brick of these parts can do that, so the input is wrong. Under 0.1x the model's figure (`key`)
    is refused: a slow path would cap every design at a tenth of its hardware. Between 1.1x the
    ceiling and 0.5x the model's figure only a note is kept."""
    if at is not None:
        n, measured = at
        ceiling = ceiling_at(parts, op, n)
        per_ost = parts[op]["per_ost"]
        osts = f"{n} OST{'s' if n != 1 else ''}"
        whose = (
            f"{measured:.2f} GB/s on {osts} is {{ratio}} what {osts} of this brick can physically deliver ("
            + (f"{ceiling:.2f} GB/s: " if n != 1 or ceiling < per_ost - 1e-9 else "")
            + f"{per_ost:.2f} GB/s per OST, {parts[op]['per_ost_words']}"
            + (f"; {parts[op]['shared']:.2f} GB/s through the links and HBAs)" if ceiling < n * per_ost - 1e-9 else ")")
        )
        per_brick = f"{value:.2f} GB/s per brick" + (f" (from {measured:.2f} GB/s on {osts})" if n != parts["osts"] else "")
    else:
        measured = value
        ceiling = parts[op]["ceiling"] if what == "obdfilter-survey" else min(parts[op]["ceiling"], parts[op]["network"])
        whose = f"{value:.2f} GB/s per brick is {{ratio}} what the brick's parts can physically deliver ({ceiling:.2f})"
        per_brick = f"{value:.2f} GB/s per brick"
    model = parts[op][key]
    high, low = measured / ceiling if ceiling > 0 else 0.0, value / model if model > 0 else 1.0
    hint = HINTS_HIGH[(what, op)]
    if low_hint is None:
        low_hint = "check whether the clients or the network limited the run"
    if high > BAND_HIGH_REFUSE:
        refusals.append(f"{what} {op}: {whose.format(ratio=f'{high:.1f}x')}: {hint}.")
        return False
    if low < BAND_LOW_REFUSE:
        refusals.append(
            f"{what} {op}: {per_brick} is under a tenth of what the brick's parts deliver by the model ({model:.2f}): "
            f"{low_hint}; a slow path would cap every design at a tenth of its hardware, so measure again."
        )
        return False
    if high > BAND_HIGH_WARN:
        notes.append(f"{what} {op}: {whose.format(ratio=f'{high:.2f}x')}: {hint}.")
    elif low < BAND_LOW_WARN:
        notes.append(
            f"{what} {op}: {per_brick} is {low:.2f} of what the model gives its parts ({model:.2f}): {low_hint}; "
            "designs using this calibration inherit it."
        )
    return True


def _survey_hint(rows, op: str, osts: int) -> str:
    """Why an obdfilter-survey may have measured less than the brick's parts: it has no clients and no
    network, so the survey itself (too few threads or objects per OST) or another load on the OSS."""
    best = max((r for r in rows if r.osts == osts and r.gbps(op) is not None), key=lambda r: r.gbps(op), default=None)
    where = (
        f"its best {op} ran {best.threads} thread{'s' if best.threads != 1 else ''} on {best.objects} object{'s' if best.objects != 1 else ''} "
        f"over {osts} OST{'s' if osts != 1 else ''} ({best.threads / osts:g} thread{'s' if best.threads / osts != 1 else ''} per OST); "
        if best
        else ""
    )
    return (
        "obdfilter-survey has no clients and no network, so neither limited it: "
        + where
        + "check that the survey swept enough threads and objects per OST to keep every disk busy (thrhi, nobjhi), that it ran on all "
        "the disks of each OST, and that nothing else loaded the OSS or its disks (a RAID rebuild or verify, another job)"
    )


def _fit_obdfilter(obd, parts: dict | None, figures: dict, fits: dict, refusals: list, notes: list) -> None:
    """Fit each OST count's thread sweep. Per operation, the back end is the fit at the brick's OST
    count when it was measured; otherwise the fit at the nearest OST count measured, scaled per OST to
    the brick's (linear: an assumption, said in the notes), and when scaled up never above the parts'
    `scale_cap`. The figure measured is checked against as many OSTs' worth of the parts."""
    from planner.engine.calibration import FLAGS, flagged, ost_counts

    rows = obd.obdfilter
    counts = ost_counts(rows)
    by_osts: dict = {}
    for osts in counts:
        for op in ("write", "read"):
            threads, gbps = sweep_points(rows, op, osts)
            if not gbps:
                continue
            try:
                by_osts.setdefault(str(osts), {})[op] = fit_usl(threads, gbps, operation=op).as_dict()
            except FitError as exc:
                by_osts.setdefault(str(osts), {})[op] = {
                    "refused": str(exc),
                    "measured_max_gbps": max(gbps),
                    "points": [[t, g] for t, g in zip(threads, gbps, strict=True)],
                }
    for op in ("write", "read"):
        bad = flagged(rows, op)
        if not bad:
            continue
        kinds = " or ".join(sorted({f for _, _, f in bad}))
        lines = ", ".join(str(line) for line, _, _ in bad[:5]) + (" ..." if len(bad) > 5 else "")
        why = (
            f"obdfilter-survey {op}: {len(bad)} result{'s' if len(bad) != 1 else ''} flagged {kinds} (line{'s' if len(bad) != 1 else ''} "
            f"{lines}) left out: obdfilter-survey prints {' or '.join(FLAGS)} when a test thread failed or returned no per-OST "
            "statistics, so the rate beside it is not a complete measurement"
        )
        if any(op in v for v in by_osts.values()):
            notes.append(why + ".")
        else:
            fits.setdefault("refused_ops", {})[op] = why + f"; no other {op} result remains, so {op}s use the data sheets."
            refusals.append(fits["refused_ops"][op])
    if not by_osts:
        if not refusals:
            refusals.append("obdfilter-survey: no write or read result to fit.")
        return
    want = parts["osts"] if parts else None
    fits["by_osts"] = by_osts
    fits["backend_from"] = {}
    if len(counts) > 1:
        notes.append(f"obdfilter-survey swept {', '.join(str(c) for c in counts)} OSTs; each OST count is fitted on its own.")
    for op in ("write", "read"):
        measured_counts = [int(c) for c, v in by_osts.items() if op in v]
        if not measured_counts:
            if op not in fits.get("refused_ops", {}):
                notes.append(f"obdfilter-survey: no {op} results; {op}s use the data sheets.")
            continue
        # the brick's own OST count, else the nearest measured (the larger on a tie: it loaded more of the shared parts)
        chosen = (
            want if want in measured_counts else min(measured_counts, key=lambda c: (abs(c - want), -c)) if want else max(measured_counts)
        )
        fit = by_osts[str(chosen)][op]
        if "refused" in fit:
            fits.setdefault("refused", []).append(fit["refused"])
            measured = fit["measured_max_gbps"]
            notes.append(
                f"obdfilter-survey {op}: too few thread counts to fit at {chosen} OSTs; the best measured {measured:.2f} GB/s is used."
            )
        else:
            fits[op] = fit
            measured = fit["peak_gbps"]
        value, origin, note = measured, {"osts_measured": chosen, "measured_gbps": measured}, None
        if want and chosen != want:
            per_ost = measured / chosen
            scaled = per_ost * want
            value = min(scaled, parts[op]["scale_cap"]) if chosen < want else scaled
            origin |= {"per_ost_gbps": per_ost, "osts": want, "scaled_gbps": scaled, "capped_at_gbps": value if value < scaled else None}
            note = (
                f"obdfilter-survey {op}: measured {measured:.2f} GB/s on {chosen} OST{'s' if chosen != 1 else ''} ({per_ost:.3f} GB/s per OST); "
                f"the brick has {want} OSTs, so its back end is taken as {want} x {per_ost:.3f} = {scaled:.2f} GB/s, assuming each OST "
                "adds the same (an assumption: the controllers, links and HBAs the OSTs share may not scale so)"
            )
            if chosen < want:
                note += (
                    f"; scaled up from fewer OSTs, it is kept at or under {parts[op]['scale_cap']:.2f} GB/s, what the brick's parts allow "
                    "by their data sheets (disks at their outer-zone rate, controllers, links, HBAs), "
                    + (f"so {value:.2f} GB/s is used." if value < scaled else "which it is not over.")
                )
            else:
                note += "."
        elif not want:
            note = f"obdfilter-survey {op}: taken at {chosen} OSTs (the brick's OST count is unknown)."
        pos = len(notes)
        if parts is None or _band(
            "obdfilter-survey",
            op,
            value,
            parts,
            "backend",
            refusals,
            notes,
            at=(chosen, measured),
            low_hint=_survey_hint(rows, op, chosen),
        ):
            if note:
                notes.insert(pos, note)
            figures[f"backend_{op}_gbps"] = value
            figures.setdefault("backend_osts", chosen)
            fits["backend_from"][op] = origin
        else:
            fits.setdefault("refused_ops", {})[op] = refusals[-1]
    if "backend_osts" in figures:
        fits["backend_osts"] = figures["backend_osts"]


def _ior_runs(ior_result, refusals: list, notes: list) -> list:
    """The IOR runs that can stand for a brick: file per process, transfers of 1 MiB or more, on Lustre."""
    runs = list(ior_result.ior)
    paths = sorted({r.path for r in runs if r.path and any(tag in r.path.lower() for tag in NON_LUSTRE_PATHS)})
    if paths:
        refusals.append(f"IOR wrote to {paths[0]}, which is not a Lustre file system: its figures cannot stand for a Lustre brick.")
        return []
    shared = [r for r in runs if r.shared_file or r.file_per_process is False]
    if shared:
        notes.append(
            f"IOR: {len(shared)} shared-file result(s) left out: one file shared by all tasks measures lock contention, not the brick."
        )
    runs = [r for r in runs if r not in shared]
    small = [r for r in runs if r.transfer_bytes and r.transfer_bytes < MIN_TRANSFER]
    if small:
        notes.append(f"IOR: {len(small)} result(s) with transfers under 1 MiB left out: small requests do not stream at the brick's rate.")
    runs = [r for r in runs if r not in small]
    if not runs:
        refusals.append("IOR: no file-per-process result with transfers of 1 MiB or more; run IOR with -F -t 1m (or larger).")
    cached = [r for r in runs if r.block_bytes and r.block_bytes < MIN_BLOCK_PER_TASK]
    if cached:
        r = cached[0]
        total = r.block_bytes * (r.tasks or 1)
        notes.append(
            f"IOR: {len(cached)} result(s) moved less than 1 GiB per task (the first: {r.tasks or 1} task(s) x {r.block_bytes / 2**20:g} MiB "
            f"= {total / 2**20:g} MiB in all{f', line {r.line}' if r.line else ''}); they are used, but so little data may have been served from the "
            "clients' page cache rather than the servers (an assumption of the planner: below 1 GiB per task, the cache may hold it). "
            "Run IOR with -b of several GiB per task, more than the client nodes' memory, to be sure."
        )
    return runs


IOR_SPREAD = 1.25
"""An IOR result whose best iteration is over 1.25x the mean of its iterations gets a note (an
assumption of the planner: repeated runs of a quiet file system stay within some 10-20 % of each other)."""


def _fit_ior(runs, bricks: int, parts: dict | None, figures: dict, fits: dict, refusals: list, notes: list) -> None:
    """The end-to-end figure per brick: the client-node curve's peak (or the best run) over the bricks
    IOR ran against; the curve itself when IOR swept client nodes."""
    from planner.engine.calibration import throughput_at  # noqa: F401  (documents the curve's use)

    sweep = sorted({(r.client_nodes or 0, r.tasks or 0, r.operation, r.max_gbps) for r in runs})
    if sweep:
        fits["ior_sweep"] = [{"nodes": n, "tasks": t, "operation": op, "gbps": g} for n, t, op, g in sweep]
    for op in ("write", "read"):
        mine = [r for r in runs if r.operation == op]
        if not mine:
            notes.append(f"IOR: no {op} results; {op}s use the data sheets (or the obdfilter-survey back end).")
            continue
        best = max(r.max_gbps for r in mine) / bricks
        nodes = [float(r.client_nodes) for r in mine if r.client_nodes]
        if len(set(nodes)) >= 4:
            try:
                fit = fit_usl(nodes, [r.max_gbps for r in mine if r.client_nodes], operation=op, axis="clients").as_dict()
                fit["bricks"] = bricks
                fits.setdefault("clients", {})[op] = fit
                best = fit["peak_gbps"] / bricks
            except FitError as exc:
                notes.append(str(exc))
        elif len(set(nodes)) > 1:
            notes.append(f"IOR {op}: {len(set(nodes))} client node counts; a curve over clients needs 4 or more.")
        top = max(mine, key=lambda r: r.max_mibps)
        if top.mean_mibps and top.max_mibps > IOR_SPREAD * top.mean_mibps:
            notes.append(
                f"IOR {op}: the best iteration ({top.max_mibps:,.0f} MiB/s{f', line {top.line}' if top.line else ''}) is "
                f"{top.max_mibps / top.mean_mibps:.2f}x the mean of its iterations ({top.mean_mibps:,.0f} MiB/s): the calibration takes the best, "
                f"as IOR reports it; the mean would give {mibps_to_gbps(top.mean_mibps) / bricks:.2f} GB/s per brick. Iterations this far apart "
                "usually mean other load on the file system or a cache: repeat the run on a quiet system."
            )
        if parts is None or _band("IOR", op, best, parts, "end_to_end", refusals, notes):
            figures[f"end_to_end_{op}_gbps"] = best
        else:
            fits.setdefault("refused_ops", {}).setdefault(op, refusals[-1])
            fits.get("clients", {}).pop(op, None)
    notes.append(
        f"IOR: the end-to-end figure per brick is the {'fitted peak over client nodes' if fits.get('clients') else 'best file-per-process result'} divided by {bricks} brick(s)."
    )


def _recommend(fits: dict) -> dict:
    """Settings the fits recommend: OSS threads; client nodes within 95 % of the peak and where throughput falls again."""
    out = {}
    for op in ("write", "read"):
        if op in fits:
            out.setdefault("oss_threads", {})[op] = fits[op]["recommended_threads"]
            if fits[op].get("falls_after"):
                out.setdefault("oss_threads_falls_after", {})[op] = round(fits[op]["falls_after"])
        curve = fits.get("clients", {}).get(op)
        if curve:
            out.setdefault("client_nodes", {})[op] = curve["recommended_threads"]
            if curve.get("falls_after"):
                out.setdefault("client_nodes_falls_after", {})[op] = round(curve["falls_after"])
    return out


def calibration_create(
    *,
    owner,
    name: str,
    brick_template: str,
    obdfilter: tuple[str, str] | None = None,
    ior: tuple[str, str] | None = None,
    ior_bricks: int = 1,
) -> Calibration:
    """Parse, check and fit uploads, given as (file name, text); raise SpecError naming the field and
    the problem when nothing usable remains. What was refused, and why, is kept on the calibration."""
    errors: dict = {}
    if not visible_templates(owner).filter(slug=brick_template).exists():
        errors["brick_template"] = [f"unknown brick template '{brick_template[:40]}'"]
    if not obdfilter and not ior:
        errors["files"] = ["upload an obdfilter-survey output, an IOR output, or both"]
    parsed, fits, notes, refusals = {}, {}, [], []
    figures: dict = {}
    obd = ior_result = None
    if obdfilter:
        try:
            obd = parse_benchmark(obdfilter[1])
            if obd.kind != "obdfilter-survey":
                raise ParseError(f"this is {obd.kind} output, not obdfilter-survey")
            parsed["obdfilter"] = obd.as_dict()
        except ParseError as exc:
            errors["obdfilter"] = [f"{obdfilter[0]}: {exc}"]
    if ior:
        try:
            ior_result = parse_benchmark(ior[1])
            if not ior_result.kind.startswith("ior"):
                raise ParseError(f"this is {ior_result.kind} output, not IOR")
            parsed["ior"] = ior_result.as_dict()
        except ParseError as exc:
            errors["ior"] = [f"{ior[0]}: {exc}"]
    if errors:
        raise SpecError(errors)

    parts = _parts_figures(brick_template, owner)
    bricks = max(int(ior_bricks or 1), 1)
    if parts is not None:
        fits["brick"] = parts["brick"] | {"osts": parts["osts"]}
    if obd is not None:
        _fit_obdfilter(obd, parts, figures, fits, refusals, notes)
    if ior_result is not None:
        runs = _ior_runs(ior_result, refusals, notes)
        if runs:
            _fit_ior(runs, bricks, parts, figures, fits, refusals, notes)
    for op in ("read", "write"):
        back, end = figures.get(f"backend_{op}_gbps"), figures.get(f"end_to_end_{op}_gbps")
        if back and end:
            ratio = end / back
            if ratio > 1.0:
                notes.append(
                    f"{op}: IOR per brick ({end:.2f} GB/s) exceeds the obdfilter-survey back end ({back:.2f}); efficiency capped at 1.0."
                )
            figures[f"efficiency_{op}"] = min(ratio, 1.0)
    fits["recommended"] = _recommend(fits)
    if not any(figures.get(f) for f in ("backend_read_gbps", "backend_write_gbps", "end_to_end_read_gbps", "end_to_end_write_gbps")):
        field = "obdfilter" if obd is not None and ior_result is None else "ior" if ior_result is not None and obd is None else "files"
        raise SpecError({field: refusals or ["nothing in these files can calibrate a brick"]})
    return Calibration.objects.create(
        owner=owner,
        name=name or "Calibration",
        brick_template=brick_template,
        obdfilter_name=obdfilter[0] if obdfilter else "",
        obdfilter_text=obdfilter[1] if obdfilter else "",
        ior_name=ior[0] if ior else "",
        ior_text=ior[1] if ior else "",
        ior_bricks=bricks,
        parsed=parsed,
        fit=fits,
        notes=notes,
        refusals=refusals,
        **figures,
    )


def calibration_figures(calibration: Calibration, tuning_read: float, tuning_write: float) -> dict:
    """What a calibration changes for its template's bricks, per operation it measured: the back end
    (obdfilter-survey) replaces the data-sheet stages behind the OSS; IOR gives Lustre's efficiency
    over that back end (or, without obdfilter-survey, a back end that delivers the IOR figure at the
    tuning profile's efficiency); an IOR curve over client nodes. An operation it did not measure
    keeps its data-sheet figures, and `stages` says which came from where."""
    out, sources, client_curves = {}, {}, {}
    stages = {}
    tag = f"calibration '{calibration.name}' (#{calibration.id})"
    for op, tuning_eff in (("read", tuning_read), ("write", tuning_write)):
        back = getattr(calibration, f"backend_{op}_gbps")
        end = getattr(calibration, f"end_to_end_{op}_gbps")
        eff = getattr(calibration, f"efficiency_{op}")
        fit = calibration.fit.get(op)
        if back:
            out[f"measured_backend_{op}_gbps"] = back
            origin = (calibration.fit.get("backend_from") or {}).get(op) or {}
            measured = origin.get("measured_gbps", back)
            detail = (
                f"USL fit peak {measured:.2f} GB/s (95 % range {fit['peak_gbps_low']:.2f}-{fit['peak_gbps_high']:.2f}) at {fit['peak_threads']:.0f} threads"
                if fit
                else f"best measured {measured:.2f} GB/s"
            )
            n = origin.get("osts_measured") or calibration.backend_osts
            osts = f" on {n} OSTs" if n else ""
            if origin.get("osts"):
                detail += f"; scaled per OST (linear, an assumption) to the brick's {origin['osts']} OSTs: {origin['scaled_gbps']:.2f} GB/s"
                if origin.get("capped_at_gbps") is not None:
                    detail += f", kept at the parts' data-sheet limit {back:.2f} GB/s"
            sources[f"measured_backend_{op}"] = f"{tag}: obdfilter-survey {calibration.obdfilter_name}{osts}, {detail}"
            stages[op] = {"back end (disks to HBAs)": "obdfilter-survey"}
        if eff is not None:
            out[f"efficiency_{op}"] = eff
            sources[f"software_efficiency_{op}"] = f"{tag}: IOR {end:.2f} GB/s per brick over obdfilter-survey {back:.2f} GB/s"
            stages.setdefault(op, {})["Lustre efficiency"] = "IOR over obdfilter-survey"
        elif end and not back:
            out[f"measured_backend_{op}_gbps"] = end / tuning_eff
            sources[f"measured_backend_{op}"] = f"{tag}: IOR {end:.2f} GB/s per brick over the tuning profile's efficiency {tuning_eff:.2f}"
            stages[op] = {"back end (disks to HBAs)": "IOR over the tuning profile's efficiency"}
        curve = (calibration.fit.get("clients") or {}).get(op)
        if curve and end:
            client_curves[op] = {k: curve[k] for k in ("lam", "sigma", "kappa", "peak_gbps")} | {"bricks": calibration.ior_bricks}
            sources[f"measured_end_to_end_{op}"] = (
                f"{tag}: IOR over {len(curve['points'])} runs at client node counts, fitted (peak {curve['peak_gbps']:.2f} GB/s "
                f"over {calibration.ior_bricks} brick(s) at {curve['peak_threads']:.0f} nodes)"
            )
            stages.setdefault(op, {})["end to end at the design's clients"] = "IOR curve over client nodes"
        if op not in stages:
            refused = calibration_refused(calibration).get(op)
            stages[op] = {
                "all stages": f"data sheets (this calibration's {op} measurements were refused: {refused})"
                if refused
                else f"data sheets (this calibration did not measure {op}s)"
            }
    if client_curves:
        out["client_curves"] = client_curves
    return {"figures": out, "sources": sources, "stages": stages}


def calibration_refused(calibration: Calibration) -> dict:
    """Per operation, why its measurements were refused ({} when none was): kept on the fit since
    per-OST checks; for older calibrations, read from the refusals' words."""
    refused = dict(calibration.fit.get("refused_ops") or {})
    for op in ("read", "write"):
        if op not in refused:
            mine = [r for r in calibration.refusals if f" {op}" in f" {r.split(':', 1)[0]}"]
            if mine:
                refused[op] = mine[0]
    return refused


def calibration_measured_brick(calibration: Calibration, default_group=None) -> dict | None:
    """The parts behind the OSS of the brick the calibration measured (`brick_hardware`): recorded at
    upload; for calibrations made before that, the template's defaults now (`default_group`)."""
    recorded = calibration.fit.get("brick")
    if recorded:
        return {k: v for k, v in recorded.items() if k in HARDWARE}
    return brick_hardware(default_group) if default_group is not None else None


def calibration_from_upload(*, owner, upload: dict) -> Calibration:
    """Create a calibration from validated upload fields (name, brick_template, *_file, ior_bricks)."""
    return calibration_create(
        owner=owner,
        name=upload["name"],
        brick_template=upload["brick_template"],
        obdfilter=upload.get("obdfilter_file"),
        ior=upload.get("ior_file"),
        ior_bricks=upload["ior_bricks"],
    )


def calibrations_visible_to(user):
    """A user's own calibrations."""
    if user is None or not user.is_authenticated:
        return Calibration.objects.none()
    return Calibration.objects.filter(owner=user)
