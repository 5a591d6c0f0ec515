from django.apps import AppConfig


class DcimConfig(AppConfig):
    default_auto_field = "django.db.models.BigAutoField"
    name = "dcim"
    verbose_name = "DCIM import, export and push"
