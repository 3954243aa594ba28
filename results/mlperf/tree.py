"""Read an MLCommons result tree into plain records, one per published result (Django-free).

Layout (the submission rules' own, any depth above it):
``<division>/<submitter>/systems/<system>.json`` and
``<division>/<submitter>/results/<system>/<benchmark>/<scenario>/performance/run_1/mlperf_log_{detail,summary}.txt``
(or, for a run measured with MLCommons' endpoints harness, ``result_summary.json``: see endpoints_summary).
Folder names are kept as published (``system`` is the system's folder name). A record carries its
provenance (round, division, submitter, system, path, metric key) and everything the store needs,
so a record list can be shipped as data and loaded without the trees.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field, fields
from pathlib import Path

from . import metrics
from .endpoints_summary import RESULT_SUMMARY, EndpointsSummaryError, read_endpoints_summary

DETAIL, SUMMARY = "mlperf_log_detail.txt", "mlperf_log_summary.txt"
DIVISIONS = ("closed", "open", "network")
_KEY_PREFIX = ':::MLLOG {"key": "'
_WANTED_PREFIXES = ("result_", "early_stopping_latency", "effective_", "requested_server_")
_MLLOG = re.compile(r'^:::MLLOG \{"key": "([^"]+)", "value": (.*?), "time_ms"')
# Keys the importer needs besides the published figure.
_WANTED = re.compile(
    r"^(result_.*|early_stopping_latency_.*|effective_scenario|effective_target_latency_ns|"
    r"effective_samples_per_query|requested_server_(ttft|tpot)_latency)$"
)
# What the store uses besides the figure (kept in records, so the shipped file stays small).
_KEPT = re.compile(
    r"^(result_(samples_per_second|completed_samples_per_sec|scheduled_samples_per_sec|.*tokens_per_second|"
    r"qps_without_loadgen_overhead|query_count|(min|max|mean)_latency_ns|(50|90|99)\.00_percentile_latency_ns|"
    r"first_token_(50|99)\.00_percentile_latency_ns|time_per_output_token_(50|99)\.00_percentile_ns)|"
    r"effective_target_latency_ns|effective_samples_per_query|requested_server_(ttft|tpot)_latency)$"
)
# LoadGen's summary labels of latency percentiles -> the detail log's keys for them. LLM runs log TTFT and
# TPOT percentiles too; the submission checker's LLM check reads the 99th of both from the detail log
# (result_first_token_99.00_percentile_latency_ns, result_time_per_output_token_99.00_percentile_ns), so a
# result published with only a summary log keeps them under the same keys.
_SUMMARY_PERCENTILES = (
    (re.compile(r"^(\d+\.\d+) percentile latency \(ns\)$"), "result_{}_percentile_latency_ns"),
    (re.compile(r"^(\d+\.\d+) percentile first token latency \(ns\)$"), "result_first_token_{}_percentile_latency_ns"),
    (
        re.compile(r"^(\d+\.\d+) percentile time to output token \(ns\)$"),
        "result_time_per_output_token_{}_percentile_ns",
    ),
)
_SUMMARY_LINE = re.compile(r"^\s*([^:]+?)\s*:\s*(.+?)\s*$")
_ROUND_IN_PATH = re.compile(r"v(\d+\.\d+)")


@dataclass
class Record:
    """One published result; ``value`` is the published system figure exactly as logged."""

    round: str
    division: str
    submitter: str
    system: str
    benchmark: str
    scenario: str  # the scenario folder as published ('Offline', 'offline', 'Interactive' ...)
    mapped_benchmark: str = ""  # the official benchmark an open-division folder name maps to (model_mapping.json)
    metric: str = ""
    value: str = ""
    unit: str = ""
    inferred_from: str = ""
    source_path: str = ""  # the log the figure was read from, relative to the tree root
    valid: bool = True
    system_description: dict = field(default_factory=dict)
    figures: dict = field(default_factory=dict)  # other log keys (latencies, samples/s, bounds), as text
    problem: str = ""  # why it cannot be read, when it cannot
    availability: str = ""  # available, preview or rdi (the system description's status, lower-case)
    published_on: str = ""  # the round's publication date (ISO), where the data or the importer states it
    table_value: str = ""  # MLCommons' results table's figure for this result, as published
    table_unit: str = ""  # ... and its unit ('Tokens/s', 'Latency (ms)')

    def as_dict(self) -> dict:
        return {name: getattr(self, name) for name in _RECORD_FIELDS}


_RECORD_FIELDS = tuple(f.name for f in fields(Record))


def round_from_path(path: Path) -> str | None:
    """'v5.1' from '.../inference_results_v5.1/...' or '.../v5.1', else None."""
    for part in reversed(Path(path).resolve().parts[-3:]):
        match = _ROUND_IN_PATH.search(part)
        if match:
            return f"v{match.group(1)}"
    return None


def read_detail(path: Path) -> dict:
    """The wanted keys of a detail log, each value as the text LoadGen wrote (strings unquoted)."""
    values = {}
    start = len(_KEY_PREFIX)
    with open(path, encoding="utf-8", errors="replace") as handle:
        for line in handle:
            if not line.startswith(_KEY_PREFIX):
                continue
            key = line[start : line.find('"', start)]
            if not key.startswith(_WANTED_PREFIXES) or not _WANTED.match(key):
                continue
            match = _MLLOG.match(line)
            if match:
                text = match.group(2)
                values[key] = json.loads(text) if text.startswith('"') else text
    return values


def read_summary(path: Path) -> dict:
    """A summary log as detail-log keys (metrics.SUMMARY_LABELS), values as written."""
    labels: dict[str, str] = {}
    for line in Path(path).read_text(encoding="utf-8", errors="replace").splitlines():
        text = line.strip().lstrip("*").strip()
        match = _SUMMARY_LINE.match(text)
        if match:
            labels.setdefault(match.group(1), match.group(2))
    values = {}
    for key, options in metrics.SUMMARY_LABELS.items():
        found = next((labels[label] for label in options if label in labels), None)
        if found is not None:
            values[key] = found
    if "Scenario" in labels:
        values["effective_scenario"] = labels["Scenario"]
    if "Result is" in labels:
        values["result_validity"] = labels["Result is"]
    for label, text in labels.items():
        for pattern, key in _SUMMARY_PERCENTILES:
            pct = pattern.match(label)
            if pct:
                values.setdefault(key.format(pct.group(1)), text)
                break
        else:
            if label in ("Min latency (ns)", "Max latency (ns)", "Mean latency (ns)"):
                values.setdefault(f"result_{label.split()[0].lower()}_latency_ns", text)
    return values


def _systems(submitter_dir: Path) -> dict[str, dict]:
    systems = {}
    for path in sorted((submitter_dir / "systems").glob("*.json")):
        try:
            systems[path.stem] = json.loads(path.read_text(encoding="utf-8"))
        except (OSError, ValueError) as exc:
            systems[path.stem] = {"_problem": f"unreadable system description {path.name}: {exc}"}
    return systems


def _model_mapping(submitter_dir: Path) -> dict:
    """Open-division submitters name their models freely and map them to the official benchmark in
    ``<division>/<submitter>/model_mapping.json`` (as the submission checker reads it)."""
    path = submitter_dir / "model_mapping.json"
    try:
        mapping = json.loads(path.read_text(encoding="utf-8")) if path.is_file() else {}
    except (OSError, ValueError):
        return {}
    return mapping if isinstance(mapping, dict) else {}


def _submitter_dirs(root: Path):
    """(division dir, submitter dir) below root (root may hold the tree, a division or be a submitter)."""
    root = Path(root)
    if (root / "results").is_dir():
        yield root.parent, root
        return
    near = [root, *root.glob("*"), *root.glob("*/*"), *root.glob("*/*/*")]  # a division is near the root
    for division_dir in sorted(p for p in near if p.name.lower() in DIVISIONS and p.is_dir()):
        for submitter_dir in sorted(p for p in division_dir.iterdir() if (p / "results").is_dir()):
            yield division_dir, submitter_dir


def read_tree(root: Path, *, round_name: str) -> list[Record]:
    """Every performance run of the tree as a Record (unreadable ones with ``problem`` set)."""
    records = []
    for division_dir, submitter_dir in _submitter_dirs(root):
        systems = _systems(submitter_dir)
        mapping = _model_mapping(submitter_dir)
        for run_dir in sorted(submitter_dir.glob("results/*/*/*/performance/run_1")):
            scenario_dir = run_dir.parent.parent
            benchmark_dir = scenario_dir.parent
            system = benchmark_dir.parent.name
            record = Record(
                round=round_name, division=division_dir.name.lower(), submitter=submitter_dir.name, system=system,
                benchmark=benchmark_dir.name, scenario=scenario_dir.name,
                mapped_benchmark=str(mapping.get(benchmark_dir.name) or ""),
                system_description=systems.get(system, {"_problem": f"no systems/{system}.json"}),
            )  # fmt: skip
            record.availability = str(record.system_description.get("status") or "").strip().lower()
            _read_run(record, run_dir, division_dir.parent)  # paths as in the published repository
            records.append(record)
    return records


def _read_run(record: Record, run_dir: Path, base: Path) -> None:
    detail, summary, endpoints = run_dir / DETAIL, run_dir / SUMMARY, run_dir / RESULT_SUMMARY
    log = detail if detail.is_file() else summary
    if not log.is_file() and endpoints.is_file():
        _read_endpoints_run(record, endpoints, base)
        return
    record.source_path = str(log.relative_to(base))
    if not log.is_file():
        record.problem = f"no {DETAIL}, {SUMMARY} or {RESULT_SUMMARY}"
        return
    values = read_detail(log) if log.name == DETAIL else read_summary(log)
    record.valid = str(values.get("result_validity", "")).upper() == "VALID"
    folder = metrics.scenario_from_folder(record.scenario)
    ran = metrics.scenario_from_folder(str(values.get("effective_scenario") or record.scenario))
    if folder is None or ran is None:
        record.problem = f"unknown scenario '{record.scenario}'"
        return
    if _set_figure(record, folder, ran, values):
        record.figures = {key: str(value) for key, value in values.items() if _KEPT.match(key)}


def _read_endpoints_run(record: Record, path: Path, base: Path) -> None:
    """A run of the endpoints harness: its file states no scenario of its own, so the folder's is the run's."""
    record.source_path = str(path.relative_to(base))
    folder = metrics.scenario_from_folder(record.scenario)
    if folder is None:
        record.problem = f"unknown scenario '{record.scenario}'"
        return
    try:
        values = read_endpoints_summary(path, scenario=folder)
    except EndpointsSummaryError as exc:
        record.problem = str(exc)
        return
    # Published in the results tree and complete by its own account; the file states no VALID/INVALID, which
    # figures['result_validity'] says rather than a verdict invented here.
    record.valid = True
    if _set_figure(record, folder, folder, values):
        record.figures = dict(values)


def _set_figure(record: Record, folder: str, ran: str, values: dict) -> bool:
    try:
        figure = metrics.published_figure(
            round_name=record.round, folder_scenario=folder, effective_scenario=ran, values=values
        )
    except metrics.MetricError as exc:
        record.problem = str(exc)
        return False
    record.metric, record.value, record.unit, record.inferred_from = (
        figure.metric, figure.value, figure.unit, figure.inferred_from,
    )  # fmt: skip
    return True
