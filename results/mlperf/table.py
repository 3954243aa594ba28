"""Read MLCommons' results table of a round (``summary_results.json`` / ``summary.json``) into tree.Records.

MLCommons publishes each round as one table, one row per system x benchmark x scenario, with the official figure
and its unit. Its fields were renamed in v6.1 (``Submitter`` -> ``Organization``, ``Performance_Result`` ->
``Result``, ``Accelerator`` -> ``accelerator_model_name`` ...); a field is read by its meaning, under either name
(compared lower-case without separators), so both layouts and a round that mixes them read the same.

A row's ``Location`` is the result's folder in the round's repository
(``./closed/<submitter>/results/<system>/<benchmark>/<scenario>/performance/run_1``): the folders name the
result exactly as a tree does, so a result in both a tree and the table has one run id (stored once). The figure
is kept as published (``value`` and ``unit`` as in the table); the table carries no latency percentiles.
Django-free.
"""

from __future__ import annotations

import gzip
import json
import lzma
import re
from datetime import date
from pathlib import Path

from .tree import DIVISIONS, Record

# Our name -> the table's names for it (v6.0 and earlier first, then v6.1), compared by _key().
FIELDS = {
    "submitter": ("Submitter", "Organization"),
    "division": ("Category", "Division"),
    "availability": ("Availability",),
    "system_type": ("Suite", "SystemType"),
    "system_name": ("System", "SystemName"),
    "platform": ("Platform",),
    "benchmark": ("Model", "MlperfModel", "UsedModel"),
    "scenario": ("Scenario",),
    "value": ("Performance_Result", "Result"),
    "unit": ("Performance_Units", "Units"),
    "accelerator": ("Accelerator", "accelerator_model_name"),
    "accelerators_per_node": ("a#", "accelerators_per_node"),
    "total_accelerators": ("Total Accelerators", "total_accelerators"),
    "nodes": ("Nodes", "number_of_nodes"),
    "host_processor": ("Processor", "host_processor_model_name"),
    "host_processors_per_node": ("p#", "host_processors_per_node"),
    "framework": ("Software", "framework"),
    "weight_data_types": ("weight_data_types",),
    "location": ("Location",),
    "round": ("version",),
    "id": ("ID",),
}
_LOCATION = re.compile(r"(?:^|/)([^/]+)/([^/]+)/results/([^/]+)/([^/]+)/([^/]+)(?:/|$)")
_DATE_KEY = re.compile(r"date|published")


class TableError(ValueError):
    pass


def _key(name: str) -> str:
    return re.sub(r"[^a-z0-9#]", "", name.lower())


_LOOKUP = {our: tuple(_key(name) for name in names) for our, names in FIELDS.items()}


_OPENERS = {".json": open, ".json.gz": gzip.open, ".json.xz": lzma.open}


def _opener(path: Path):
    name = Path(path).name.lower()
    return next((opener for suffix, opener in _OPENERS.items() if name.endswith(suffix)), None)


def is_table(path: Path) -> bool:
    """A results table: a .json file, or one compressed (.json.gz, .json.xz)."""
    return _opener(path) is not None


def rows_of(document) -> list[dict]:
    """The rows of either layout: a list of rows, or an object of rows keyed by their index."""
    if isinstance(document, list):
        rows = document
    elif isinstance(document, dict):
        rows = document["rows"] if isinstance(document.get("rows"), list) else list(document.values())
    else:
        rows = []
    if not rows or not all(isinstance(row, dict) for row in rows):
        raise TableError("not an MLPerf results table: expected a list (or an object) of rows")
    return rows


def _field(row: dict, keyed: dict, name: str):
    for key in _LOOKUP[name]:
        if key in keyed and keyed[key] not in (None, ""):
            return row[keyed[key]]
    return None


def _figure_text(value) -> str:
    """The published figure as the table writes it (JSON numbers keep their text: 785522.0 stays '785522.0')."""
    return repr(value) if isinstance(value, float) else str(value)


def _published_on(row: dict) -> str:
    """A publication date the row carries (any date field), else ''."""
    for key, value in row.items():
        if _DATE_KEY.search(key.lower()) and isinstance(value, str):
            try:
                return date.fromisoformat(value.strip()[:10]).isoformat()
            except ValueError:
                continue
    return ""


def read_table(path: Path, *, round_name: str | None = None) -> list[Record]:
    """Every row of the table as a Record (``problem`` set where a row cannot name its result)."""
    path = Path(path)
    try:
        with _opener(path)(path, "rt", encoding="utf-8") as handle:
            rows = rows_of(json.load(handle))
    except (OSError, ValueError) as exc:
        raise TableError(f"{path}: {exc}") from None
    return [_record(row, path.name, round_name) for row in rows]


def _record(row: dict, table_name: str, round_name: str | None) -> Record:
    keyed = {_key(key): key for key in row}

    def get(name):
        return _field(row, keyed, name)

    location = str(get("location") or "")
    folders = _LOCATION.search(location.replace("\\", "/"))
    division, submitter, system, benchmark, scenario = (
        folders.groups() if folders else (get("division"), get("submitter"), get("platform"), get("benchmark"),
                                          get("scenario"))
    )  # fmt: skip
    round_text = str(get("round") or round_name or "")
    availability = str(get("availability") or "").strip().lower()
    record = Record(
        round=round_text if round_text.startswith("v") or not round_text else f"v{round_text}",
        division=str(division or "").lower(), submitter=str(submitter or ""), system=str(system or ""),
        benchmark=str(benchmark or ""), scenario=str(scenario or ""),
        metric=next((keyed[k] for k in _LOOKUP["value"] if k in keyed), "Result"),
        value=_figure_text(get("value")) if get("value") is not None else "", unit=str(get("unit") or ""),
        source_path=f"{table_name}: {location.lstrip('./') or get('id') or ''}",
        system_description={
            "system_name": get("system_name") or "", "system_type": get("system_type") or "",
            "status": availability, "number_of_nodes": get("nodes") or 1,
            "accelerators_per_node": get("accelerators_per_node") or 0,
            "accelerator_model_name": get("accelerator") or "",
            "host_processor_model_name": get("host_processor") or "",
            "host_processors_per_node": get("host_processors_per_node") or 1, "framework": get("framework") or "",
            "weight_data_types": get("weight_data_types") or "",
        },
        published_on=_published_on(row), availability=availability,
    )  # fmt: skip
    record.table_value, record.table_unit = record.value, record.unit
    missing = [name for name in ("round", "division", "submitter", "system", "benchmark", "scenario", "value", "unit")
               if not getattr(record, name)]  # fmt: skip
    if missing:
        record.problem = f"the table row names no {', '.join(missing)}"
    elif record.division not in DIVISIONS:
        record.problem = f"the table row's division '{record.division}' is none of {', '.join(DIVISIONS)}"
    return record
