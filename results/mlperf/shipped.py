"""The published results shipped with InferLedger: a gzipped JSON file of tree.Record rows.

Built by ``manage.py import_mlperf --build-shipped`` from the result trees in the shared data (see
docs/published-results.md) and loaded by ``manage.py load_published_results`` (``make run``), which
stores them exactly as importing the trees would (same run ids, so either way each result is stored once).
"""

from __future__ import annotations

import gzip
import json
from dataclasses import fields
from pathlib import Path

from .tree import Record

SHIPPED_RESULTS = Path(__file__).resolve().parent.parent / "data" / "mlperf_published.json.gz"
FORMAT = "inferledger.published-results/1"
_FIELDS = [f.name for f in fields(Record)]


def write(records: list[Record], sources: list[dict], path: Path = SHIPPED_RESULTS) -> None:
    """Rows sorted by provenance; gzip without a timestamp, so the same trees give the same bytes."""
    rows = sorted((r.as_dict() for r in records), key=lambda r: (r["round"], r["source_path"]))
    document = {"format": FORMAT, "sources": sources, "count": len(rows), "fields": _FIELDS, "rows": rows}
    text = json.dumps(document, sort_keys=True, separators=(",", ":"), ensure_ascii=False)
    path.parent.mkdir(parents=True, exist_ok=True)
    with open(path, "wb") as raw, gzip.GzipFile(fileobj=raw, mode="wb", mtime=0, compresslevel=9) as handle:
        handle.write(text.encode("utf-8"))


def read(path: Path = SHIPPED_RESULTS) -> tuple[list[Record], list[dict]]:
    with gzip.open(path, "rt", encoding="utf-8") as handle:
        document = json.load(handle)
    if document.get("format") != FORMAT:
        raise ValueError(f"{path}: not a {FORMAT} file")
    return [Record(**{k: row[k] for k in _FIELDS if k in row}) for row in document["rows"]], document["sources"]
