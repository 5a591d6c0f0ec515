"""Plan pages: the list of plans and the plan editor with its timeline. The editor reads and writes the plan
through the public API (/api/v1/plans/); these views only hand the page its initial data."""

from django.contrib.auth.decorators import login_required
from django.shortcuts import get_object_or_404, redirect, render
from django.views.decorators.http import require_http_methods

from api.serializers_plans import PlanSerializer
from planner import services
from planner.services import plans as plan_services


def _starter_body() -> dict:
    """A new plan: 1 PiB this year, doubling in two years (+41.4 %/yr), no phases yet."""
    return {
        "start_year": plan_services.this_year(),
        "demand": {"usable_pib": 1.0, "growth_per_year": 0.4142},
        "phases": [],
        "settings": {"horizon_years": 6},
    }


@login_required
@require_http_methods(["GET", "POST"])
def plans_list(request):
    """Your plans and those shared with you; a form to start a new one."""
    if request.method == "POST":
        name = (request.POST.get("name") or "").strip()[:200] or "Untitled plan"
        plan = plan_services.plan_create(owner=request.user, name=name, body=_starter_body())
        return redirect("frontend:plan", plan_id=plan.pk)
    plans = plan_services.plans_visible_to(request.user).select_related("owner")
    return render(request, "frontend/plans.html", {"plans": plans})


@login_required
def plan_detail(request, plan_id: int):
    """The plan editor: demand, phases choosing saved designs, settings; the timeline charts and tables."""
    plan = get_object_or_404(plan_services.plans_visible_to(request.user).select_related("owner"), pk=plan_id)
    designs = [{"id": d.id, "name": d.name} for d in services.designs_visible_to(request.user).order_by("name")]
    context = {
        "plan": plan,
        "initial": {
            "plan": PlanSerializer(plan, context={"request": request}).data,
            "designs": designs,
            "defaults": plan_services.SETTINGS_DEFAULTS,
            "sources": plan_services.SETTINGS_SOURCES,
        },
    }
    return render(request, "frontend/plan.html", context)
