"""Calibrations: parse a site's obdfilter-survey and IOR output, fit it, keep it as a profile a
DesignSpec can name, and say which figures came from it."""

from __future__ import annotations

from planner.engine.benchparse import ParseError, parse_benchmark
from planner.engine.calibration import FitError, fit_usl, sweep_points
from planner.models import Calibration
from planner.spec import SpecError

from .catalogue import visible_templates

MAX_UPLOAD_BYTES = 1024 * 1024


NON_LUSTRE_PATHS = ("gpfs", "nfs", "beegfs", "cephfs", "/ceph", "weka", "/dev/shm", "/tmp/", "panfs", "isilon")
"""Path fragments that show IOR wrote to something other than Lustre (IOR prints `Path` and `FS`)."""
MIN_TRANSFER = 1 << 20
BAND_HIGH_REFUSE, BAND_HIGH_WARN, BAND_LOW_WARN, BAND_LOW_REFUSE = 1.5, 1.1, 0.5, 0.1
"""Plausibility band of a measured figure per brick (see `_band`): over 1.5x the parts' physical
ceiling or under 0.1x the model's figure is refused; over 1.1x or under 0.5x noted."""


def _parts_figures(template: str, owner) -> dict | None:
    """What one brick of the template can deliver by its parts, per operation, GB/s:
    `ceiling` the physical upper bound behind the OSS (disks at their outer-zone rate, expansion
    link, host links, HBAs; not the modelled controller limit, which a measurement may well beat),
    `backend` the model's back end, `network` the adapters' goodput, and `end_to_end` the model's
    delivered figure."""
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
    outer = 1.0 / design.bricks[0].disk.sustained_factor
    out = {"osts": design.bricks[0].osts}
    for k, op in enumerate(("read", "write")):
        physical = [float(stages[0, k]) * outer, float(stages[1, k]), float(stages[3, k]), float(stages[4, k])]
        out[op] = {
            "ceiling": min(physical),
            "backend": float(min(stages[:5, k])),
            "network": float(stages[NETWORK, k]),
            "end_to_end": float(res.brick_gbps[k, 0, 0]),
        }
    return out


def _band(what: str, op: str, value: float, parts: dict, key: str, refusals: list, notes: list) -> bool:
    """Check a measured per-brick figure against the brick's parts; False when refused.

    Above 1.5x the physical ceiling (`ceiling`, or min(ceiling, network) for IOR) is refused: no
    brick of these parts can do that, so the input is wrong. Under 0.1x the model's figure (`key`)
    is refused: a slow path would cap every design at a tenth of its hardware. Between 1.1x the
    ceiling and 0.5x the model's figure only a note is kept."""
    ceiling = parts[op]["ceiling"] if what == "obdfilter-survey" else min(parts[op]["ceiling"], parts[op]["network"])
    model = parts[op][key]
    high, low = value / ceiling if ceiling > 0 else 0.0, value / model if model > 0 else 1.0
    hint = (
        "check that the survey ran on one OSS over its own OSTs and that the cache did not serve the reads"
        if what == "obdfilter-survey"
        else "check the number of bricks IOR ran against, and that reads did not come from the clients' cache (IOR -C)"
    )
    if high > BAND_HIGH_REFUSE:
        refusals.append(
            f"{what} {op}: {value:.2f} GB/s per brick is {high:.1f}x what the brick's parts can physically deliver ({ceiling:.2f}): {hint}."
        )
        return False
    if low < BAND_LOW_REFUSE:
        refusals.append(
            f"{what} {op}: {value:.2f} GB/s per brick is under a tenth of what the brick's parts deliver by the model ({model:.2f}): a slow "
            "path (clients, network, a misconfigured driver) would cap every design at a tenth of its hardware; measure again."
        )
        return False
    if high > BAND_HIGH_WARN:
        notes.append(f"{what} {op}: {value:.2f} GB/s per brick is {high:.2f}x the parts' physical ceiling ({ceiling:.2f}): {hint}.")
    elif low < BAND_LOW_WARN:
        notes.append(
            f"{what} {op}: {value:.2f} GB/s per brick is {low:.2f} of what the model gives its parts ({model:.2f}): check whether the "
            "clients or the network limited the run; designs using this calibration inherit it."
        )
    return True


def _fit_obdfilter(obd, parts: dict | None, figures: dict, fits: dict, refusals: list, notes: list) -> None:
    """Fit each OST count's thread sweep; the back end is the fit at the brick's OST count (or the
    largest swept), bounded by the measurements."""
    from planner.engine.calibration import ost_counts

    counts = ost_counts(obd.obdfilter)
    by_osts: dict = {}
    for osts in counts:
        for op in ("write", "read"):
            threads, gbps = sweep_points(obd.obdfilter, op, osts)
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
    if not by_osts:
        refusals.append("obdfilter-survey: no write or read result to fit.")
        return
    want = parts["osts"] if parts else None
    chosen = want if want in counts else counts[-1]
    if len(counts) > 1 or (want is not None and want != chosen):
        notes.append(
            f"obdfilter-survey swept {', '.join(str(c) for c in counts)} OSTs; each OST count is fitted on its own, and the back end is "
            f"taken at {chosen} OSTs" + (f" (the brick has {want})." if want and want != chosen else " (the brick's OSTs).")
        )
    fits["by_osts"] = by_osts
    fits["backend_osts"] = chosen
    figures["backend_osts"] = chosen
    for op in ("write", "read"):
        fit = by_osts.get(str(chosen), {}).get(op)
        if fit is None:
            notes.append(f"obdfilter-survey: no {op} results at {chosen} OSTs; {op}s use the data sheets.")
            continue
        if "refused" in fit:
            fits.setdefault("refused", []).append(fit["refused"])
            value = fit["measured_max_gbps"]
            notes.append(f"obdfilter-survey {op}: too few thread counts to fit; the best measured {value:.2f} GB/s is used.")
        else:
            fits[op] = fit
            value = fit["peak_gbps"]
        if parts is None or _band("obdfilter-survey", op, value, parts, "backend", refusals, notes):
            figures[f"backend_{op}_gbps"] = value


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
    return runs


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
        if parts is None or _band("IOR", op, best, parts, "end_to_end", refusals, notes):
            figures[f"end_to_end_{op}_gbps"] = best
        elif op in fits.get("clients", {}):
            del fits["clients"][op]
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
            detail = (
                f"USL fit peak {back:.2f} GB/s (95 % range {fit['peak_gbps_low']:.2f}-{fit['peak_gbps_high']:.2f}) at {fit['peak_threads']:.0f} threads"
                if fit
                else f"best measured {back:.2f} GB/s"
            )
            osts = f" on {calibration.backend_osts} OSTs" if calibration.backend_osts else ""
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
            stages[op] = {"all stages": "data sheets (this calibration did not measure " + op + "s)"}
    if client_curves:
        out["client_curves"] = client_curves
    return {"figures": out, "sources": sources, "stages": stages}


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
