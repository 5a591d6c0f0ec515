"""Page routes: catalogue "Import device types", designer "Export for DCIM" and "Send to DCIM"."""

from importlib import import_module

urlpatterns: list = []
for _part in ("pages_imports", "pages_exports", "pages_push"):
    try:
        urlpatterns += import_module(f"dcim.{_part}").urlpatterns
    except ModuleNotFoundError as exc:
        if exc.name != f"dcim.{_part}":
            raise
