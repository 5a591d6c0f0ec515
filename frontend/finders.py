"""A static-files finder that serves the vendored partial plotly.js bundle (no CDN).

The bundle lives in frontend/vendor/plotly/ beside its lockfile, licence and checksum (see the
README there); only the JavaScript file itself is exposed, as `plotly/plotly-basic.min.js`.
"""

from pathlib import Path

from django.contrib.staticfiles.finders import BaseFinder
from django.core.checks import Error
from django.core.files.storage import FileSystemStorage

VENDOR_DIR = Path(__file__).resolve().parent / "vendor" / "plotly"
BUNDLE = "plotly-basic.min.js"
PLOTLY_JS = f"plotly/{BUNDLE}"


class PlotlyFinder(BaseFinder):
    """Finds `plotly/plotly-basic.min.js` (only that file) in frontend/vendor/plotly/."""

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self.storage = FileSystemStorage(location=str(VENDOR_DIR))
        self.storage.prefix = "plotly"

    def check(self, **kwargs):
        if not (VENDOR_DIR / BUNDLE).exists():
            return [Error(f"{VENDOR_DIR / BUNDLE} is missing: run frontend/vendor/plotly/update.sh", id="frontend.E001")]
        return []

    def find(self, path, find_all=False, **kwargs):
        if path == PLOTLY_JS and (VENDOR_DIR / BUNDLE).exists():
            match = str(VENDOR_DIR / BUNDLE)
            return [match] if find_all else match
        return [] if find_all else None

    def list(self, ignore_patterns):
        if (VENDOR_DIR / BUNDLE).exists():
            yield BUNDLE, self.storage
