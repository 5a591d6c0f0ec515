from django.apps import AppConfig


class ApiConfig(AppConfig):
    """The REST API (v1): serializers, views, URLs."""

    default_auto_field = "django.db.models.BigAutoField"
    name = "api"
