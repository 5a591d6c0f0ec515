"""Design to target: build the candidate options from the catalogue and the request, run the
vectorised solver, and describe the answers as DesignSpecs the designer can open."""

from __future__ import annotations

from hardware_catalog import models as cat
from planner.engine import solver
from planner.spec import SpecError, normalise_spec

from .catalogue import catalogue_snapshot
from .evaluation import design_resolve

MAX_CANDIDATES = 2_000_000
MIX_MAX_OPTIONS = 12  # two-line mixes are tried when the request allows at most this many brick options
MIX_MAX_COUNT = 30  # ... with 1 to 30 bricks on each line
SYNC_CANDIDATES = 50_000  # larger searches run as Celery tasks with progress


def _options(request: dict, user) -> tuple[list, list[dict]]:
    """Every brick option the request allows (template x disk x expansion count), resolved against
    one catalogue snapshot: the catalogue's templates, the user's own and those shared with them."""
    snap = catalogue_snapshot(user=user)
    templates = request.get("templates") or snap.choices("templates", lambda t: t.owner_id is None)
    base = normalise_spec(
        {
            k: request[k]
            for k in ("metadata", "rack", "tuning", "failover", "price_list", "calibration", "clients", "fabric")
            if k in request
        }
    )
    options, described, errors = [], [], {}
    for slug in templates:
        if slug not in snap.templates:
            errors.setdefault("templates", []).append(f"unknown brick template '{slug[:40]}'")
    for d in request.get("disks") or []:
        if d not in snap.disks:
            errors.setdefault("disks", []).append(f"unknown disk '{d[:40]}'")
    if errors:
        raise SpecError(errors)
    for template in sorted((snap.templates[slug] for slug in set(templates)), key=lambda t: t.slug):
        disks = request.get("disks") or [template.disk.slug]
        expansion_counts = request.get("expansions")
        if expansion_counts is None:
            expansion_counts = [template.expansions]
        san = template.head.kind in (cat.Enclosure.Kind.ISCSI_ARRAY, cat.Enclosure.Kind.FC_ARRAY)
        for disk in disks:
            for exp in expansion_counts:
                if exp > template.head.max_expansions or (exp and template.expansion_id is None and not san):
                    continue
                spec = {**base, "bricks": [{"template": template.slug, "count": 1, "disk": disk, "expansions": exp}]}
                try:
                    design = design_resolve(spec=spec, user=user, snapshot=snap)
                except SpecError:
                    continue  # e.g. a 3.5 inch disk for 2.5 inch bays, or paired failover on internal bays: not an option
                options.append(design)
                described.append({"template": template.slug, "template_name": template.name, "disk": disk, "expansions": exp, "spec": spec})
    if not options:
        raise SpecError({"templates": ["no brick option fits these templates, disks and expansion counts"]})
    return options, described


def metadata_sizing(*, sizing: dict):
    """Size the metadata and choose the smallest catalogue cell that holds it (see planner.engine.metadata)."""
    from planner.engine.metadata import CellOption, size_metadata

    from .evaluation import metadata_cell_summaries

    cells = [
        CellOption(
            slug=c["cell"].slug, name=c["cell"].name, mdts=c["mdt"]["mdts"], mdt_bytes=c["mdt"]["usable_bytes"] / max(c["mdt"]["mdts"], 1)
        )
        for c in metadata_cell_summaries()
        if c["mdt"] is not None  # a cell without composed MDT storage cannot be sized
    ]
    return size_metadata(
        files=sizing["files"],
        histogram=[tuple(p) for p in sizing["histogram"]],
        dom_stripe_bytes=sizing.get("dom_stripe_bytes", 0),
        inode_ratio_bytes=sizing.get("inode_ratio_bytes", 2560),
        headroom=sizing.get("headroom", 0.2),
        cells=cells,
    )


def estimated_candidates(request: dict) -> int:
    """An upper bound on the candidates a request will evaluate, without touching the engine."""
    templates = request.get("templates") or list(cat.BrickTemplate.objects.filter(owner__isnull=True).values_list("slug", flat=True))
    per_template = max(len(request.get("disks") or [1]), 1) * max(len(request.get("expansions") or [1]), 1)
    return len(templates) * per_template * request.get("max_bricks", 200)


def solve_request(*, request: dict, user=None) -> tuple[dict | None, "object | None"]:
    """Answer now (result, None) when the search is small; else queue it: (None, SolveJob)."""
    from django.db import transaction

    from planner.models import SolveJob

    if estimated_candidates(request) <= SYNC_CANDIDATES:
        return design_solve(request=request, user=user), None
    job = SolveJob.objects.create(owner=user if user is not None and user.is_authenticated else None, request=request)
    from planner.tasks import solve_task

    transaction.on_commit(lambda: solve_task.delay(str(job.id)))
    return None, job


def solve_run(*, job_id: str) -> None:
    """Run a queued search (the Celery task calls this), recording progress and the result on the job."""
    from django.utils import timezone

    from planner.models import SolveJob

    job = SolveJob.objects.select_related("owner").get(pk=job_id)
    if job.status == SolveJob.Status.DONE:
        return
    SolveJob.objects.filter(pk=job.pk).update(status=SolveJob.Status.RUNNING, progress=1)

    def progress(fraction: float) -> None:
        SolveJob.objects.filter(pk=job.pk).update(progress=max(1, min(99, int(fraction * 100))))

    try:
        result = design_solve(request=job.request, user=job.owner, progress=progress)
    except SpecError as exc:
        SolveJob.objects.filter(pk=job.pk).update(status=SolveJob.Status.FAILED, error=str(exc.errors)[:2000], finished_at=timezone.now())
        return
    SolveJob.objects.filter(pk=job.pk).update(status=SolveJob.Status.DONE, progress=100, result=result, finished_at=timezone.now())


def design_solve(*, request: dict, user=None, progress=None) -> dict:
    """The cheapest designs meeting the targets, ranked, with the Pareto frontier; or which constraint cannot be met."""
    sized = None
    if request.get("metadata_sizing"):
        sized = metadata_sizing(sizing=request["metadata_sizing"])
        if sized.cell is None:
            raise SpecError({"metadata_sizing": [sized.message]})
        request = {**request, "metadata": {**(request.get("metadata") or {}), "cell": sized.cell}}
    targets = solver.Targets(**request.get("targets", {}))
    max_bricks = request.get("max_bricks", 200)
    options, described = _options(request, user)
    if len(options) * max_bricks > MAX_CANDIDATES:
        raise SpecError(
            {
                "max_bricks": [
                    f"{len(options)} brick options x {max_bricks} counts is {len(options) * max_bricks:,} candidates; "
                    f"at most {MAX_CANDIDATES:,} in one request: allow fewer templates, disks or expansion counts, "
                    "or lower max_bricks"
                ]
            }
        )
    pairs, pair_max = [], 0
    if request.get("mixes", True) and 1 < len(options) <= MIX_MAX_OPTIONS:
        pairs = [
            (i, j)
            for i in range(len(options))
            for j in range(i + 1, len(options))
            if described[i]["template"] != described[j]["template"] or described[i]["disk"] != described[j]["disk"]
        ]
        pair_max = min(MIX_MAX_COUNT, max_bricks)
    result = solver.solve(
        options, targets, max_count=max_bricks, limit=request.get("limit", 50), progress=progress, pairs=pairs, pair_max_count=pair_max
    )

    def describe(c: solver.Candidate) -> dict:
        option = described[c.option]
        lines = [{**option["spec"]["bricks"][0], "count": c.count}]
        name = f"{c.count} x {option['template_name']}, {option['disk']}"
        template, disk = option["template"], option["disk"]
        if c.option2 is not None:  # a mix of two brick lines
            other = described[c.option2]
            lines.append({**other["spec"]["bricks"][0], "count": c.count2})
            name += f" + {c.count2} x {other['template_name']}, {other['disk']}"
            template = f"{template} + {other['template']}"
            disk = disk if disk == other["disk"] else f"{disk} + {other['disk']}"
        return {
            "template": template,
            "disk": disk,
            "expansions": option["expansions"],
            "count": c.count + c.count2,
            "lines": [{k: line[k] for k in ("template", "count", "disk", "expansions")} for line in lines],
            "usable_pib": round(c.usable_pib, 4),
            "read_gbps": round(c.read_gbps, 2),
            "write_gbps": round(c.write_gbps, 2),
            "price": round(c.price, 2),
            "rack_count": c.rack_count,
            "units_used": c.units_used,
            "power_w": round(c.power_w, 1),
            "on_frontier": c.on_frontier,
            "spec": {**option["spec"], "bricks": lines, "name": name},
        }

    names = {
        "usable_pib": "usable capacity (PiB)",
        "read_gbps": "read throughput (GB/s)",
        "write_gbps": "write throughput (GB/s)",
        "budget": "budget",
        "max_racks": "rack count",
        "combination": "all the targets together",
    }
    unmet = []
    for u in result.unmet:
        if u["constraint"] == "combination":
            text = "Each target can be met on its own, but no single design meets them all within the budget and rack limit."
        elif u["constraint"] in ("budget", "max_racks"):
            what = "the cheapest candidate costs" if u["constraint"] == "budget" else "the smallest candidate needs"
            text = f"The {names[u['constraint']]} of {u['target']:,.0f} cannot be met: {what} {u['best_reachable']:,.0f}."
        else:
            text = f"The {names[u['constraint']]} target of {u['target']} cannot be met: at most {u['best_reachable']:.2f} with up to {max_bricks} bricks of the allowed options."
        unmet.append({**u, "message": text})
    return {
        "targets": {k: v for k, v in vars(targets).items()},
        "candidates_evaluated": result.candidates_evaluated,
        "feasible": result.feasible,
        "results": [describe(c) for c in result.ranked],
        "frontier": [describe(c) for c in result.frontier],
        "unmet": unmet,
        "metadata_sizing": sized.as_dict() if sized else None,
    }
