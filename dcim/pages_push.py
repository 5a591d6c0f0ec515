"""Page "Send to DCIM" (/dcim/send/?design=<id>): pick or add a connection, dry run, push, follow the
progress and read the per-object report. The page is a shell; dcim/static/dcim/push.js does the work
through the public API (/api/v1/dcim/), as the other pages do."""

from django.contrib.auth.decorators import login_required
from django.shortcuts import render
from django.urls import path

from planner import services

from .models import DcimConnection, DcimPush


@login_required
def send_to_dcim(request):
    """The page; `?design=<id>` chooses one of the designs the user can read."""
    designs = list(services.designs_visible_to(request.user).order_by("-updated_at")[:200])
    chosen = None
    wanted = request.GET.get("design", "")
    if wanted.isdigit():
        chosen = next((d for d in designs if d.pk == int(wanted)), None)
    context = {
        "designs": designs,
        "chosen": chosen,
        "asked_for_missing": bool(wanted) and chosen is None,
        "connections": DcimConnection.objects.filter(owner=request.user).order_by("name"),
        "recent": DcimPush.objects.filter(owner=request.user).select_related("design", "connection")[:10],
        "kinds": DcimConnection.Kind.choices,
    }
    return render(request, "dcim/push.html", context)


urlpatterns = [path("dcim/send/", send_to_dcim, name="dcim-push")]
