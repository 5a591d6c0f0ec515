from django.apps import AppConfig


class FrontendConfig(AppConfig):
    """Browser pages: catalogue, designer (later), compare (later)."""

    default_auto_field = "django.db.models.BigAutoField"
    name = "frontend"
