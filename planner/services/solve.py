"""Design to target: build the candidate options from the catalogue and the request, run the
vectorised solver, and describe the answers as DesignSpecs the designer can open."""

from __future__ import annotations

import dataclasses
import re
from datetime import timedelta

from django.conf import settings
from django.utils import timezone

from hardware_catalog import models as cat
from planner.engine import solver
from planner.spec import SpecError, normalise_spec

from .catalogue import catalogue_snapshot
from .evaluation import design_resolve

MAX_CANDIDATES = 20_000_000  # pruned: the catalogue's every template x disk x expansion count at 500 bricks fits
MIX_MAX_OPTIONS = 12  # two-line mixes are tried when the request allows at most this many brick options
MIX_MAX_COUNT = 30  # ... with 1 to 30 bricks on each line (a cap per line: max_bricks caps the lines together)
# a search is answered inline when its estimated cost is under the caller's work limit
# (planner/services/budget.py); larger ones run as Celery tasks with progress


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
    options, described, errors, incomplete = [], [], {}, set()
    rejected: dict[str, dict[str, None]] = {}  # the request field to blame -> why options were left out (in order, once)
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
                    most = template.head.max_expansions if (template.expansion_id is not None or san) else 0
                    rejected.setdefault("expansions", {})[f"{template.slug}: takes at most {most} expansion enclosures, not {exp}"] = None
                    continue
                spec = {**base, "bricks": [{"template": template.slug, "count": 1, "disk": disk, "expansions": exp}]}
                try:
                    design = design_resolve(spec=spec, user=user, snapshot=snap)
                except SpecError as exc:
                    # e.g. a 3.5 inch disk for 2.5 inch bays, or paired failover on internal bays: not an option;
                    # a part imported without its planner figures is not one either, but the answer names it
                    incomplete.update(m for m in error_messages(exc.errors) if " is incomplete: " in m)
                    for field, message in _rejections(exc.errors, template, disk):
                        rejected.setdefault(field, {})[message] = None
                    continue
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
        message = "no brick option fits these templates, disks and expansion counts"
        if incomplete:
            message += "; left out as incomplete: " + " | ".join(sorted(incomplete))
        # each field that ruled options out says why (e.g. failover 'paired' with disks inside the server)
        body = {field: list(messages)[:MAX_REASONS] for field, messages in rejected.items() if field != "templates"}
        reasons = [m for m in rejected.get("templates", {}) if " is incomplete: " not in m][:MAX_REASONS]
        if body and not reasons:
            message += ": see " + ", ".join(f"'{f}'" for f in body)
        raise SpecError({"templates": [message, *reasons], **body})
    return options, described


MAX_REASONS = 6  # distinct reasons named per field when no option is left
_BRICK_FIELDS = {"disk": "disks", "expansions": "expansions"}  # a brick line's field -> the solve request's field


def _rejections(errors: dict, template, disk: str) -> list[tuple[str, str]]:
    """Why one option was refused, as (solve request field, message): a brick line's disk and expansion errors
    fall on `disks` and `expansions`, its other errors on `templates`; design-wide ones (failover, rack, ...)
    on their own field. Messages name the template (and disk) instead of the internal line number."""
    out = []
    for key, value in errors.items():
        if key != "bricks":
            for m in error_messages(value):
                out.append((key, re.sub(r"^bricks\[\d+\] \((.*?)\) ", r"\1 ", m)))
            continue
        lines = value.values() if isinstance(value, dict) else value
        for line in lines:
            for field, messages in line.items() if isinstance(line, dict) else [("template", line)]:
                for m in error_messages(messages):
                    out.append((_BRICK_FIELDS.get(field, "templates"), f"{template.slug} with {disk}: {m}"))
    return out


def error_messages(errors) -> list[str]:
    """Every message in a nested SpecError body (dicts and lists of strings)."""
    if isinstance(errors, dict):
        return [m for value in errors.values() for m in error_messages(value)]
    if isinstance(errors, (list, tuple)):
        return [m for value in errors for m in error_messages(value)]
    return [str(errors)]


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


def estimated_options(request: dict) -> int:
    """An upper bound on the brick options a request resolves (template x disk x expansion count)."""
    templates = request.get("templates") or catalogue_snapshot().choices("templates", lambda t: t.owner_id is None)
    return len(templates) * max(len(request.get("disks") or [1]), 1) * max(len(request.get("expansions") or [1]), 1)


def estimated_candidates(request: dict) -> int:
    """An upper bound on the candidates a request will evaluate, without touching the engine."""
    templates = request.get("templates") or catalogue_snapshot().choices("templates", lambda t: t.owner_id is None)
    per_template = max(len(request.get("disks") or [1]), 1) * max(len(request.get("expansions") or [1]), 1)
    return len(templates) * per_template * request.get("max_bricks", 200)


def estimated_search(request: dict) -> dict:
    """The pruned search's work before it runs, in candidate designs (see planner/services/budget.py):
    each option resolved and evaluated at a few bisection and frontier counts (about 8 designs measured;
    40 allowed), and, where mixes are tried, about 4,000 per pair of options, their three-line mixes
    included (measured: 6 options with mixes, 15 pairs, 124-142 ms; 108 options without, 57 ms)."""
    options = estimated_options(request)
    mixes = 0
    if request.get("mixes", True) and 1 < options <= MIX_MAX_OPTIONS:
        mixes = options * (options - 1) // 2 * 4_000
    return {"options": options, "candidates": options * min(request.get("max_bricks", 200), 40) + mixes}


def solve_request(*, request: dict, user=None) -> tuple[dict | None, "object | None"]:
    """Answer now (result, None) when the search is small; else queue it: (None, SolveJob)."""

    from planner.models import SolveJob

    from . import budget, jobs

    if budget.solve_cost(**estimated_search(request)) <= budget.limit(user):
        return design_solve(request=request, user=user), None
    owner = user if user is not None and user.is_authenticated else None
    if owner is None:
        # anonymous searches are bounded in number: the same request within the hour is the same job,
        # and at most ANON_MAX_WAITING_SOLVES wait at once (each row keeps its request and answer)
        recent = timezone.now() - timedelta(hours=1)
        same = SolveJob.objects.filter(owner=None, request=request, created_at__gte=recent).exclude(status=SolveJob.Status.FAILED).first()
        if same is not None:
            jobs.resend_if_lost(same)
            return None, same
        waiting = SolveJob.objects.filter(owner=None, status__in=(SolveJob.Status.QUEUED, SolveJob.Status.RUNNING)).count()
        if waiting >= settings.ANON_MAX_WAITING_SOLVES:
            raise jobs.QueueFull(
                f"{waiting} anonymous searches are waiting for a worker (at most {settings.ANON_MAX_WAITING_SOLVES}); "
                "try again in a minute, narrow the search so it is answered at once, or sign in (signed-in searches are not capped)"
            )
    job = SolveJob.objects.create(owner=owner, request=request)
    jobs.enqueue(job)  # BrokerUnavailable: the view answers 503; the job is re-sent later
    return None, job


def solve_run(*, job_id: str) -> None:
    """Run a queued search (the Celery task calls this), recording progress and the result on the job."""
    from django.utils import timezone

    from planner.models import SolveJob

    job = SolveJob.objects.select_related("owner").get(pk=job_id)
    if job.status == SolveJob.Status.DONE:
        return
    SolveJob.objects.filter(pk=job.pk).update(
        status=SolveJob.Status.RUNNING, progress=1, started_at=timezone.now(), attempts=job.attempts + 1
    )

    def progress(fraction: float) -> None:
        SolveJob.objects.filter(pk=job.pk).update(progress=max(1, min(99, int(fraction * 100))))

    try:
        result = design_solve(request=job.request, user=job.owner, progress=progress, job=job)
    except SpecError as exc:
        SolveJob.objects.filter(pk=job.pk).update(status=SolveJob.Status.FAILED, error=str(exc.errors)[:2000], finished_at=timezone.now())
        return
    if result is None:  # split into parts (a Celery group): the last part to finish stores the answer
        return
    SolveJob.objects.filter(pk=job.pk).update(status=SolveJob.Status.DONE, progress=100, result=result, finished_at=timezone.now())


def _prepare(request: dict, user) -> dict:
    """What a search needs: the request (with a sized metadata cell), targets, the brick options and mixes."""
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
            if (described[i]["template"] != described[j]["template"] or described[i]["disk"] != described[j]["disk"])
            and solver.even_osts(options, (i, j))  # uneven OSTs would not keep the write rate they add up to
        ]
        pair_max = min(MIX_MAX_COUNT, max_bricks)  # per line; the engine keeps each mix within max_bricks in all
    return {
        "request": request,
        "sized": sized,
        "targets": targets,
        "max_bricks": max_bricks,
        "limit": request.get("limit", 50),
        "options": options,
        "described": described,
        "pairs": pairs,
        "pair_max": pair_max,
        # three-line mixes of the options on the one- and two-line frontier, where two-line mixes are tried
        "triples": None if pairs else (),
    }


def design_solve(*, request: dict, user=None, progress=None, job=None) -> dict | None:
    """The cheapest designs meeting the targets, ranked, with the Pareto frontier; or which constraint cannot be met.

    With a `job` (a queued search) whose space is large and has no mixes, the search is split into parts
    run as a Celery group (`solve_chunks`): None is returned and the last part to finish stores the answer."""
    s = _prepare(request, user)
    if job is not None and _chunk_count(s) > 1:
        solve_chunks(job=job, prepared=s)
        return None
    result = solver.solve(
        s["options"],
        s["targets"],
        max_count=s["max_bricks"],
        limit=s["limit"],
        progress=progress,
        pairs=s["pairs"],
        pair_max_count=s["pair_max"],
        triples=s["triples"],
        described=s["described"],
    )
    return _answer(result, s)


def _describe(c: solver.Candidate, described: list[dict]) -> dict:
    """A candidate as the pages and the API show it: names, lines, figures and a DesignSpec."""
    picks = [(c.option, c.count), (c.option2, c.count2), (c.option3, c.count3)]
    picks = [(described[o], n) for o, n in picks if o is not None]
    option = picks[0][0]
    lines = [{**o["spec"]["bricks"][0], "count": n} for o, n in picks]
    names = [{"template_name": o["template_name"], "disk_name": o["disk_name"]} for o, _ in picks]
    name = " + ".join(f"{n} x {o['template_name']}, {o['disk_name']}" for o, n in picks)
    unique = lambda key: list(dict.fromkeys(o[key] for o, _ in picks))  # noqa: E731 - in order, each once
    return {
        "name": name,
        "template": " + ".join(o["template"] for o, _ in picks),
        "disk": " + ".join(unique("disk")),
        "disk_name": " + ".join(unique("disk_name")),
        "expansions": option["expansions"],
        "count": sum(n for _, n in picks),
        "lines": [{**{k: line[k] for k in ("template", "count", "disk", "expansions")}, **n} for line, n in zip(lines, names, strict=True)],
        "usable_pib": round(c.usable_pib, 4),
        "read_gbps": round(c.read_gbps, 2),
        "write_gbps": round(c.write_gbps, 2),
        "price": round(c.price, 2),
        "rack_count": c.rack_count,
        "units_used": c.units_used,
        "power_w": round(c.power_w, 1),
        "loss_probability": float(f"{c.loss_probability:.3g}"),
        "on_frontier": c.on_frontier,
        "spec": {**option["spec"], "bricks": lines, "name": name},
    }


def _answer(result: solver.SolveResult, s: dict) -> dict:
    """The response body of a search (the same whether it ran inline, as one task or in parts)."""
    targets, described = s["targets"], s["described"]

    def describe(c):
        return _describe(c, described)

    unmet = []
    if not result.feasible:
        options = s["options"] if s.get("options") is not None else _resolve_options(s)
        unmet = _explain_unmet(result, targets, options, described, s["max_bricks"], s["pairs"], s["pair_max"], describe)
    frontier = [describe(c) for c in result.frontier]
    return {
        # as asked (a target worked out from a demand, e.g. 0.5 PiB x 1.4^2, without its float noise: 0.98, not 0.9799999999999999)
        "targets": {k: round(v, 9) if isinstance(v, float) else v for k, v in vars(targets).items()},
        "candidates_evaluated": result.candidates_evaluated,
        "designs_evaluated": result.designs_evaluated,
        "feasible": result.feasible,
        "results": [describe(c) for c in result.ranked],
        "frontier": frontier,
        "frontier_line": _chart_line(frontier),
        "unmet": unmet,
        "metadata_sizing": s["sized"].as_dict() if s.get("sized") else None,
    }


# ---------------------------------------------------------------------------------------------------------------
# A large search in parts: a Celery group of chunk tasks on the solve queue, merged by the last to finish

CHUNK_CANDIDATES = 1_000_000  # a queued search of single lines larger than this is split into parts of about this size
MAX_CHUNKS = 64


def _chunk_count(s: dict) -> int:
    """Parts a prepared search is split into: one when it has mixes (small) or is small."""
    if s["pairs"] or s["triples"]:
        return 1
    space = len(s["options"]) * s["max_bricks"]
    return max(1, min(MAX_CHUNKS, len(s["options"]), -(-space // CHUNK_CANDIDATES)))


def solve_chunks(*, job, prepared: dict, chunks: int | None = None) -> None:
    """Split a job's search into parts over its brick options (SolveChunk rows), then send them as one Celery
    group to the solve queue. Each part stores its partial answer; the last to finish merges them
    (`solve_chunk_run`). Sent again (a resent job), the parts not yet done are sent again."""
    from celery import group

    from planner.models import SolveChunk, SolveJob
    from planner.tasks import solve_chunk_task

    n = len(prepared["options"])
    chunks = chunks or _chunk_count(prepared)
    if not SolveChunk.objects.filter(job=job).exists():
        edges = [round(k * n / chunks) for k in range(chunks + 1)]
        SolveChunk.objects.bulk_create(
            [
                SolveChunk(job=job, index=k, options=[[i, prepared["described"][i]] for i in range(edges[k], edges[k + 1])])
                for k in range(chunks)
            ]
        )
        SolveJob.objects.filter(pk=job.pk).update(chunks_total=chunks, chunks_done=0)
    pending = list(SolveChunk.objects.filter(job=job).exclude(status=SolveChunk.Status.DONE).values_list("index", flat=True))
    group(solve_chunk_task.s(str(job.pk), k) for k in pending).apply_async()


def _chunk_search(job, described_part: list, frontier_limit: int | None = None) -> solver.Partial:
    """Search one part: resolve its options (from their one-line specs) and search them."""
    request = job.request
    snap = catalogue_snapshot(user=job.owner)
    total = max(i for i, _ in described_part) + 1
    options: list = [None] * total
    for i, d in described_part:
        options[i] = design_resolve(spec=d["spec"], user=job.owner, snapshot=snap)
    limit = request.get("limit", 50)
    return solver.solve_part(
        options,
        solver.Targets(**request.get("targets", {})),
        indices=[i for i, _ in described_part],
        max_count=request.get("max_bricks", 200),
        limit=limit,
        frontier_limit=frontier_limit or limit,
    )


def solve_chunk_run(*, job_id: str, index: int) -> None:
    """Run one part of a job (the chunk task calls this): store its partial answer, count it done (once, under
    the job's row lock), and when it is the last, merge every part and finish the job."""
    from django.db import transaction
    from django.utils import timezone

    from planner.models import SolveChunk, SolveJob

    job = SolveJob.objects.select_related("owner").get(pk=job_id)
    if job.status in (SolveJob.Status.DONE, SolveJob.Status.FAILED):
        return
    chunk = SolveChunk.objects.get(job=job, index=index)
    if chunk.status != SolveChunk.Status.DONE:
        SolveChunk.objects.filter(pk=chunk.pk).update(status=SolveChunk.Status.RUNNING)
        partial = _chunk_search(job, chunk.options)
        stored = (
            SolveChunk.objects.filter(pk=chunk.pk)
            .exclude(status=SolveChunk.Status.DONE)
            .update(status=SolveChunk.Status.DONE, partial=partial.as_json(), finished_at=timezone.now())
        )
        if not stored:
            return  # another delivery of this part got there first and counted it
        with transaction.atomic():
            locked = SolveJob.objects.select_for_update().get(pk=job.pk)
            done = locked.chunks_done + 1
            last = done >= locked.chunks_total
            SolveJob.objects.filter(pk=job.pk).update(chunks_done=done, progress=max(1, min(99, int(99 * done / locked.chunks_total))))
        if not last:
            return
    elif SolveJob.objects.get(pk=job.pk).chunks_done < job.chunks_total:
        return
    _finish_chunks(job)


def _finish_chunks(job) -> None:
    """Merge the parts' answers exactly (searching a part again with a longer frontier when the merge needs it)."""
    from django.utils import timezone

    from planner.models import SolveChunk, SolveJob

    chunks = list(SolveChunk.objects.filter(job=job).order_by("index"))
    targets = solver.Targets(**job.request.get("targets", {}))
    limit = job.request.get("limit", 50)
    parts = [solver.Partial.from_json(c.partial) for c in chunks]
    result = solver.merge_exact(parts, lambda k, fl: _chunk_search(job, chunks[k].options, fl), targets, limit=limit)
    described = [d for c in chunks for _, d in c.options]
    s = {
        "targets": targets,
        "described": described,
        "max_bricks": job.request.get("max_bricks", 200),
        "pairs": [],
        "pair_max": 0,
        "options": None,  # resolved only to explain targets nothing meets
        "job": job,
        "sized": None,
    }
    if job.request.get("metadata_sizing"):
        s["sized"] = metadata_sizing(sizing=job.request["metadata_sizing"])
    answer = _answer(result, s)
    SolveJob.objects.filter(pk=job.pk).update(status=SolveJob.Status.DONE, progress=100, result=answer, finished_at=timezone.now())


def _resolve_options(s: dict) -> list:
    """Every option of a job split into parts, resolved again (to explain targets nothing meets)."""
    job = s["job"]
    snap = catalogue_snapshot(user=job.owner)
    return [design_resolve(spec=d["spec"], user=job.owner, snapshot=snap) for d in s["described"]]


TARGET_WORDS = {
    "usable_pib": ("usable capacity", "PiB", "at least"),
    "read_gbps": ("read throughput", "GB/s", "at least"),
    "write_gbps": ("write throughput", "GB/s", "at least"),
    "budget": ("budget", "USD", "at most"),
    "max_racks": ("rack count", "racks", "at most"),
    "max_loss_probability": ("annual data-loss probability", "per year", "at most"),
}
_BEST = {  # the best reachable on each axis: the most capacity or throughput, the lowest price, the fewest racks
    "usable_pib": lambda c: -c.usable_pib,
    "read_gbps": lambda c: -c.read_gbps,
    "write_gbps": lambda c: -c.write_gbps,
    "budget": lambda c: c.price,
    "max_racks": lambda c: (c.rack_count, c.price),
    "max_loss_probability": lambda c: (c.loss_probability, c.price),
}


def _figure(name: str, value) -> str:
    unit = TARGET_WORDS[name][1]
    if name == "budget":
        return f"{value:,.0f} {unit}"
    if name == "max_racks":
        return f"{int(value)} {'rack' if int(value) == 1 else 'racks'}"
    if name == "max_loss_probability":
        return f"{value:.2g} {unit}"
    return f"{value:,.2f} {unit}" if name == "usable_pib" else f"{value:,.1f} {unit}"


def _within(name: str, value) -> str:
    """A target as a condition: 'within 2 racks', 'within a budget of 100,000 USD', 'with at least 1.00 PiB usable'."""
    if name == "max_racks":
        return f"within {_figure(name, value)}"
    if name == "budget":
        return f"within a budget of {_figure(name, value)}"
    if name == "max_loss_probability":
        return f"with a data-loss probability of at most {_figure(name, value)}"
    return f"with at least {_figure(name, value)} {'usable' if name == 'usable_pib' else name[:-5]}"


def _explain_unmet(result, targets, options, described, max_bricks, pairs, pair_max, describe) -> list[dict]:
    """Nothing meets every target: for each target, the best design meeting all the others (the target
    relaxed), so the page names the constraint that cannot be met and the best reachable on each axis."""
    given = {k: v for k, v in vars(targets).items() if v is not None}
    reached = {u["constraint"]: u["best_reachable"] for u in result.unmet}
    unmet = []
    for name, target in given.items():
        relaxed = solver.solve(
            options,
            dataclasses.replace(targets, **{name: None}),
            max_count=max_bricks,
            limit=500,
            pairs=pairs,
            pair_max_count=pair_max,
            triples=None if pairs else (),
            described=described,
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
            "max_loss_probability": row["loss_probability"],
        }[name]
        within = " and ".join(_within(k, given[k]) for k in given if k != name).replace(" and with ", " and ")
        scope = within or f"with up to {max_bricks} bricks in all of the allowed options"
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
