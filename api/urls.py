"""API v1 URLs (see README and /api/docs/)."""
from django.urls import include, path
from rest_framework.routers import SimpleRouter

from . import views, views_designs

router = SimpleRouter()
for kind, viewset in views.CATALOGUE_VIEWSETS.items():
    router.register(f"catalogue/{kind}", viewset, basename=f"catalogue-{kind}")
router.register("designs", views_designs.DesignViewSet, basename="design")
router.register("tokens", views_designs.ApiTokenViewSet, basename="token")

urlpatterns = [
    path("health/", views.HealthView.as_view(), name="health"),
    path("evaluate/", views.EvaluateView.as_view(), name="evaluate"),
    path("compare/", views_designs.CompareView.as_view(), name="compare"),
    path("shared/<str:token>/", views_designs.SharedDesignView.as_view(), name="shared-design"),
    path("", include(router.urls)),
]
