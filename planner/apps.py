from django.apps import AppConfig


class PlannerConfig(AppConfig):
    """Designs, the planning services and Celery tasks."""

    default_auto_field = "django.db.models.BigAutoField"
    name = "planner"

    def ready(self):
        from django.apps import apps
        from django.db.models import signals

        from planner import checks  # noqa: F401  (registers the deployment checks)
        from planner.services.catalogue import catalogue_changed

        # any change to the catalogue app's records invalidates every process's in-memory catalogue
        for model in apps.get_app_config("hardware_catalog").get_models():
            for signal in (signals.post_save, signals.post_delete):
                signal.connect(catalogue_changed, sender=model, dispatch_uid=f"catalogue-{signal}-{model.__name__}")
            for through in (f.remote_field.through for f in model._meta.many_to_many):
                signals.m2m_changed.connect(catalogue_changed, sender=through, dispatch_uid=f"catalogue-m2m-{through.__name__}")
