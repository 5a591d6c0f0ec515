"""API v1 URLs (see README and /api/docs/). The trailing slash is optional, so scripts that
POST to `/api/v1/evaluate` are served, not redirected; unknown API paths answer JSON 404."""

from django.urls import include, path, re_path
from rest_framework.routers import SimpleRouter

from . import views, views_calibrations, views_designs, views_exports, views_migration, views_plans, views_solve, views_templates

router = SimpleRouter()
router.trailing_slash = "/?"  # optional trailing slash (regex paths)
for kind, viewset in views.CATALOGUE_VIEWSETS.items():
    router.register(f"catalogue/{kind}", viewset, basename=f"catalogue-{kind}")
router.register("brick-templates", views_templates.BrickTemplateViewSet, basename="brick-template")
router.register("designs", views_designs.DesignViewSet, basename="design")
router.register("tokens", views_designs.ApiTokenViewSet, basename="token")
router.register("calibrations", views_calibrations.CalibrationViewSet, basename="calibration")
router.register("plans", views_plans.PlanViewSet, basename="plan")

urlpatterns = [
    re_path(r"^health/?$", views.HealthView.as_view(), name="health"),
    re_path(r"^evaluate/?$", views.EvaluateView.as_view(), name="evaluate"),
    re_path(r"^compare/?$", views_designs.CompareView.as_view(), name="compare"),
    re_path(r"^migration/?$", views_migration.MigrationView.as_view(), name="migration"),
    re_path(r"^solve/?$", views_solve.SolveView.as_view(), name="solve"),
    re_path(
        r"^solve/jobs/(?P<pk>[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12})/?$",
        views_solve.SolveJobView.as_view(),
        name="solve-job",
    ),
    re_path(r"^shared/(?P<token>[A-Za-z0-9_-]+)/?$", views_designs.SharedDesignView.as_view(), name="shared-design"),
    re_path(r"^shared/(?P<token>[A-Za-z0-9_-]+)/exports/?$", views_exports.SharedExportsView.as_view(), name="shared-exports"),
    re_path(
        r"^shared/(?P<token>[A-Za-z0-9_-]+)/exports/(?P<pk>[0-9]+)/?$", views_exports.SharedExportDetailView.as_view(), name="shared-export"
    ),
    re_path(
        r"^shared/(?P<token>[A-Za-z0-9_-]+)/exports/(?P<pk>[0-9]+)/download/?$",
        views_exports.SharedExportDownloadView.as_view(),
        name="shared-export-download",
    ),
    re_path(r"^designs/(?P<pk>[0-9]+)/exports/?$", views_exports.DesignExportsView.as_view(), name="design-exports"),
    re_path(r"^exports/(?P<pk>[0-9]+)/?$", views_exports.ExportDetailView.as_view(), name="export-detail"),
    re_path(r"^exports/(?P<pk>[0-9]+)/download/?$", views_exports.ExportDownloadView.as_view(), name="export-download"),
    path("dcim/", include("dcim.urls")),
    path("", include(router.urls)),
    re_path(r"^[\s\S]*$", views.api_not_found, name="api-not-found"),  # any path, newlines included
]
