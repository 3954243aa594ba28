"""Store published results (tree.Record lists) as external runs, exactly once; report what could not be.

Each result becomes a BenchmarkRun (origin external; workload = the registry's id for the benchmark;
scenario = the scenario folder's, 'interactive' kept apart from 'server'), one OperatingPoint with the
per-accelerator figures (system figure / accelerators), and a PublishedResult with the provenance
and the system figure as published. Run ids are uuid5 over (round, division, submitter, system,
benchmark, scenario), so the same result from a tree or from the shipped file is stored once.
A result that cannot be stored is counted under its reason; nothing is half-written.
"""

from __future__ import annotations

import hashlib
import json
import re
import uuid
from collections import Counter
from dataclasses import dataclass, field
from datetime import UTC, datetime

from django.db import transaction

import workloads
from hardware_catalog.models import Accelerator
from results.models import BenchmarkRun, OperatingPoint, PublishedResult, RunOrigin
from results.signals import published_stored

from . import metrics
from .accelerators import CatalogPart, Matcher, split_mixed
from .tree import Record

RUN_NAMESPACE = uuid.UUID("6f1c0b7e-5a53-4d0e-9a51-6d4c3b1e7f20")
# Publication dates of MLPerf Inference rounds (MLCommons' announcements); --published for others.
ROUND_PUBLISHED = {"v4.0": "2024-03-27", "v4.1": "2024-08-28", "v5.0": "2025-04-02", "v5.1": "2025-09-09"}
# The system description fields kept with each run (the rest stays in the published tree).
SYSTEM_FIELDS = (
    "system_name", "system_type", "status", "number_of_nodes", "accelerators_per_node", "accelerator_model_name",
    "accelerator_memory_capacity", "host_processor_model_name", "host_processors_per_node", "framework",
)  # fmt: skip
_NO_ACCELERATOR = {"", "n/a", "na", "none", "-", "0"}


@dataclass
class ImportReport:
    imported: int = 0
    already_imported: int = 0
    skipped: Counter = field(default_factory=Counter)  # reason -> count
    example: dict = field(default_factory=dict)  # reason -> first path

    def skip(self, reason: str, where: str) -> None:
        self.skipped[reason] += 1
        self.example.setdefault(reason, where)

    @property
    def skipped_count(self) -> int:
        return sum(self.skipped.values())


def published_at(round_name: str, override: datetime | None = None) -> datetime:
    if override is not None:
        return override
    if round_name not in ROUND_PUBLISHED:
        raise ValueError(f"no publication date known for round {round_name!r}: give --published YYYY-MM-DD")
    day = datetime.fromisoformat(ROUND_PUBLISHED[round_name])
    return day.replace(tzinfo=UTC)


def run_id_for(record: Record) -> uuid.UUID:
    key = "/".join((record.round, record.division, record.submitter, record.system, record.benchmark, record.scenario))
    return uuid.uuid5(RUN_NAMESPACE, key)


def _int(value, default=0) -> int:
    try:
        return int(float(str(value).strip()))
    except (TypeError, ValueError):
        return default


def _memory_gb(text) -> float | None:
    match = re.match(r"\s*(\d+(?:\.\d+)?)\s*(t|g)?", str(text or ""), re.IGNORECASE)
    if not match:
        return None
    return float(match.group(1)) * (1024 if (match.group(2) or "").lower() == "t" else 1)


@dataclass
class _Hardware:
    accelerator: Accelerator | None
    name: str
    count: int
    variant: str = ""
    problem: str = ""


class _Resolver:
    """Accelerator per system description, matched once per distinct description."""

    def __init__(self):
        self._accelerators = {a.pk: a for a in Accelerator.objects.all()}
        self._matcher = Matcher(
            [
                CatalogPart(a.pk, f"{a.vendor} {a.model}", a.memory_gib, a.kind)
                for a in self._accelerators.values()
                if a.priced_as_id is None  # a registered local CPU is not a published part
            ]
        )
        self._cache: dict[str, _Hardware] = {}

    def resolve(self, system: dict) -> _Hardware:
        key = json.dumps([system.get(f) for f in SYSTEM_FIELDS], default=str)
        if key not in self._cache:
            self._cache[key] = self._resolve(system)
        return self._cache[key]

    def _resolve(self, system: dict) -> _Hardware:
        nodes = max(_int(system.get("number_of_nodes"), 1), 1)
        name = str(system.get("accelerator_model_name") or "").strip()
        per_node = _int(system.get("accelerators_per_node"))
        if per_node == 0 or name.lower() in _NO_ACCELERATOR:
            host = str(system.get("host_processor_model_name") or "").strip()
            count = max(_int(system.get("host_processors_per_node"), 1), 1) * nodes
            return self._match(host, count, kind="cpu", what="CPU-only system, host processor")
        entries = split_mixed(name)
        if len(entries) > 1:
            matches = {
                self._match(entry, 0, kind="accelerator", what="accelerator").accelerator for entry, _ in entries
            }
            if len(matches) != 1 or None in matches:
                parts = ", ".join(entry for entry, _ in entries)
                return _Hardware(None, name, 0, problem=f"mixed-accelerator system ({parts}): no single part")
        hint = _memory_gb(system.get("accelerator_memory_capacity"))
        return self._match(entries[0][0], per_node * nodes, kind="accelerator", what="accelerator", hint=hint)

    def _match(self, name, count, *, kind, what, hint=None) -> _Hardware:
        found = self._matcher.match(name, memory_hint_gb=hint, kind="cpu" if kind == "cpu" else None)
        if found.part is None:
            return _Hardware(None, name, count, problem=f"{what} '{name}': {found.problem}")
        return _Hardware(self._accelerators[found.part.key], name, count, variant="; ".join(found.variants))


def _float(figures: dict, *keys) -> float | None:
    for key in keys:
        try:
            value = float(figures[key])
        except (KeyError, TypeError, ValueError):
            continue
        if value == value:  # not NaN
            return value
    return None


def _ms(ns: float | None) -> float | None:
    return None if ns is None else ns / 1e6


def _system_samples_per_s(record: Record, scenario: str | None) -> float | None:
    """Samples/s of the run LoadGen made: its throughput key, or for latency runs queries/s x samples/query."""
    f = record.figures
    if scenario in (metrics.OFFLINE, metrics.SERVER, metrics.INTERACTIVE) and not record.inferred_from:
        keys = ("result_samples_per_second", "result_completed_samples_per_sec", "result_scheduled_samples_per_sec")
        return _float(f, *keys)
    per_query = _float(f, "effective_samples_per_query") or 1
    queries_per_s = _float(f, "result_qps_without_loadgen_overhead")
    mean_latency_ns = _float(f, "result_mean_latency_ns")
    if queries_per_s is None and mean_latency_ns:
        queries_per_s = 1e9 / mean_latency_ns
    return queries_per_s * per_query if queries_per_s else None


def _point(run: BenchmarkRun, record: Record, count: int) -> OperatingPoint | None:
    f, scenario = record.figures, metrics.scenario_from_folder(record.scenario)
    figure = float(record.value)
    samples = _system_samples_per_s(record, scenario)
    if record.unit == "samples/s":
        samples = figure
    tokens = figure if record.unit == "tokens/s" else None
    throughput = (samples or tokens or 0) / count
    if throughput <= 0:
        return None
    latency = {p: _float(f, f"result_{p}.00_percentile_latency_ns") for p in ("50", "90", "99")}
    headline = figure if record.unit == "ns" else None
    p50 = latency["50"] or latency["90"] or headline or _float(f, "result_mean_latency_ns")
    p99 = latency["99"] or headline or latency["90"] or _float(f, "result_max_latency_ns")
    if p50 is None or p99 is None:
        return None
    return OperatingPoint(
        run=run, index=0, batch_size=1, throughput_per_s=throughput,
        throughput_unit="samples" if samples else "output_tokens",
        output_tokens_per_s=tokens / count if tokens else None,
        latency_min_ms=_ms(_float(f, "result_min_latency_ns")),
        latency_mean_ms=_ms(_float(f, "result_mean_latency_ns")),
        latency_p50_ms=p50 / 1e6, latency_p90_ms=_ms(latency["90"]), latency_p99_ms=p99 / 1e6,
        latency_max_ms=_ms(_float(f, "result_max_latency_ns")), query_count=_int(f.get("result_query_count")) or None,
        ttft_p50_ms=_ms(_float(f, "result_first_token_50.00_percentile_latency_ns")),
        ttft_p99_ms=_ms(_float(f, "result_first_token_99.00_percentile_latency_ns")),
        tpot_p50_ms=_ms(_float(f, "result_time_per_output_token_50.00_percentile_ns")),
        tpot_p99_ms=_ms(_float(f, "result_time_per_output_token_99.00_percentile_ns")),
        loadgen_valid=True, loadgen_reasons=[],
        details={
            "published_metric": record.metric, "published_value": record.value, "published_unit": record.unit,
            "accelerators": count, "per_accelerator": "system figure / accelerators",
            "system_samples_per_second": samples, "system_tokens_per_second": tokens,
            "latency_bound_ns": _float(f, "effective_target_latency_ns") if scenario != metrics.OFFLINE else None,
            "ttft_bound_ns": _float(f, "requested_server_ttft_latency"),
            "tpot_bound_ns": _float(f, "requested_server_tpot_latency"),
        },
    )  # fmt: skip


def _run_scenario(folder: str, variant: str) -> str:
    """'interactive' for an Interactive folder and for a Server run of an '-interactive' benchmark (v5.0 naming)."""
    if folder == metrics.SERVER and variant == "interactive":
        return metrics.RUN_SCENARIOS[metrics.INTERACTIVE]
    return metrics.RUN_SCENARIOS[folder]


def _settings(record: Record, variant: str) -> dict:
    """The run's LoadGen bounds (ns) under the keys the rest of InferLedger reads, and the benchmark variant."""
    settings: dict[str, str | int] = {"variant": variant or ""}
    for key, source in (
        ("target_latency_ns", "effective_target_latency_ns"),
        ("server_ttft_latency", "requested_server_ttft_latency"),
        ("server_tpot_latency", "requested_server_tpot_latency"),
    ):
        value = _float(record.figures, source)
        if value:
            settings[key] = int(value)
    return settings


def _backend(framework: str) -> str:
    text = framework.lower()
    if "tensorrt" in text:
        return "tensorrt"
    words = re.findall(r"[a-z][a-z0-9_.+-]*", text)
    return words[0][:32] if words else "unspecified"


def import_records(records: list[Record], *, published: datetime | None = None) -> ImportReport:
    """Store every storable record not stored yet; count the rest by reason. One transaction."""
    report, resolver = ImportReport(), _Resolver()
    ids = {run_id_for(record) for record in records}
    stored = set(BenchmarkRun.objects.filter(pk__in=ids).values_list("pk", flat=True))
    runs, points, results = [], [], []
    for record in records:
        reason, built = _build(record, resolver, stored, published)
        if reason == "already imported":
            report.already_imported += 1
        elif reason:
            report.skip(reason, record.source_path or f"{record.submitter}/{record.system}")
        else:
            stored.add(built[0].pk)
            runs.append(built[0])
            points.append(built[1])
            results.append(built[2])
    with transaction.atomic():
        BenchmarkRun.objects.bulk_create(runs, batch_size=500)
        OperatingPoint.objects.bulk_create(points, batch_size=500)
        PublishedResult.objects.bulk_create(results, batch_size=500)
    report.imported = len(runs)
    if runs:  # bulk inserts send no post_save: what listens (accounting's cost snapshots) hears it once
        published_stored.send(sender=BenchmarkRun, run_ids=[run.pk for run in runs])
    return report


def _build(record: Record, resolver: _Resolver, stored: set, published: datetime | None):
    run_id = run_id_for(record)
    if run_id in stored:
        return "already imported", None
    if record.problem:
        return record.problem, None
    if not record.valid:
        return "result is not VALID", None
    try:
        benchmark = workloads.published_benchmark(record.mapped_benchmark or record.benchmark)
    except workloads.UnknownWorkload:
        return f"benchmark '{record.mapped_benchmark or record.benchmark}' maps to no registered workload", None
    system = record.system_description
    if system.get("_problem"):
        return system["_problem"], None
    hardware = resolver.resolve(system)
    if hardware.problem:
        return hardware.problem, None
    if hardware.count < 1:
        return "the system description gives no accelerator count", None
    at = published_at(record.round, published)
    folder = metrics.scenario_from_folder(record.scenario)
    if folder is None:
        return f"scenario folder '{record.scenario}' is no MLPerf scenario", None
    environment = {key: system.get(key) for key in SYSTEM_FIELDS if key in system}
    payload = record.as_dict()
    digest = hashlib.sha256(json.dumps(payload, sort_keys=True).encode()).hexdigest()
    run = BenchmarkRun(
        id=run_id, origin=RunOrigin.EXTERNAL,
        external_source=f"MLPerf {record.round}, {record.submitter}, {record.system}"[:255],
        accelerator=hardware.accelerator, accelerator_count=hardware.count,
        device_name=hardware.name[:255], workload_name=benchmark.workload.id,
        model_class=benchmark.workload.model_class, size="published", scenario=_run_scenario(folder, benchmark.variant),
        backend=_backend(str(system.get("framework") or "")), precision="unspecified",
        started_at=at, finished_at=at, loadgen_valid=True, accuracy_passed=None,
        environment=environment, settings=_settings(record, benchmark.variant), payload=payload,
        payload_sha256=digest,
    )  # fmt: skip
    point = _point(run, record, hardware.count)
    if point is None:
        return "the log has no throughput or latency to derive a per-accelerator figure from", None
    result = PublishedResult(
        run=run, round=record.round, division=record.division, submitter=record.submitter, system=record.system,
        system_name=str(system.get("system_name") or "")[:255], system_type=str(system.get("system_type") or "")[:32],
        benchmark=record.benchmark, scenario=record.scenario, metric=record.metric, value=record.value,
        unit=record.unit, inferred_from=record.inferred_from, accelerator_name=hardware.name[:255],
        accelerator_variant=hardware.variant[:255], accelerators_per_system=hardware.count,
        source_path=record.source_path,
    )  # fmt: skip
    return "", (run, point, result)
