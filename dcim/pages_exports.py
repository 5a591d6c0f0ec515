"""Page "Export for DCIM (zip)" (/dcim/export/?design=<id>): choose a saved design and the export's
options (site or location, tenant, name prefix), see what the zip will hold (racks, devices, cables,
notes), and download it. The options are checked by the API's own serializer; the zip is the one
GET /api/v1/dcim/exports/<id>/ answers."""

from django.contrib.auth.decorators import login_required
from django.shortcuts import render
from django.urls import path

from planner import services
from planner.spec import SpecError

from .api_exports import ExportOptionsSerializer, zip_response
from .export import DEFAULT_SITE, export_filename, export_zip
from .inventory import inventory_for_design


def _messages(errors) -> list[str]:
    """SpecError messages, flattened to 'field: message' lines."""
    out = []

    def walk(node, path):
        if isinstance(node, dict):
            for key, value in node.items():
                walk(value, [*path, str(key)])
        elif isinstance(node, list):
            for i, value in enumerate(node):
                walk(value, path + ([str(i)] if isinstance(value, dict) else []))
        else:
            out.append(f"{'.'.join(path)}: {node}" if path else str(node))

    walk(errors, [])
    return out


@login_required
def export_for_dcim(request):
    """The page; `?design=<id>` chooses one of the designs the user can read, `download=1` answers the zip."""
    designs = list(services.designs_visible_to(request.user).order_by("-updated_at")[:200])
    wanted = request.GET.get("design", "")
    chosen = next((d for d in designs if wanted.isdigit() and d.pk == int(wanted)), None)
    form = ExportOptionsSerializer(data=request.GET)
    valid = form.is_valid()
    context = {
        "designs": designs,
        "chosen": chosen,
        "asked_for_missing": bool(wanted) and chosen is None,
        "errors": {} if valid else {k: [str(m) for m in v] for k, v in form.errors.items()},
        "site": request.GET.get("site", DEFAULT_SITE),
        "tenant": request.GET.get("tenant", ""),
        "prefix": request.GET.get("prefix", ""),
        "default_site": DEFAULT_SITE,
    }
    if chosen is not None and valid:
        options = form.options()
        try:
            inv = inventory_for_design(chosen, prefix=options.prefix)
        except SpecError as exc:
            context["spec_errors"] = _messages(exc.errors)
        else:
            if request.GET.get("download") == "1":
                return zip_response(export_filename(inv), export_zip(inv, options))
            context["inventory"] = inv
            context["filename"] = export_filename(inv)
            context["cable_kinds"] = sorted({c.kind for c in inv.cables})
            context["cable_counts"] = [(k, sum(1 for c in inv.cables if c.kind == k)) for k in context["cable_kinds"]]
    status = 400 if context["errors"] else 200
    return render(request, "dcim/export.html", context, status=status)


urlpatterns = [path("dcim/export/", export_for_dcim, name="dcim-export")]
