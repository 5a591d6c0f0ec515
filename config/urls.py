"""Top-level URLs: the admin, the REST API under /api/, and the browser pages."""

from django.contrib import admin
from django.contrib.auth import views as auth_views
from django.urls import include, path, re_path
from drf_spectacular.views import SpectacularAPIView, SpectacularSwaggerSplitView

from frontend.login import limit_failed_logins, login_view
from planner.metrics import metrics_view

urlpatterns = [
    path("admin/login/", limit_failed_logins(admin.site.login)),  # failed sign-ins limited per username and address
    path("admin/", admin.site.urls),
    path("accounts/login/", login_view, name="login"),  # the same limit
    path("accounts/logout/", auth_views.LogoutView.as_view(), name="logout"),
    path("api/schema/", SpectacularAPIView.as_view(), name="api-schema"),
    # the split view serves Swagger UI's start-up script as a file (?script), so the CSP needs no inline script
    path("api/docs/", SpectacularSwaggerSplitView.as_view(url_name="api-schema"), name="api-docs"),
    path("api/v1/", include("api.urls")),
    re_path(r"^metrics/?$", metrics_view, name="metrics"),  # Prometheus (planner/metrics.py)
    path("", include("dcim.page_urls")),
    path("", include("frontend.urls")),
]

# Django's own error answers: JSON under /api/ (one error body for the API), the usual pages elsewhere.
handler400 = "api.errors.bad_request"
handler403 = "api.errors.permission_denied"
handler404 = "api.errors.page_not_found"
handler500 = "api.errors.server_error"
