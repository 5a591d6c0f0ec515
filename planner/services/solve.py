"""Design to target: build the candidate options from the catalogue and the request, run the
vectorised solver, and describe the answers as DesignSpecs the designer can open."""

from __future__ import annotations

import dataclasses

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
                native = exp == template.expansions
                same = next((i for i, o in enumerate(options) if _same_composition(o, design)), None)
                if same is not None:
                    # e.g. a capacity brick with 0 expansions is a performance brick: one option, named by the
                    # template whose own composition it is
                    if native and described[same]["expansions"] != snap.templates[described[same]["template"]].expansions:
                        options[same] = design
                        described[same] = _described(template, snap, disk, exp, spec)
                    continue
                options.append(design)
                described.append(_described(template, snap, disk, exp, spec))
    if not options:
        raise SpecError({"templates": ["no brick option fits these templates, disks and expansion counts"]})
    return options, described


def _composition(design):
    """A one-line design's brick as the engine sees it, without its names (and without an expansion model
    when it has no expansions): two options with equal compositions are one design."""
    g = design.bricks[0]
    return dataclasses.replace(g, template="", name="", role="", expansion=g.expansion if g.expansions else None)


def _same_composition(a, b) -> bool:
    return dataclasses.replace(a, bricks=(), name="") == dataclasses.replace(b, bricks=(), name="") and _composition(a) == _composition(b)


def _described(template, snap, disk: str, exp: int, spec: dict) -> dict:
    label = template.name
    if exp != template.expansions:  # not the template's own composition: say how it differs
        label += f" with {exp} expansion{'s' if exp != 1 else ''}"
    return {
        "template": template.slug,
        "template_name": label,
        "disk": disk,
        "disk_name": snap.disks[disk].name if disk in snap.disks else disk,
        "expansions": exp,
        "spec": spec,
    }


def _chart_line(rows: list[dict]) -> list[dict]:
    """The frontier as the chart draws it, price against usable capacity: by price, each design that holds
    more than every cheaper one (a selection, no figure computed). Its first point is the cheapest design
    meeting the targets."""
    line, best_usable = [], -1.0
    for r in sorted(rows, key=lambda r: (r["price"], -r["usable_pib"])):
        if r["usable_pib"] > best_usable + 1e-9:
            line.append(r)
            best_usable = r["usable_pib"]
    return line


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
        names = [{"template_name": option["template_name"], "disk_name": option["disk_name"]}]
        name = f"{c.count} x {option['template_name']}, {option['disk_name']}"
        template, disk, disk_name = option["template"], option["disk"], option["disk_name"]
        if c.option2 is not None:  # a mix of two brick lines
            other = described[c.option2]
            lines.append({**other["spec"]["bricks"][0], "count": c.count2})
            names.append({"template_name": other["template_name"], "disk_name": other["disk_name"]})
            name += f" + {c.count2} x {other['template_name']}, {other['disk_name']}"
            template = f"{template} + {other['template']}"
            disk = disk if disk == other["disk"] else f"{disk} + {other['disk']}"
            disk_name = disk_name if disk_name == other["disk_name"] else f"{disk_name} + {other['disk_name']}"
        return {
            "name": name,
            "template": template,
            "disk": disk,
            "disk_name": disk_name,
            "expansions": option["expansions"],
            "count": c.count + c.count2,
            "lines": [
                {**{k: line[k] for k in ("template", "count", "disk", "expansions")}, **n} for line, n in zip(lines, names, strict=True)
            ],
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

    unmet = _explain_unmet(result, targets, options, described, max_bricks, pairs, pair_max, describe) if not result.feasible else []
    frontier = [describe(c) for c in result.frontier]
    return {
        "targets": {k: v for k, v in vars(targets).items()},
        "candidates_evaluated": result.candidates_evaluated,
        "feasible": result.feasible,
        "results": [describe(c) for c in result.ranked],
        "frontier": frontier,
        "frontier_line": _chart_line(frontier),
        "unmet": unmet,
        "metadata_sizing": sized.as_dict() if sized else None,
    }


TARGET_WORDS = {
    "usable_pib": ("usable capacity", "PiB", "at least"),
    "read_gbps": ("read throughput", "GB/s", "at least"),
    "write_gbps": ("write throughput", "GB/s", "at least"),
    "budget": ("budget", "USD", "at most"),
    "max_racks": ("rack count", "racks", "at most"),
}
_BEST = {  # the best reachable on each axis: the most capacity or throughput, the lowest price, the fewest racks
    "usable_pib": lambda c: -c.usable_pib,
    "read_gbps": lambda c: -c.read_gbps,
    "write_gbps": lambda c: -c.write_gbps,
    "budget": lambda c: c.price,
    "max_racks": lambda c: (c.rack_count, c.price),
}


def _figure(name: str, value) -> str:
    unit = TARGET_WORDS[name][1]
    if name == "budget":
        return f"{value:,.0f} {unit}"
    if name == "max_racks":
        return f"{int(value)} {'rack' if int(value) == 1 else 'racks'}"
    return f"{value:,.2f} {unit}" if name == "usable_pib" else f"{value:,.1f} {unit}"


def _within(name: str, value) -> str:
    """A target as a condition: 'within 2 racks', 'within a budget of 100,000 USD', 'with at least 1.00 PiB usable'."""
    if name == "max_racks":
        return f"within {_figure(name, value)}"
    if name == "budget":
        return f"within a budget of {_figure(name, value)}"
    return f"with at least {_figure(name, value)} {'usable' if name == 'usable_pib' else name[:-5]}"


def _explain_unmet(result, targets, options, described, max_bricks, pairs, pair_max, describe) -> list[dict]:
    """Nothing meets every target: for each target, the best design meeting all the others (the target
    relaxed), so the page names the constraint that cannot be met and the best reachable on each axis."""
    given = {k: v for k, v in vars(targets).items() if v is not None}
    reached = {u["constraint"]: u["best_reachable"] for u in result.unmet}
    unmet = []
    for name, target in given.items():
        relaxed = solver.solve(
            options, dataclasses.replace(targets, **{name: None}), max_count=max_bricks, limit=500, pairs=pairs, pair_max_count=pair_max
        )
        candidates = relaxed.ranked + relaxed.frontier
        what, _, bound = TARGET_WORDS[name]
        if not candidates:
            continue  # the others cannot be met either (their own entries say why)
        best = min(candidates, key=_BEST[name])
        row = describe(best)
        value = {
            "usable_pib": row["usable_pib"],
            "read_gbps": row["read_gbps"],
            "write_gbps": row["write_gbps"],
            "budget": row["price"],
            "max_racks": row["rack_count"],
        }[name]
        within = " and ".join(_within(k, given[k]) for k in given if k != name).replace(" and with ", " and ")
        scope = within or f"with up to {max_bricks} bricks of the allowed options"
        text = (
            f"The {what} target ({bound} {_figure(name, target)}) cannot be met {scope}: "
            f"the best reachable is {_figure(name, value)}, {row['name']}."
        )
        unmet.append(
            {"constraint": name, "target": target, "best_reachable": value, "message": text, "design": row, "alone": name in reached}
        )
    # a target no candidate reaches even alone first; then those that only clash with the others
    unmet.sort(key=lambda u: not u["alone"])
    if not unmet:
        unmet.append(
            {
                "constraint": "combination",
                "target": None,
                "best_reachable": None,
                "message": "No design meets these targets together, and none meets any of them with the others relaxed: "
                "allow more bricks, templates or disks.",
                "design": None,
                "alone": False,
            }
        )
    return unmet
