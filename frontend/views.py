"""Browser pages. Figures come from services and selectors; templates only lay them out."""

from datetime import UTC, date, datetime, time, timedelta

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.shortcuts import get_object_or_404, redirect, render
from django.views.decorators.http import require_http_methods, require_POST

from hardware_catalog import selectors
from planner import services
from planner.models import ApiToken
from planner.services import brick_template_summaries


def home(request):
    """Landing page: what the planner does and where to go."""
    return render(request, "frontend/home.html")


def catalogue(request):
    """The hardware catalogue: bricks with their key figures, then every kind of part."""
    context = {
        "bricks": brick_template_summaries(),
        "disks": selectors.catalogue_queryset("disks"),
        "servers": selectors.catalogue_queryset("servers"),
        "enclosures": selectors.catalogue_queryset("enclosures"),
        "adapters": selectors.catalogue_queryset("adapters"),
        "switches": selectors.catalogue_queryset("switches"),
        "accessories": selectors.catalogue_queryset("accessories"),
        "racks": selectors.catalogue_queryset("racks"),
        "tuning_profiles": selectors.catalogue_queryset("tuning-profiles"),
        "metadata_cells": services.metadata_cell_summaries(),
        "price_lists": selectors.catalogue_queryset("price-lists"),
    }
    return render(request, "frontend/catalogue.html", context)


@login_required
@require_http_methods(["GET", "POST"])
def tokens(request):
    """API tokens: create one (its key is shown once), see them, revoke them."""
    new_key = None
    if request.method == "POST":
        name = (request.POST.get("name") or "").strip()
        expires_at, expiry_error = _token_expiry(request.POST.get("expires_on"))
        if not name or len(name) > 100:
            messages.error(request, "Give the token a name of 1 to 100 characters, e.g. the script that will use it.")
        elif expiry_error:
            messages.error(request, expiry_error)
        else:
            try:
                token, new_key = services.token_create(user=request.user, name=name, expires_at=expires_at)
            except services.TokenLimit as exc:
                messages.error(request, str(exc))
    context = {"tokens": ApiToken.objects.filter(user=request.user), "new_key": new_key, "tomorrow": _tomorrow_utc()}
    return render(request, "frontend/tokens.html", context, status=201 if new_key else 200)


def _tomorrow_utc() -> date:
    return (datetime.now(UTC) + timedelta(days=1)).date()


def _token_expiry(value: str | None) -> tuple[datetime | None, str | None]:
    """The tokens form's optional expiry date: the token is refused from 00:00 UTC that day."""
    value = (value or "").strip()
    if not value:
        return None, None
    try:
        day = date.fromisoformat(value)
    except ValueError:
        return None, "Give the expiry as a date (YYYY-MM-DD), or leave it empty for a token that does not expire."
    if day < _tomorrow_utc():
        return None, "The expiry date must be after today (the token is refused from 00:00 UTC that day)."
    return datetime.combine(day, time(0, 0), tzinfo=UTC), None


@login_required
@require_POST
def token_revoke(request, token_id: int):
    token = get_object_or_404(ApiToken, pk=token_id, user=request.user)
    services.token_revoke(token=token)
    messages.success(request, f"Token '{token.name}' revoked: scripts using it are refused from now on.")
    return redirect("frontend:tokens")
