from django.apps import AppConfig


class HardwareCatalogConfig(AppConfig):
    """The catalogue app: models, admin, selectors and the fixture loader."""

    default_auto_field = "django.db.models.BigAutoField"
    name = "hardware_catalog"
    verbose_name = "Hardware catalogue"
