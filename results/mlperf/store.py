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
from results.models import BenchmarkRun, HeldPublishedResult, HeldReason, OperatingPoint, PublishedResult, RunOrigin
from results.signals import published_stored
from workloads import mlperf_conf

from . import metrics
from .accelerators import CatalogPart, Matcher, parse_name, split_mixed
from .tree import Record

RUN_NAMESPACE = uuid.UUID("6f1c0b7e-5a53-4d0e-9a51-6d4c3b1e7f20")
# Publication dates of MLPerf Inference rounds known here (MLCommons' announcements). Not a list of rounds the
# importer accepts: a round's date is also read from its data (a results table's date field) or given once
# (--published ROUND=YYYY-MM-DD); v6.0 was released on 2026-04-01 (MLCommons' v6.0 announcement).
ROUND_PUBLISHED = {
    "v4.0": "2024-03-27", "v4.1": "2024-08-28", "v5.0": "2025-04-02", "v5.1": "2025-09-09", "v6.0": "2026-04-01",
}  # fmt: skip
# The system description fields kept with each run (the rest stays in the published tree).
SYSTEM_FIELDS = (
    "system_name", "system_type", "status", "number_of_nodes", "accelerators_per_node", "accelerator_model_name",
    "accelerator_memory_capacity", "host_processor_model_name", "host_processors_per_node", "framework",
    "weight_data_types",
)  # fmt: skip
_NO_ACCELERATOR = {"", "n/a", "na", "none", "-", "0"}


@dataclass
class ImportReport:
    imported: int = 0
    already_imported: int = 0
    skipped: Counter = field(default_factory=Counter)  # reason -> count
    example: dict = field(default_factory=dict)  # reason -> first path

    held: Counter = field(default_factory=Counter)  # HeldReason -> count (stored, not ranked)
    undeclared: int = 0  # stored under a benchmark name the registry does not declare

    def hold(self, kind: str, where: str) -> None:
        self.held[kind] += 1
        self.example.setdefault(kind, where)

    def skip(self, reason: str, where: str) -> None:
        self.skipped[reason] += 1
        self.example.setdefault(reason, where)

    @property
    def skipped_count(self) -> int:
        return sum(self.skipped.values())


class MissingPublicationDate(ValueError):
    """Rounds whose publication date is neither known, nor in their data, nor given; the message names them all."""

    def __init__(self, rounds: list[str]):
        self.rounds = rounds
        example = " ".join(f"--published {name}=YYYY-MM-DD" for name in rounds)
        super().__init__(
            f"no publication date known for round(s) {', '.join(rounds)} (neither known here nor in the data): "
            f"give it once, e.g. {example}"
        )


def published_at(record: Record, override: dict[str, datetime] | None = None) -> datetime:
    """The round's publication date: given for the round, else the record's own (from its data), else known."""
    if override and record.round in override:
        return override[record.round]
    text = record.published_on or ROUND_PUBLISHED.get(record.round)
    if not text:
        raise MissingPublicationDate([record.round])
    return datetime.fromisoformat(text).replace(tzinfo=UTC)


def _dated(records: list[Record], published: dict[str, datetime] | None) -> None:
    """Every record dated (its ``published_on`` set, so a held record keeps its date), or one error naming every
    round without a date, before anything is stored."""
    missing = set()
    for record in records:
        try:
            record.published_on = published_at(record, published).date().isoformat()
        except MissingPublicationDate:
            missing.add(record.round)
    if missing:
        raise MissingPublicationDate(sorted(missing))


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
    parts: list[str] = field(default_factory=list)  # every part the system names, as published
    held: str = ""  # a HeldReason when the result is stored but not ranked


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
            matches = [self._match(entry, 0, kind="accelerator", what="accelerator") for entry, _ in entries]
            found = {match.accelerator for match in matches}
            same_name = len({parse_name(entry).model_words for entry, _ in entries}) == 1
            if len(found) > 1 or (None in found and not same_name):
                parts = [entry for entry, _ in entries]
                counted = sum(count or 0 for _, count in entries)
                return _Hardware(
                    None, name, counted or per_node * nodes, parts=parts, held=HeldReason.MIXED_PARTS,
                    problem=f"a system of several different parts ({', '.join(parts)}): every part named; "
                    "never ranked per accelerator (its figure is the whole system's)",
                )  # fmt: skip
        hint = _memory_gb(system.get("accelerator_memory_capacity"))
        return self._match(entries[0][0], per_node * nodes, kind="accelerator", what="accelerator", hint=hint)

    def _match(self, name, count, *, kind, what, hint=None) -> _Hardware:
        found = self._matcher.match(name, memory_hint_gb=hint, kind="cpu" if kind == "cpu" else None)
        if found.part is None:
            return _Hardware(
                None, name, count, parts=[name], held=HeldReason.NO_CATALOG_ENTRY,
                problem=f"no catalog entry: {what} '{name}' ({found.problem}); ranked once the catalog has the part",
            )  # fmt: skip
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


# What a results-table row's point states as its latency where the table publishes none (it has no percentiles).
_BOUND_MET = (
    "the benchmark's Server p99 bound (mlperf.conf), which a VALID result met; the results table has no percentiles"
)
_NOT_PUBLISHED = (
    "not published (the results table has no percentiles): stated as LoadGen's minimum run duration "
    "(mlperf.conf min_duration), so that the point meets no latency bound"
)


def _unpublished_latency_ns(workload, scenario: str | None) -> tuple[float | None, str]:
    """A latency for a point whose source publishes none, and what it is: the bound a VALID result met where the
    scenario has one, else a figure no latency bound accepts."""
    if scenario in (metrics.SERVER, metrics.INTERACTIVE) and workload.standard_slas_ms[0] is not None:
        return float(workload.standard_slas_ms[0]) * 1e6, _BOUND_MET
    conf_scenario = metrics.SERVER if scenario == metrics.INTERACTIVE else scenario  # LoadGen runs it as Server
    minimum_ms = mlperf_conf.value("*", conf_scenario or "*", "min_duration")
    return (float(minimum_ms) * 1e6 if minimum_ms else None), _NOT_PUBLISHED


def _point(run: BenchmarkRun, record: Record, count: int, workload) -> OperatingPoint | None:
    f, scenario = record.figures, metrics.scenario_from_folder(record.scenario)
    try:
        figure, unit = metrics.figure_of(
            value=record.value,
            unit=record.unit,
            metric=record.metric,
            benchmark=record.mapped_benchmark or record.benchmark,
        )
    except (ValueError, metrics.MetricError):
        return None
    samples = _system_samples_per_s(record, scenario)
    if unit == "samples/s":
        samples = figure
    tokens = figure if unit == "tokens/s" else None
    if samples is None and unit == "ns" and not f and figure > 0:
        # A table's latency figure: queries one after another, of one sample (SingleStream) or 8 (MultiStream).
        per_query = metrics.MULTI_STREAM_SAMPLES_PER_QUERY if scenario == metrics.MULTI_STREAM else 1
        samples = per_query * 1e9 / figure
    throughput = (samples or tokens or 0) / count
    if throughput <= 0:
        return None
    latency = {p: _float(f, f"result_{p}.00_percentile_latency_ns") for p in ("50", "90", "99")}
    headline = figure if unit == "ns" else None
    p50 = latency["50"] or latency["90"] or headline or _float(f, "result_mean_latency_ns")
    p99 = latency["99"] or headline or latency["90"] or _float(f, "result_max_latency_ns")
    latency_basis = "the run's log"
    if p50 is None and p99 is None and not f:
        p50, latency_basis = _unpublished_latency_ns(workload, scenario)
        p99 = p50
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
            "latency_basis": latency_basis,
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


def import_records(records: list[Record], *, published: dict[str, datetime] | None = None) -> ImportReport:
    """Store every storable record not stored yet: as a run, or held with its reason (an accelerator the catalog
    does not know yet, a system of several parts); count what cannot be stored by reason. One transaction.
    `published` gives rounds' publication dates (round -> date) where neither the data nor ROUND_PUBLISHED does."""
    _dated(records, published)
    report, resolver = ImportReport(), _Resolver()
    ids = {run_id_for(record) for record in records}
    stored = set(BenchmarkRun.objects.filter(pk__in=ids).values_list("pk", flat=True))
    already_held = set(HeldPublishedResult.objects.filter(pk__in=ids).values_list("pk", flat=True))
    runs, points, results, held = [], [], [], []
    for record in records:
        reason, built = _build(record, resolver, stored)
        if reason == "already imported":
            report.already_imported += 1
        elif isinstance(built, HeldPublishedResult):
            if built.pk in already_held:
                report.already_imported += 1
            else:
                held.append(built)
                report.hold(built.reason_kind, record.source_path or f"{record.submitter}/{record.system}")
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
        HeldPublishedResult.objects.bulk_create(held, batch_size=500)
        # A held result stored as a run now (its part entered the catalog): no longer held.
        HeldPublishedResult.objects.filter(pk__in=[run.pk for run in runs]).delete()
    report.imported = len(runs)
    report.undeclared = sum(1 for run in runs if run.model_class == workloads.UNDECLARED)
    if runs:  # bulk inserts send no post_save: what listens (accounting's cost snapshots) hears it once
        published_stored.send(sender=BenchmarkRun, run_ids=[run.pk for run in runs])
    return report


def _build(record: Record, resolver: _Resolver, stored: set):
    run_id = run_id_for(record)
    if run_id in stored:
        return "already imported", None
    if record.problem:
        return record.problem, None
    if not record.valid:
        return "result is not VALID", None
    name = record.mapped_benchmark or record.benchmark
    folder = metrics.scenario_from_folder(record.scenario)
    if folder is None:
        return f"scenario folder '{record.scenario}' is no MLPerf scenario", None
    try:
        figure_unit = metrics.standard_figure(record.value, record.unit)[1]
    except (ValueError, metrics.MetricError) as exc:
        return f"the published figure '{record.value} {record.unit}' is unreadable: {exc}", None
    try:
        benchmark = workloads.published_benchmark(name)
        workload, variant = benchmark.workload, benchmark.variant
    except workloads.UnknownWorkload:  # open world: stored under its MLPerf name, ranked only against itself
        unit = workloads.Unit.OUTPUT_TOKENS if figure_unit == "tokens/s" else workloads.Unit.SAMPLES
        workload = workloads.undeclared_workload(workloads.undeclared_id(name)[:64], unit=unit)
        variant = "interactive" if "-interactive" in workloads.normalise_benchmark_name(name) else ""
    system = record.system_description
    if system.get("_problem"):
        return system["_problem"], None
    hardware = resolver.resolve(system)
    if hardware.held:
        return hardware.problem, _held(record, run_id, hardware)
    if hardware.problem:
        return hardware.problem, None
    if hardware.count < 1:
        return "the system description gives no accelerator count", None
    at = published_at(record)
    environment = {key: system.get(key) for key in SYSTEM_FIELDS if key in system}
    payload = record.as_dict()
    digest = hashlib.sha256(json.dumps(payload, sort_keys=True).encode()).hexdigest()
    run = BenchmarkRun(
        id=run_id, origin=RunOrigin.EXTERNAL,
        external_source=f"MLPerf {record.round}, {record.submitter}, {record.system}"[:255],
        accelerator=hardware.accelerator, accelerator_count=hardware.count,
        device_name=hardware.name[:255], workload_name=workload.id,
        model_class=workload.model_class, size="published", scenario=_run_scenario(folder, variant),
        backend=_backend(str(system.get("framework") or "")), precision="unspecified",
        started_at=at, finished_at=at, loadgen_valid=True, accuracy_passed=None,
        environment=environment, settings=_settings(record, variant), payload=payload,
        payload_sha256=digest,
    )  # fmt: skip
    point = _point(run, record, hardware.count, workload)
    if point is None:
        return "the log has no throughput or latency to derive a per-accelerator figure from", None
    result = PublishedResult(
        run=run, round=record.round, division=record.division, submitter=record.submitter, system=record.system,
        system_name=str(system.get("system_name") or "")[:255], system_type=str(system.get("system_type") or "")[:32],
        benchmark=record.benchmark, scenario=record.scenario, metric=record.metric, value=record.value,
        unit=record.unit, inferred_from=record.inferred_from, accelerator_name=hardware.name[:255],
        accelerator_variant=hardware.variant[:255], accelerators_per_system=hardware.count,
        source_path=record.source_path, availability=record.availability[:16], table_value=record.table_value[:40],
        table_unit=record.table_unit[:32],
    )  # fmt: skip
    return "", (run, point, result)


def _held(record: Record, run_id: uuid.UUID, hardware: _Hardware) -> HeldPublishedResult:
    system = record.system_description
    return HeldPublishedResult(
        run_id=run_id, round=record.round, division=record.division, submitter=record.submitter,
        system=record.system, system_name=str(system.get("system_name") or "")[:255], benchmark=record.benchmark,
        scenario=record.scenario, metric=record.metric, value=record.value, unit=record.unit,
        accelerator_names=hardware.parts, accelerators_per_system=hardware.count or None,
        availability=record.availability[:16], reason_kind=hardware.held, reason=hardware.problem,
        source_path=record.source_path[:512], record=record.as_dict(),
    )  # fmt: skip
