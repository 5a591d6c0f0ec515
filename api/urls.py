"""API v1 URLs: /api/v1/health/, /api/v1/catalogue/<kind>/[<slug>/], /api/v1/evaluate/."""
from django.urls import include, path
from rest_framework.routers import SimpleRouter

from . import views

router = SimpleRouter()
for kind, viewset in views.CATALOGUE_VIEWSETS.items():
    router.register(f"catalogue/{kind}", viewset, basename=f"catalogue-{kind}")

urlpatterns = [
    path("health/", views.HealthView.as_view(), name="health"),
    path("evaluate/", views.EvaluateView.as_view(), name="evaluate"),
    path("", include(router.urls)),
]
