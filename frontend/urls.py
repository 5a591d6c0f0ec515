from django.urls import path

from . import designer, plans, views

app_name = "frontend"
urlpatterns = [
    path("", views.home, name="home"),
    path("catalogue/", views.catalogue, name="catalogue"),
    path("designer/", designer.designer, name="designer"),
    path("designer/evaluate/", designer.designer_evaluate, name="designer-evaluate"),
    path("designs/", designer.designs_list, name="designs"),
    path("compare/", designer.compare, name="compare"),
    path("solve/", designer.solve_page, name="solve"),
    path("shared/<str:token>/", designer.shared, name="shared"),
    path("calibrations/", designer.calibrations, name="calibrations"),
    path("calibrations/<int:calibration_id>/", designer.calibration_detail, name="calibration"),
    path("plans/", plans.plans_list, name="plans"),
    path("plans/<int:plan_id>/", plans.plan_detail, name="plan"),
    path("tokens/", views.tokens, name="tokens"),
    path("tokens/<int:token_id>/revoke/", views.token_revoke, name="token-revoke"),
]
