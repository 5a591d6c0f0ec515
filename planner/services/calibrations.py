"""Calibrations: parse a site's obdfilter-survey and IOR output, fit it, keep it as a profile a
DesignSpec can name, and say which figures came from it."""

from __future__ import annotations

from planner.engine.benchparse import ParseError, parse_benchmark
from planner.engine.calibration import FitError, fit_usl, sweep_points
from planner.models import Calibration
from planner.spec import SpecError

from .catalogue import visible_templates

MAX_UPLOAD_BYTES = 1024 * 1024


def calibration_create(
    *,
    owner,
    name: str,
    brick_template: str,
    obdfilter: tuple[str, str] | None = None,
    ior: tuple[str, str] | None = None,
    ior_bricks: int = 1,
) -> Calibration:
    """Parse and fit uploads, given as (file name, text); raise SpecError naming the field and the problem."""
    errors: dict = {}
    if not visible_templates(owner).filter(slug=brick_template).exists():
        errors["brick_template"] = [f"unknown brick template '{brick_template[:40]}'"]
    if not obdfilter and not ior:
        errors["files"] = ["upload an obdfilter-survey output, an IOR output, or both"]
    parsed, fits, notes = {}, {}, []
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

    if obd is not None:
        fit_errors = []
        for op in ("write", "read"):
            threads, gbps = sweep_points(obd.obdfilter, op)
            if not gbps:
                notes.append(f"obdfilter-survey: no {op} results.")
                continue
            try:
                fit = fit_usl(threads, gbps, operation=op)
            except FitError as exc:
                fit_errors.append(str(exc))
                figures[f"backend_{op}_gbps"] = max(gbps)
                notes.append(f"obdfilter-survey {op}: too few thread counts to fit; the best measured {max(gbps):.2f} GB/s is used.")
                continue
            fits[op] = fit.as_dict()
            figures[f"backend_{op}_gbps"] = fit.peak_gbps
        if fit_errors and not fits and not figures:
            raise SpecError({"obdfilter": fit_errors})
        if fit_errors:
            fits["refused"] = fit_errors
    if ior_result is not None:
        bricks = max(int(ior_bricks or 1), 1)
        preferred = [r for r in ior_result.ior if r.file_per_process] or ior_result.ior
        for op in ("write", "read"):
            values = [r.max_gbps for r in preferred if r.operation == op]
            if values:
                figures[f"end_to_end_{op}_gbps"] = max(values) / bricks
        sweep = sorted({(r.tasks, r.operation, r.max_gbps) for r in ior_result.ior if r.tasks})
        if sweep:
            fits["ior_sweep"] = [{"tasks": t, "operation": op, "gbps": g} for t, op, g in sweep]
        notes.append(
            f"IOR: the best {'file-per-process ' if any(r.file_per_process for r in ior_result.ior) else ''}result "
            f"divided by {bricks} brick(s) gives the end-to-end figure per brick."
        )
    for op in ("read", "write"):
        back, end = figures.get(f"backend_{op}_gbps"), figures.get(f"end_to_end_{op}_gbps")
        if back and end:
            ratio = end / back
            if ratio > 1.0:
                notes.append(
                    f"{op}: IOR per brick ({end:.2f} GB/s) exceeds the obdfilter-survey back end ({back:.2f}); efficiency capped at 1.0."
                )
            figures[f"efficiency_{op}"] = min(ratio, 1.0)
            if ratio < 0.5:
                notes.append(
                    f"{op}: IOR per brick ({end:.2f} GB/s) is under half the obdfilter-survey back end ({back:.2f} GB/s). Check the number "
                    "of bricks IOR ran against, or whether the clients or the network limited it; designs using this calibration inherit it."
                )
    return Calibration.objects.create(
        owner=owner,
        name=name or "Calibration",
        brick_template=brick_template,
        obdfilter_name=obdfilter[0] if obdfilter else "",
        obdfilter_text=obdfilter[1] if obdfilter else "",
        ior_name=ior[0] if ior else "",
        ior_text=ior[1] if ior else "",
        ior_bricks=max(int(ior_bricks or 1), 1),
        parsed=parsed,
        fit=fits,
        notes=notes,
        **figures,
    )


def calibrations_visible_to(user):
    """A user's own calibrations."""
    if user is None or not user.is_authenticated:
        return Calibration.objects.none()
    return Calibration.objects.filter(owner=user)


def calibration_figures(calibration: Calibration, tuning_read: float, tuning_write: float) -> dict:
    """What a calibration changes for its template's bricks: measured back end, efficiency, and sources."""
    out, sources = {}, {}
    for op, tuning_eff in (("read", tuning_read), ("write", tuning_write)):
        back = getattr(calibration, f"backend_{op}_gbps")
        end = getattr(calibration, f"end_to_end_{op}_gbps")
        eff = getattr(calibration, f"efficiency_{op}")
        if back:
            out[f"measured_backend_{op}_gbps"] = back
            fit = calibration.fit.get(op)
            detail = (
                (
                    f"USL fit peak {back:.2f} GB/s (95 % range {fit['peak_gbps_low']:.2f}-{fit['peak_gbps_high']:.2f}) at "
                    f"{fit['peak_threads']:.0f} threads"
                )
                if fit
                else f"best measured {back:.2f} GB/s"
            )
            sources[f"measured_backend_{op}"] = (
                f"calibration '{calibration.name}' (#{calibration.id}): obdfilter-survey {calibration.obdfilter_name}, {detail}"
            )
        if eff is not None:
            out[f"efficiency_{op}"] = eff
            sources[f"software_efficiency_{op}"] = (
                f"calibration '{calibration.name}' (#{calibration.id}): IOR {end:.2f} GB/s per brick over obdfilter-survey"
            )
        elif end and not back:
            out[f"measured_backend_{op}_gbps"] = end / tuning_eff
            sources[f"measured_backend_{op}"] = (
                f"calibration '{calibration.name}' (#{calibration.id}): IOR {end:.2f} GB/s per brick "
                f"over the tuning profile's efficiency {tuning_eff:.2f}"
            )
    return {"figures": out, "sources": sources}


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
