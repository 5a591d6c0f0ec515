"""Browser pages. Figures come from services and selectors; templates only lay them out."""
from django.shortcuts import render

from hardware_catalog import selectors
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
        "racks": selectors.catalogue_queryset("racks"),
        "tuning_profiles": selectors.catalogue_queryset("tuning-profiles"),
        "metadata_cells": selectors.catalogue_queryset("metadata-cells"),
        "price_lists": selectors.catalogue_queryset("price-lists"),
    }
    return render(request, "frontend/catalogue.html", context)
