"""The designer and compare pages, and the JSON endpoint the designer calls as you edit.

Figures come from `planner.services`; the elevation SVG from `planner.rendering`. Nothing here
computes a figure.
"""

from __future__ import annotations

import base64
import json

from django.contrib.auth.decorators import login_required
from django.db.models import F
from django.http import JsonResponse
from django.shortcuts import redirect, render
from django.views.decorators.csrf import ensure_csrf_cookie
from django.views.decorators.http import require_GET, require_http_methods, require_POST

from api.serializers import validate_design_spec
from hardware_catalog import models as cat
from planner import services
from planner.rendering.elevation import rack_row
from planner.services.solve import error_messages as solve_messages
from planner.spec import SPEC_DEFAULTS, SpecError

MAX_BODY = 256 * 1024


def template_option(t: cat.BrickTemplate, user=None) -> dict:
    """One brick template as the designer's selects and RAID editor need it: its defaults (disk,
    expansions, network adapter and how many, storage ports, RAID layout) and its head's kind."""
    head = t.head
    san = head.kind in (cat.Enclosure.Kind.ISCSI_ARRAY, cat.Enclosure.Kind.FC_ARRAY)
    return {
        "slug": t.slug,
        "name": t.name,
        "role": t.role,
        "disk": t.disk.slug,
        "expansions": t.expansions,
        "max_expansions": head.max_expansions if (t.expansion_id or san) else 0,
        "adapter": t.network_adapter.slug,
        "network_adapter_count": t.network_adapter_count,
        "host_ports": t.host_ports,
        "form_factor": head.drive_form_factor,
        "head_kind": head.kind,
        "head_controllers": head.controllers,
        "drive_slots": head.drive_slots,
        "raid": {
            "level": t.raid_level,
            "data": t.raid_data_disks,
            "parity": t.raid_parity_disks,
            "groups": t.groups_per_enclosure,
            "spares": t.spares_per_enclosure,
        },
        "owner": t.owner.username if t.owner_id else None,
        "group": "catalogue" if t.owner_id is None else ("mine" if user is not None and t.owner_id == user.id else "shared"),
    }


def _options(user=None) -> dict:
    """What the designer's selects offer: the catalogue's brick templates (the presets), the user's
    own and those shared with them, each with its defaults; disks, adapters, racks, ..."""
    templates = services.brick_templates_visible_to(user).order_by(F("owner").asc(nulls_first=True), "role", "slug")
    return {
        "spec_defaults": {**SPEC_DEFAULTS, "bricks": []},
        "templates": [template_option(t, user) for t in templates],
        "disks": [{"slug": d.slug, "name": d.name, "form_factor": d.form_factor} for d in cat.Disk.objects.order_by("capacity_tb", "slug")],
        "adapters": [{"slug": a.slug, "name": a.name} for a in cat.Adapter.objects.exclude(kind="sas_hba").order_by("kind", "slug")],
        "racks": [{"slug": r.slug, "name": r.name} for r in cat.Rack.objects.order_by("units")],
        "tunings": [{"slug": t.slug, "name": t.name} for t in cat.TuningProfile.objects.order_by("slug")],
        "price_lists": [{"slug": p.slug, "name": p.name} for p in cat.PriceList.objects.order_by("slug")],
        "metadata_cells": [{"slug": m.slug, "name": m.name} for m in cat.MetadataCell.objects.order_by("slug")],
        "raid_levels": [{"slug": value, "name": label.replace(" (ZFS)", "")} for value, label in cat.BrickTemplate.Raid.choices],
        "username": user.username if user is not None and user.is_authenticated else None,
    }


def spec_to_query(spec: dict) -> str:
    """A DesignSpec as a URL-safe token for /designer/?spec=..."""
    return base64.urlsafe_b64encode(json.dumps(spec, separators=(",", ":")).encode()).decode().rstrip("=")


def _spec_from_query(token: str) -> tuple[dict | None, str | None]:
    if len(token) > 8000:
        return None, "That design link is too long."
    try:
        raw = base64.urlsafe_b64decode(token + "=" * (-len(token) % 4))
        data = json.loads(raw)
    except (ValueError, RecursionError):
        return None, "That design link is damaged."
    spec, errors = validate_design_spec(data)
    if errors is not None:
        text = "; ".join(_readable(line).rstrip(".") for line in _flatten_errors(errors))
        return None, f"That design link holds an invalid design: {text}."
    return {**SPEC_DEFAULTS, **spec}, None


@ensure_csrf_cookie
@require_GET
def designer(request):
    """Compose a design: start blank, from an example, or from a saved design (?design=<id>)."""
    initial = {"spec": {**SPEC_DEFAULTS, "bricks": []}, "design": None, "error": None, "reference": request.GET.get("ref", "")[:40]}
    if request.GET.get("spec"):
        spec, error = _spec_from_query(request.GET["spec"])
        if error:
            initial["error"] = error
        else:
            initial["spec"] = spec
    elif request.GET.get("example"):
        example = services.example_design(slug=request.GET["example"])
        if example is None:
            initial["error"] = f"No example design '{request.GET['example'][:40]}'."
        else:
            initial["spec"] = example["spec"]
    elif request.GET.get("design"):
        design = None
        if request.GET["design"].isdigit():
            design = services.designs_visible_to(request.user).filter(pk=int(request.GET["design"])).first()
        if design is None:
            initial["error"] = "That design does not exist or is not shared with you."
        else:
            initial["spec"] = {**design.spec, "name": design.name}
            initial["design"] = {
                "id": design.id,
                "version": design.version,
                "name": design.name,
                "is_owner": design.owner_id == request.user.id,
                "owner": design.owner.username,
            }
            if initial["design"]["is_owner"]:
                # the sharing box opens on the current state, so that applying it changes only what the owner edits
                initial["design"]["shared_with"] = sorted(u.username for u in design.shared_with.all())
                initial["design"]["share_page_url"] = (
                    request.build_absolute_uri(f"/shared/{design.share_token}/") if design.share_token else None
                )
    if request.GET.get("calibration", "").isdigit():
        initial["spec"] = {**initial["spec"], "calibration": int(request.GET["calibration"])}
    options = _options(request.user)
    if initial["design"] is not None and not initial["design"]["is_owner"]:
        known = {t["slug"] for t in options["templates"]}
        options["templates"] += [
            {**template_option(t, request.user), "group": "design"} for t in _design_templates(design) if t.slug not in known
        ]
    context = {
        "options": {
            **options,
            "calibrations": [
                {"id": c.id, "name": f"{c.name} ({c.brick_template})"} for c in services.calibrations_visible_to(request.user)
            ],
        },
        "initial": initial,
        "examples": services.example_designs(),
        "references": reference_choices(request.user),
        "signed_in": request.user.is_authenticated,
    }
    return render(request, "frontend/designer.html", context)


def _design_templates(design) -> list:
    """The brick templates a saved design names that its owner may use: a reader of a shared design
    sees and evaluates it with these, even when its owner has not shared the templates themselves."""
    named = {b.get("template") for b in (design.spec or {}).get("bricks", []) if isinstance(b, dict)}
    return list(services.brick_templates_visible_to(design.owner).filter(slug__in=named))


def _snapshot_with_design_templates(user, design):
    from planner.services.catalogue import catalogue_snapshot

    snap = catalogue_snapshot(user=user)
    if design.owner_id != getattr(user, "id", None):
        for t in _design_templates(design):
            snap.templates.setdefault(t.slug, t)
    return snap


@require_POST
def designer_evaluate(request):
    """POST {"spec": {...}, "design": id?} -> {"evaluation": {...}, "svgs": [...], "rack_row": {...}}, or 400 with field messages.

    `svgs` is the front view of each rack; `rack_row` adds the rear views, the summary strip of a
    long row and the legend (planner.rendering.elevation.rack_row, less its `front`: that is `svgs`)."""
    if len(request.body) > MAX_BODY:
        return JsonResponse({"detail": "The design is too large to send."}, status=413)
    try:
        body = json.loads(request.body or b"{}")
    except (ValueError, RecursionError):
        return JsonResponse({"detail": "The request is not valid JSON."}, status=400)
    if not isinstance(body, dict):
        return JsonResponse({"detail": "Expected a JSON object with a 'spec'."}, status=400)
    spec, errors = validate_design_spec(body.get("spec"))
    if errors is not None:
        return JsonResponse({"spec": errors}, status=400)
    prices, snapshot = None, None
    design_id = body.get("design")
    if isinstance(design_id, int):
        design = services.designs_visible_to(request.user).filter(pk=design_id).first()
        if design is not None:
            prices = design.prices or None
            snapshot = _snapshot_with_design_templates(request.user, design)
    try:
        evaluation = services.design_evaluate(spec=spec, prices=prices, user=request.user, snapshot=snapshot)
    except SpecError as exc:
        return JsonResponse({"spec": exc.errors}, status=400)
    data = evaluation.as_dict()
    relative = None
    reference = body.get("reference")
    if isinstance(reference, (str, int)) and str(reference):
        try:
            ref = services.design_reference_price(reference=str(reference), user=request.user)
        except SpecError as exc:
            return JsonResponse({"reference": exc.errors["reference"]}, status=400)
        relative = services.relative_to(price_total=data["price"]["total"], currency=data["price"]["currency"], reference=ref)
    row = rack_row(data["racks"])
    return JsonResponse({"evaluation": data, "svgs": row.pop("front"), "rack_row": row, "relative": relative})


@login_required
@require_GET
def designs_list(request):
    """Your saved designs and those shared with you."""
    designs = services.designs_visible_to(request.user).select_related("owner")
    reference = request.GET.get("ref", "")
    table = services.designs_table(designs=designs, reference=reference, user=request.user, sort=request.GET.get("sort", "-updated_at"))
    columns = []
    for key, label, numeric in (
        ("name", "Name", False),
        ("usable_pib", "Usable (PiB)", True),
        ("read_gbps", "Read (GB/s)", True),
        ("write_gbps", "Write (GB/s)", True),
        ("price_total", "Price", True),
        ("rack_count", "Racks", True),
        ("relative_price", "Relative price", True),
        ("updated_at", "Updated", False),
    ):
        current = table["sort"].lstrip("-") == key
        descending = table["sort"].startswith("-")
        # a click sorts by the column; a second click on the same column reverses it
        order = ("" if descending else "-") if current else ("-" if numeric or key == "updated_at" else "")
        query = request.GET.copy()
        query["sort"] = order + key
        columns.append(
            {
                "key": key,
                "label": label,
                "numeric": numeric,
                "url": "?" + query.urlencode(),
                "aria": ("descending" if descending else "ascending") if current else "none",
            }
        )
    context = {"table": table, "columns": columns, "reference_token": reference, "references": reference_choices(request.user)}
    return render(request, "frontend/designs.html", context)


def reference_choices(user) -> list[dict]:
    """What a reference for relative prices may be: the examples and the saved designs `user` may read."""
    choices = [{"token": f"ex:{e['slug']}", "name": e["name"]} for e in services.example_designs()]
    if user is not None and user.is_authenticated:
        choices += [{"token": str(d.id), "name": f"{d.name} (saved)"} for d in services.designs_visible_to(user).order_by("name")]
    return choices


def _compare_entry(request, token: str):
    """'ex:<slug>' for an example, or a saved design id; returns (label, spec, prices) or an error text."""
    if token.startswith("ex:"):
        example = services.example_design(slug=token[3:])
        if example is None:
            return f"no example design '{token[3:40]}'"
        return (example["name"].split(":")[0], example["spec"], None)
    if token.isdigit():
        design = services.designs_visible_to(request.user).filter(pk=int(token)).first()
        if design is not None:
            return (design.name, design.spec, design.prices or None, design.owner)
    return f"no design '{token[:40]}' visible to you"


@require_GET
def compare(request):
    """Compare 2-8 example or saved designs: table and a chart of usable PiB against GB/s."""
    reference_token = request.GET.get("ref", "")
    picked = [t for t in request.GET.getlist("d") if t]
    if picked and reference_token:
        picked.append(reference_token)  # a reference chosen elsewhere (e.g. "My designs") is compared too
    chosen = list(dict.fromkeys(picked))[:8]
    errors, entries, result, reference = [], [], None, 0
    for token in chosen:
        entry = _compare_entry(request, token)
        if isinstance(entry, str):
            errors.append(entry)
        else:
            entries.append(entry)
    if chosen and len(entries) < 2 and not errors:
        errors.append("Choose at least two designs to compare.")
    if len(entries) >= 2 and not errors:
        if reference_token in chosen:
            reference = chosen.index(reference_token)
        elif reference_token:
            errors.append("The reference is not among the chosen designs; the first one is used.")
        try:
            result = services.design_compare(entries=entries, reference=reference, user=request.user)
        except SpecError as exc:
            for entry, why in zip(entries, exc.errors.get("designs", []), strict=False):
                if why:
                    errors.append(f"{entry[0]} cannot be evaluated: {' '.join(solve_messages(why))}")
    saved = services.designs_visible_to(request.user).order_by("name") if request.user.is_authenticated else []
    context = {
        "examples": services.example_designs(),
        "saved": saved,
        "chosen": chosen,
        "reference_token": reference_token,
        "result": result,
        "errors": errors,
    }
    return render(request, "frontend/compare.html", context)


@ensure_csrf_cookie
@require_GET
def shared(request, token: str):
    """A design shared by secret link, read-only, for anyone holding the link: totals, racks, bill of materials."""
    from planner.models import Design

    design = Design.objects.select_related("owner").filter(share_token=token).first()
    if design is None:
        return render(request, "frontend/shared.html", {"missing": True}, status=404)
    try:
        evaluation = services.design_evaluation(design=design).as_dict()
    except SpecError as exc:  # its parts changed since it was saved (a template deleted or unshared, a refused combination)
        return render(request, "frontend/shared.html", {"design": design, "broken": _flatten_errors(exc.errors)}, status=409)
    reference, relative, reference_error = request.GET.get("ref", "")[:40], None, None
    if reference:
        try:
            ref = services.design_reference_price(reference=reference, user=request.user)
            relative = services.relative_to(
                price_total=evaluation["price"]["total"], currency=evaluation["price"]["currency"], reference=ref
            )
        except SpecError as exc:
            reference_error = " ".join(exc.errors["reference"])
    rack_row_data = rack_row(evaluation["racks"])
    context = {
        "design": design,
        "ev": evaluation,
        "svgs": rack_row_data["front"],
        "rack_row": rack_row_data,
        "token": token,
        "references": reference_choices(request.user),
        "reference_token": reference,
        "relative": relative,
        "reference_error": reference_error,
    }
    return render(request, "frontend/shared.html", context)


def _readable(line: str) -> str:
    """'bricks.0.count: message' as 'bricks › line 1 › count: message'."""
    path, sep, message = line.partition(": ")
    if not sep:
        return line
    parts = [f"line {int(part) + 1}" if part.isdigit() else part for part in path.split(".")]
    return " › ".join(parts) + ": " + message


def _flatten_errors(errors, path: str = "") -> list[str]:
    """Field errors as 'field.path: message' lines for a page."""
    out = []
    if isinstance(errors, dict):
        for key, value in errors.items():
            out += _flatten_errors(value, f"{path}.{key}" if path else str(key))
    elif isinstance(errors, list):
        for i, value in enumerate(errors):
            out += _flatten_errors(value, f"{path}.{i}" if isinstance(value, (dict, list)) else path)
    else:
        out.append(f"{path}: {errors}" if path else str(errors))
    return out


@login_required
@require_http_methods(["GET", "POST"])
def calibrations(request):
    """Your calibrations, and a form to upload obdfilter-survey and IOR output for a new one."""
    from api.views_calibrations import CalibrationUploadSerializer

    errors = {}
    if request.method == "POST":
        data = CalibrationUploadSerializer(data={**request.POST.dict(), **{k: v for k, v in request.FILES.items()}})
        if data.is_valid():
            v = data.validated_data
            try:
                calibration = services.calibration_from_upload(owner=request.user, upload=v)
                return redirect("frontend:calibration", calibration_id=calibration.id)
            except SpecError as exc:
                errors = exc.errors
        else:
            errors = data.errors
    context = {
        "calibrations": services.calibrations_visible_to(request.user),
        "templates": services.brick_templates_visible_to(request.user),
        "errors": errors,
        "form": request.POST,
    }
    return render(request, "frontend/calibrations.html", context, status=400 if errors else 200)


@login_required
@require_GET
def calibration_detail(request, calibration_id: int):
    """One calibration: the parsed table, measured points with the fitted curve, predicted against measured."""
    from django.shortcuts import get_object_or_404

    calibration = get_object_or_404(services.calibrations_visible_to(request.user), pk=calibration_id)
    chart = {op: calibration.fit.get(op) for op in ("read", "write") if calibration.fit.get(op)}
    rows = []
    for row in (calibration.parsed.get("obdfilter") or {}).get("obdfilter", []):
        shown = {}
        for op in ("write", "rewrite", "read"):
            result = row["results"].get(op) or {}
            shown[op] = result.get("mibps") if result.get("mibps") is not None else (result.get("flag") or "–")
        rows.append({**row, "shown": shown})
    # designs to show the calibration's effect on: the user's own saved designs and the examples
    from planner.models import Design

    effect_choices = [
        {"name": f"{d.name} (saved design)", "spec": d.spec} for d in Design.objects.filter(owner=request.user).order_by("-updated_at")[:20]
    ] + [{"name": e["name"], "spec": e["spec"]} for e in services.example_designs()]
    context = {
        "c": calibration,
        "chart": chart,
        "rows": rows,
        "ior": (calibration.parsed.get("ior") or {}).get("ior", []),
        "effect_choices": effect_choices,
    }
    return render(request, "frontend/calibration.html", context)


def _link_rows(answer: dict) -> None:
    """Each answer's spec as a designer link (results, frontier and the best reachable designs)."""
    for row in answer["results"] + answer["frontier"] + answer.get("frontier_line", []):
        row["link"] = spec_to_query(row["spec"])
    for u in answer["unmet"]:
        if u.get("design"):
            u["design"]["link"] = spec_to_query(u["design"]["spec"])


@require_GET
def solve_page(request):
    """Design to target: a targets form, the ranked answers (open any in the designer) and the frontier chart."""
    from api.views_solve import SolveRequestSerializer

    templates = services.brick_templates_visible_to(request.user)
    disks = cat.Disk.objects.order_by("capacity_tb", "slug")
    q = request.GET
    answer, errors, job = None, {}, None
    if q.get("job"):
        import uuid

        from planner.models import SolveJob

        try:
            job = SolveJob.objects.filter(pk=uuid.UUID(q["job"])).first()
        except ValueError:
            job = None
        if job is None:
            errors = {"job": ["no such search (it may have been cleaned up): run it again"]}
        elif job.status == SolveJob.Status.DONE:
            answer, job = job.result, None
            _link_rows(answer)
        elif job.status == SolveJob.Status.FAILED:
            errors, job = {"search": [job.error]}, None
    elif q.get("run"):

        def num(name):
            return float(q[name]) if q.get(name, "").strip() else None

        try:
            targets = {k: num(k) for k in ("usable_pib", "read_gbps", "write_gbps", "budget", "max_loss_probability")}
            if q.get("max_racks", "").strip():
                targets["max_racks"] = int(q["max_racks"])
            demand = {k: num(k) for k in ("job_slots", "mb_per_s_per_job", "current_pib", "annual_growth", "years") if num(k) is not None}
            if "job_slots" in demand:
                demand["job_slots"] = int(demand["job_slots"])
        except ValueError:
            errors = {"targets": ["numbers only, please"]}
        if not errors:
            payload = {
                "targets": {k: v for k, v in targets.items() if v is not None},
                "templates": q.getlist("templates"),
                "disks": q.getlist("disks"),
                "metadata": {"placement": q.get("placement", "in_rack")},
                "tuning": q.get("tuning", "large-io"),
                **({"failover": q["failover"]} if q.get("failover") else {}),  # by default each brick's own (automatic)
                "max_bricks": int(q.get("max_bricks") or 100),
            }
            if q.getlist("expansions"):
                payload["expansions"] = [int(x) for x in q.getlist("expansions") if x.isdigit()]
            if demand:
                payload["demand"] = demand
            data = SolveRequestSerializer(data=payload)
            if data.is_valid():
                try:
                    answer, job = services.solve_request(request=data.validated_data, user=request.user)
                    if job is not None:
                        return redirect(f"{request.path}?job={job.id}")
                    _link_rows(answer)
                except SpecError as exc:
                    errors = exc.errors
            else:
                errors = data.errors
    # each field's messages as one line of text (nested bodies, e.g. a brick line's, flattened)
    errors = {field: " ".join(solve_messages(msgs)) for field, msgs in errors.items()}
    context = {
        "templates": templates,
        "disks": disks,
        "tunings": cat.TuningProfile.objects.order_by("slug"),
        "spec_defaults": SPEC_DEFAULTS,
        "q": q,
        # a search that ran shows what it searched (none ticked: every template, each its own disk);
        # a fresh page suggests the study's bricks
        "chosen_templates": q.getlist("templates") if q.get("run") else ["md3460-performance", "md3460-capacity"],
        "chosen_disks": q.getlist("disks") if q.get("run") else ["nl-sas-4tb"],
        "chosen_exp": q.getlist("expansions"),
        "answer": answer,
        "errors": errors,
    }
    return render(request, "frontend/solve.html", context, status=400 if errors else 200)
