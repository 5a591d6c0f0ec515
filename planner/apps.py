from django.apps import AppConfig


class PlannerConfig(AppConfig):
    """Designs, the planning services and Celery tasks."""

    default_auto_field = "django.db.models.BigAutoField"
    name = "planner"
