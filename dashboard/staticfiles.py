"""A staticfiles finder for the plotly.js bundle inside the installed plotly package.

The figures are built by plotly.py, so the matching plotly.js is the one it ships: serving that file
(as `plotly/plotly.min.js`) keeps the dashboard working on an air-gapped network, with no CDN and no
copy of a 4 MB file in the repository. Only that one file is exposed, not the package's other data.
"""

from pathlib import Path

import plotly
from django.contrib.staticfiles.finders import BaseFinder
from django.core.checks import Error
from django.core.files.storage import FileSystemStorage

PLOTLY_DIR = Path(plotly.__file__).resolve().parent / "package_data"
PREFIX, FILENAME = "plotly", "plotly.min.js"
STATIC_PATH = f"{PREFIX}/{FILENAME}"


class PlotlyJsFinder(BaseFinder):
    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self.storage = FileSystemStorage(location=PLOTLY_DIR)
        self.storage.prefix = PREFIX  # collectstatic copies it to STATIC_ROOT/plotly/plotly.min.js

    def check(self, **kwargs):
        if not (PLOTLY_DIR / FILENAME).is_file():
            return [Error(f"plotly.js not found at {PLOTLY_DIR / FILENAME}: reinstall plotly", id="dashboard.E001")]
        return []

    def find(self, path, find_all=False, **kwargs):
        if path != STATIC_PATH:
            return [] if (find_all or kwargs.get("all")) else None
        found = str(PLOTLY_DIR / FILENAME)
        return [found] if (find_all or kwargs.get("all")) else found

    def list(self, ignore_patterns):
        yield FILENAME, self.storage
