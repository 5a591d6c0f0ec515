from django.apps import AppConfig


class DcimConfig(AppConfig):
    default_auto_field = "django.db.models.BigAutoField"
    name = "dcim"
    verbose_name = "DCIM import, export and push"

    def ready(self):
        from planner.services.jobs import register_job_model

        # lost pushes re-sent, stuck ones failed, old rows deleted by the same housekeeping as exports
        register_job_model("dcim.DcimPush", "dcim.tasks.push_design")
