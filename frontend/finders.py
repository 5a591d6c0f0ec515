"""A static-files finder that serves plotly.js from the installed plotly package (no CDN)."""

from pathlib import Path

import plotly
from django.contrib.staticfiles.finders import BaseFinder
from django.core.files.storage import FileSystemStorage

PLOTLY_DIR = Path(plotly.__file__).resolve().parent / "package_data"
PLOTLY_JS = "plotly/plotly.min.js"


class PlotlyFinder(BaseFinder):
    """Finds `plotly/plotly.min.js` (only that file) in the plotly Python package."""

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self.storage = FileSystemStorage(location=str(PLOTLY_DIR))
        self.storage.prefix = "plotly"

    def check(self, **kwargs):
        return []

    def find(self, path, find_all=False, **kwargs):
        if path == PLOTLY_JS and (PLOTLY_DIR / "plotly.min.js").exists():
            match = str(PLOTLY_DIR / "plotly.min.js")
            return [match] if find_all else match
        return [] if find_all else None

    def list(self, ignore_patterns):
        yield "plotly.min.js", self.storage
