"""API routes under /api/v1/dcim/: device-type imports, design exports, connections and pushes.

While the three parts are being built side by side each lives in its own module; a part whose module
is not there yet adds no route."""

from importlib import import_module

urlpatterns: list = []
for _part in ("api_imports", "api_exports", "api_push"):
    try:
        urlpatterns += import_module(f"dcim.{_part}").urlpatterns
    except ModuleNotFoundError as exc:
        if exc.name != f"dcim.{_part}":
            raise
