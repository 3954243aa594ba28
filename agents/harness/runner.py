"""Runs one suite item end to end: build, load, accuracy guard, scenario points, payload."""

from __future__ import annotations

import re
import uuid
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path

import torch

from . import SCHEMA_ID
from .accuracy import check_accuracy
from .backends import check_support, get_backend_class
from .backends.eager import EagerBackend
from .report import point_payload
from .result import dumps_result
from .scenarios import Engine, RunSettings, capacity_qps, run_offline, run_server, run_single_stream
from .telemetry import TelemetrySession, capture_environment, device_info
from .workloads import get_workload

ProgressFn = Callable[[dict], None]


@dataclass(frozen=True)
class Skip:
    """A combination that was not measured, and why (unsupported here, or failed to load)."""

    workload: str
    scenario: str
    backend: str
    precision: str
    reason: str


@dataclass(frozen=True)
class SuiteItem:
    model_class: str
    size: str
    scenario: str
    backend: str
    precision: str
    device: str = "cpu"
    settings: RunSettings = field(default_factory=RunSettings)

    @property
    def slug(self) -> str:
        return f"{self.model_class}-{self.size}_{self.scenario}_{self.backend}_{self.precision}_{self.device}"


def _now() -> str:
    return datetime.now(UTC).isoformat().replace("+00:00", "Z")


def _point_labels(item: SuiteItem) -> list[str]:
    s = item.settings
    if item.scenario == "single-stream":
        return ["batch=1"]
    if item.scenario == "offline":
        return [f"batch={b}" for b in s.offline_batch_sizes]
    if s.server_rates_qps:
        return [f"rate={rate:g}qps" for rate in s.server_rates_qps]
    return [f"load={f:g}" for f in s.server_load_fractions]


def skip_reason(item: SuiteItem) -> str | None:
    ok, reason = check_support(item.backend, item.precision, item.device, item.model_class)
    return None if ok else reason


def run_item(
    item: SuiteItem, out_dir: str | Path, progress: ProgressFn | None = None, index: int = 0, total: int = 1
) -> dict | Skip:
    """Measure one item; returns its validated payload (also written to ``out_dir/<slug>.json``) or a Skip."""
    reason = skip_reason(item)
    workload = get_workload(item.model_class, item.size)
    if reason is not None:
        return Skip(workload.name, item.scenario, item.backend, item.precision, reason)
    previous_threads = torch.get_num_threads()
    torch.set_num_threads(item.settings.resolved_threads())
    try:
        return _measure(item, workload, Path(out_dir), progress, index, total)
    finally:
        torch.set_num_threads(previous_threads)


def _measure(item: SuiteItem, workload, out_dir: Path, progress: ProgressFn | None, index: int, total: int) -> dict:
    settings, started_at = item.settings, _now()
    reference_model = workload.build("cpu")
    params, weight_bytes = workload.parameter_count(reference_model), workload.weight_bytes(reference_model)
    flops = workload.flops_per_inference(reference_model, "cpu")
    backend = get_backend_class(item.backend)(item.precision, item.device)
    backend.load(workload.build("cpu"), workload.example_inputs(2))
    accuracy = None
    if (item.backend, item.precision) != ("eager", "fp32"):
        reference = EagerBackend("fp32", item.device)
        reference.load(reference_model, workload.example_inputs(2))
        accuracy = check_accuracy(workload, reference, backend, item.precision, settings.accuracy_batch_size).to_dict()
    engine = Engine(workload, backend, settings.performance_sample_count, settings.seed)
    telemetry = TelemetrySession(item.device)
    labels, points = _point_labels(item), []
    log_root = out_dir / "loadgen" / item.slug
    for n, label in enumerate(labels):
        if progress:
            progress(
                {
                    "item": index,
                    "items": total,
                    "workload": workload.name,
                    "scenario": item.scenario,
                    "backend": item.backend,
                    "precision": item.precision,
                    "point": label,
                    "fraction": (index + n / len(labels)) / total,
                }
            )
        log_dir = log_root / re.sub(r"[^a-z0-9.]+", "-", label)
        if item.scenario == "single-stream":
            point = run_single_stream(engine, settings, log_dir, telemetry)
        elif item.scenario == "offline":
            point = run_offline(engine, settings, settings.offline_batch_sizes[n], log_dir, telemetry)
        else:
            if settings.server_rates_qps:
                rate_qps = settings.server_rates_qps[n]
            else:
                if n == 0:
                    capacity = capacity_qps(engine, settings, log_root, telemetry)
                rate_qps = settings.server_load_fractions[n] * capacity
            point = run_server(engine, settings, rate_qps, log_dir, telemetry)
        points.append(point_payload(point))
    backend.close()
    payload = {
        "schema": SCHEMA_ID,
        "run_id": str(uuid.uuid4()),
        "started_at": started_at,
        "finished_at": _now(),
        "workload": {
            "name": workload.name,
            "model_class": workload.model_class,
            "size": item.size,
            "parameters": params,
            "flops_per_inference": flops,
            "weight_bytes": weight_bytes,
            "config": workload.config,
        },
        "scenario": item.scenario,
        "backend": item.backend,
        "precision": item.precision,
        "device": device_info(item.device),
        "environment": capture_environment() | {"torch_threads": torch.get_num_threads()},
        "settings": settings.to_dict(),
        "accuracy": accuracy,
        "telemetry": telemetry.summary(),
        "points": points,
    }
    text = dumps_result(payload)
    out_dir.mkdir(parents=True, exist_ok=True)
    (out_dir / f"{item.slug}.json").write_text(text)
    return payload
