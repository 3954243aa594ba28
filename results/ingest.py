"""Store a result payload exactly once, or quarantine it with the reason.

The run's UUID is the idempotency key: the same payload delivered twice stores one run; a different
payload under a stored UUID is refused and quarantined (a replay must not rewrite a measurement).
Everything for one run is written in one transaction: no half-written runs.
"""

import hashlib
import json
import uuid
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any

from django.db import IntegrityError, transaction
from django.utils.dateparse import parse_datetime

from hardware_catalog.devices import accelerator_for_device
from hardware_catalog.selectors import accelerator_named
from harness.result import ResultValidationError, validate_result

from .models import BenchmarkRun, OperatingPoint, QuarantinedPayload
from .quarantine import contains_nul, escape_nul, kept_text
from .signals import run_ingested

STORED, DUPLICATE, QUARANTINED = "stored", "duplicate", "quarantined"


@dataclass(frozen=True)
class IngestOutcome:
    status: str  # stored | duplicate | quarantined
    run: BenchmarkRun | None
    reason: str = ""
    quarantine: QuarantinedPayload | None = None


def _canonical(payload: dict) -> str:
    return json.dumps(payload, sort_keys=True, separators=(",", ":"), allow_nan=False)


def _quarantine(
    raw: str, reason: str, source: str, run_id=None, job=None, *, sender_verified: bool = True
) -> IngestOutcome:
    kept = kept_text(raw, sender_verified=sender_verified)
    entry = QuarantinedPayload.objects.create(
        **kept.as_fields(), reason=escape_nul(reason), source=escape_nul(source)[:64], run_id=run_id, job=job
    )
    return IngestOutcome(QUARANTINED, None, reason, entry)


def quarantine_payload(
    payload, *, reason: str, source: str, job=None, link_run: bool = True, sender_verified: bool = True
) -> IngestOutcome:
    """Keep a payload that must not be stored (refused sender, failed ingest), with the reason.

    ``link_run=False`` for a refused sender: its run_id is not trusted to stand for a run (it would count
    as "arrived" for the job that really owns that run id). ``sender_verified=False`` (no valid signature)
    keeps a bounded prefix with the size and digest of the whole (results/quarantine.py).
    """
    if isinstance(payload, bytes | str):
        raw = payload.decode("utf-8", "replace") if isinstance(payload, bytes) else payload
    else:
        try:
            raw = _canonical(payload)
        except (TypeError, ValueError):
            raw = repr(payload)[:1_000_000]
    run_id = _readable_run_id(payload) if link_run and isinstance(payload, dict) else None
    return _quarantine(raw, reason, source, run_id, job, sender_verified=sender_verified)


def _readable_run_id(payload) -> uuid.UUID | None:
    try:
        return uuid.UUID(str(payload.get("run_id")))
    except (AttributeError, ValueError, TypeError):
        return None


def _time(payload: dict, key: str) -> datetime:
    text = payload[key]
    parsed = parse_datetime(text)
    if parsed is None or parsed.tzinfo is None:
        raise ResultValidationError(key, f"'{text}' is not an ISO-8601 date-time with a time zone")
    try:  # stored as UTC: PostgreSQL refuses offsets beyond +-15:59 that Python accepts
        return parsed.astimezone(UTC)
    except OverflowError:
        raise ResultValidationError(key, f"'{text}' is out of range once converted to UTC") from None


def ingest_result(payload: dict | str | bytes, *, source: str, job=None, agent=None) -> IngestOutcome:
    """Validate and store one result payload. Never raises for bad input: bad input is quarantined.

    ``job`` and ``agent`` (from an agent's job) are linked to the stored run and to a quarantine entry.
    """
    document: Any
    if isinstance(payload, bytes | str):
        raw = payload.decode("utf-8", "replace") if isinstance(payload, bytes) else payload
        try:
            document = json.loads(raw)
        except ValueError as exc:
            return _quarantine(raw, f"not valid JSON: {exc}", source, job=job)
    else:
        document = payload
        try:
            raw = _canonical(payload)
        except (TypeError, ValueError) as exc:
            return _quarantine(repr(payload)[:1_000_000], f"not JSON-serialisable: {exc}", source, job=job)
    run_id = _readable_run_id(document) if isinstance(document, dict) else None
    try:
        validate_result(document)  # a valid payload is an object with a run_id
        started_at, finished_at = _time(document, "started_at"), _time(document, "finished_at")
    except ResultValidationError as exc:
        return _quarantine(raw, f"schema: {exc}", source, run_id, job)
    if contains_nul(document):
        return _quarantine(raw, "a string holds a NUL character (\\u0000), which cannot be stored", source, run_id, job)

    run_id = uuid.UUID(document["run_id"])  # the schema requires a UUID
    digest = hashlib.sha256(_canonical(document).encode()).hexdigest()
    existing = BenchmarkRun.objects.filter(pk=run_id).first()
    if existing is not None:
        return _replay_outcome(existing, digest, raw, source, job)
    try:
        with transaction.atomic():
            run = _store(document, run_id, digest, started_at, finished_at, job=job, agent=agent)
            # robust: what listeners do after the commit (pricing) cannot turn a stored run into an error here.
            transaction.on_commit(lambda: run_ingested.send(sender=BenchmarkRun, run=run), robust=True)
    except IntegrityError:
        # Another delivery of the same run committed between our check and our insert.
        existing = BenchmarkRun.objects.filter(pk=run_id).first()
        if existing is None:
            raise
        return _replay_outcome(existing, digest, raw, source, job)
    return IngestOutcome(STORED, run)


def _replay_outcome(existing: BenchmarkRun, digest: str, raw: str, source: str, job=None) -> IngestOutcome:
    if existing.payload_sha256 == digest:
        return IngestOutcome(DUPLICATE, existing, "already stored (same run_id, same payload)")
    if job is not None and existing.job_id == job.pk:
        # A job re-run after a crash measures its items again under the same run ids: keep the first.
        return IngestOutcome(DUPLICATE, existing, f"already stored by an earlier attempt of job {job.pk}")
    return _quarantine(
        raw, f"conflict: run {existing.pk} is already stored with a different payload", source, existing.pk, job
    )


def _store(payload: dict, run_id, digest: str, started_at, finished_at, *, job=None, agent=None) -> BenchmarkRun:
    workload, device, environment = payload["workload"], payload["device"], payload.get("environment") or {}
    accuracy = payload.get("accuracy")
    points = payload["points"]
    accelerator, count, device_name = _hardware(payload, device, environment)
    run = BenchmarkRun.objects.create(
        id=run_id,
        accelerator=accelerator,
        accelerator_count=count,
        device_name=device_name,
        workload_name=workload["id"],  # the registry id: every answer is keyed by it
        model_class=workload["model_class"],
        size=workload.get("size", ""),
        scenario=payload["scenario"],
        backend=payload["backend"],
        precision=payload["precision"],
        parameters=workload.get("parameters"),
        flops_per_inference=workload.get("flops_per_inference"),
        weight_bytes=workload.get("weight_bytes"),
        started_at=started_at,
        finished_at=finished_at,
        loadgen_valid=all(point["loadgen"]["result_valid"] for point in points),
        measurement_valid=not _not_valid_reasons(points),
        not_valid_reasons=_not_valid_reasons(points),
        accuracy_passed=accuracy.get("passed") if accuracy else None,
        accuracy=accuracy,
        environment=environment,
        settings=payload.get("settings") or {},
        telemetry=payload.get("telemetry") or {},
        payload=payload,
        payload_sha256=digest,
        job=job,
        agent=agent,
    )
    OperatingPoint.objects.bulk_create([_point(run, index, point) for index, point in enumerate(points)])
    return run


def _hardware(payload: dict, device: dict, environment: dict):
    """(accelerator, count, device name) a run is priced on: an endpoint's declared hardware (the server's, not the
    measuring agent's host), else the device the harness measured on."""
    declared = (payload.get("endpoint") or {}).get("accelerator")
    if declared:
        count = int(payload["endpoint"].get("accelerator_count") or 1)
        accelerator = accelerator_named(declared) or accelerator_for_device({"type": "cuda", "name": declared}, {})
        return accelerator, count, f"{declared} (declared by the endpoint; measured from {device.get('name', '?')})"
    return accelerator_for_device(device, environment), int(device.get("count") or 1), device.get("name", "")


def _not_valid_reasons(points: list[dict]) -> list[str]:
    """Each point's reasons to be not valid (payloads from before the validity block have none)."""
    return [f"point {index}: {reason}" for index, point in enumerate(points)
            for reason in (point.get("validity") or {}).get("reasons", [])]  # fmt: skip


def _stat(block, key):
    return (block or {}).get(key)


def _point(run: BenchmarkRun, index: int, point: dict) -> OperatingPoint:
    latency, loadgen, llm = point["latency_ms"], point["loadgen"], point.get("llm") or {}
    details = {
        key: point.get(key)
        for key in ("queue_wait_ms", "batch_formation_ms", "compute_ms", "h2d_ms", "d2h_ms", "batch_size_histogram")
        if point.get(key) is not None
    }
    if llm:
        details["llm"] = llm
    endpoint = point.get("endpoint") or {}
    server = endpoint.get("server") or {}
    if endpoint:
        details["endpoint"] = endpoint
    if loadgen.get("early_stopping"):
        details["early_stopping"] = loadgen["early_stopping"]
    for key in ("rounds", "validity"):
        if point.get(key):
            details[key] = point[key]
    interval, validity = point.get("throughput_interval_per_s") or {}, point.get("validity") or {}
    return OperatingPoint(
        run=run,
        index=index,
        batch_size=point["batch_size"],
        concurrency=point.get("concurrency"),
        offered_rate_qps=point.get("offered_rate_qps"),
        throughput_per_s=point["throughput_per_s"],
        throughput_unit=point.get("throughput_unit", "inferences"),
        latency_min_ms=latency.get("min"),
        latency_mean_ms=latency.get("mean"),
        latency_p50_ms=latency["p50"],
        latency_p90_ms=latency.get("p90"),
        latency_p95_ms=latency.get("p95"),
        latency_p99_ms=latency["p99"],
        latency_p99_9_ms=latency.get("p99_9"),
        latency_max_ms=latency.get("max"),
        query_count=point.get("query_count"),
        sample_count=point.get("sample_count"),
        queue_wait_mean_ms=_stat(point.get("queue_wait_ms"), "mean"),
        queue_wait_p99_ms=_stat(point.get("queue_wait_ms"), "p99"),
        batch_formation_mean_ms=_stat(point.get("batch_formation_ms"), "mean"),
        compute_mean_ms=_stat(point.get("compute_ms"), "mean"),
        ttft_p50_ms=_stat(llm.get("ttft_ms"), "p50"),
        ttft_p99_ms=_stat(llm.get("ttft_ms"), "p99"),
        tpot_p50_ms=_stat(llm.get("tpot_ms"), "p50"),
        tpot_p99_ms=_stat(llm.get("tpot_ms"), "p99"),
        output_tokens_per_s=llm.get("output_tokens_per_s"),
        power_w_mean=point.get("power_w_mean"),
        energy_j_per_inference=point.get("energy_j_per_inference"),
        request_errors=endpoint.get("errors"),
        goodput_requests_per_s=endpoint.get("goodput_requests_per_s"),
        goodput_output_tokens_per_s=endpoint.get("goodput_output_tokens_per_s"),
        client_e2e_mean_ms=_stat(endpoint.get("e2e_ms"), "mean"),
        server_queue_mean_ms=server.get("queue_ms_mean"),
        server_compute_mean_ms=server.get("compute_ms_mean"),
        server_e2e_mean_ms=server.get("e2e_ms_mean"),
        transport_mean_ms=endpoint.get("transport_ms_mean"),
        transport_share=endpoint.get("transport_share"),
        throughput_low_per_s=interval.get("low"),
        throughput_high_per_s=interval.get("high"),
        throughput_interval_confidence=interval.get("confidence"),
        measurement_valid=validity.get("valid", True),
        not_valid_reasons=validity.get("reasons", []),
        loadgen_valid=loadgen["result_valid"],
        loadgen_reasons=loadgen.get("reasons") or [],
        details=details,
        loadgen_summary_log=loadgen.get("summary_log") or "",
        loadgen_detail_log=loadgen.get("detail_log") or "",
    )
