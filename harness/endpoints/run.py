"""Run one endpoint item end to end: warm up, measure each point in rounds, build the payload.

The payload is an ``inferledger.result/1`` whose workload is the user-declared ``endpoint:<name>`` (model
class ``endpoint``), whose backend is the protocol, and whose top-level ``endpoint`` block describes the
server without its secret.
"""

from __future__ import annotations

import logging
import re
import traceback
import uuid
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from urllib.parse import urlsplit

from .. import SCHEMA_ID
from ..result import dumps_result
from ..rounds import point_from_rounds
from ..runner import Failure, _now
from ..scenarios.settings import RunSettings
from ..telemetry import TelemetrySession, capture_environment, device_info
from .replay_scenario import TRACE_REPLAY, TraceArrivals
from .scenarios import ENDPOINT_SCENARIOS
from .sut import EndpointSUT
from .target import Endpoint
from .trace import Trace

ProgressFn = Callable[[dict], None]
logger = logging.getLogger(__name__)


TRACE_MODES = ("arrivals", "concurrency")


@dataclass(frozen=True)
class EndpointItem:
    endpoint: Endpoint
    scenario: str  # server | concurrency-sweep | trace-replay
    settings: RunSettings = field(default_factory=RunSettings)
    precision: str = "unknown"  # as the user declares what the server runs
    device: str = "cpu"  # the device of this host (where the server runs, in the tests and benchmarks)
    # A declared trace: replayed at its arrival times (mode "arrivals", scenario trace-replay, scaled by time_scale)
    # or its requests drawn by the concurrency sweep (mode "concurrency"); its runs are the workload trace:<name>.
    trace: Trace | None = None
    trace_mode: str = ""
    time_scale: float = 1.0

    def __post_init__(self):
        if self.scenario not in (*ENDPOINT_SCENARIOS, TRACE_REPLAY):
            known = ", ".join((*ENDPOINT_SCENARIOS, TRACE_REPLAY))
            raise ValueError(f"unknown endpoint scenario {self.scenario!r}; known: {known}")
        if self.trace is None and (self.trace_mode or self.scenario == TRACE_REPLAY):
            raise ValueError("a trace mode or the trace-replay scenario needs a trace")
        if self.trace is not None and self.trace_mode not in TRACE_MODES:
            raise ValueError(f"trace_mode must be one of {', '.join(TRACE_MODES)}, got {self.trace_mode!r}")
        if self.trace is not None and (self.scenario == TRACE_REPLAY) != (self.trace_mode == "arrivals"):
            raise ValueError("a trace is replayed at its arrivals by trace-replay, drawn by concurrency-sweep")

    @property
    def workload_id(self) -> str:
        return self.trace.workload_id if self.trace is not None else self.endpoint.workload_id

    @property
    def slug(self) -> str:
        traced = f"trace-{self.trace.name}_" if self.trace is not None else ""
        return f"endpoint-{self.endpoint.name}_{traced}{self.scenario}_{self.endpoint.protocol}"

    def make_scenario(self):
        if self.scenario == TRACE_REPLAY:
            return TraceArrivals(self.settings, self.trace, self.time_scale)
        return ENDPOINT_SCENARIOS[self.scenario](self.settings)


def trace_block(item: EndpointItem, scenario) -> dict:
    """What a trace run states about its trace: which one (name, format, digest), its length and arrival
    distributions, how it was replayed, and (at its arrivals) how closely the requests kept their schedule."""
    trace = item.trace
    arrivals = item.trace_mode == "arrivals"
    return {
        "name": trace.name,
        "workload_id": trace.workload_id,
        "format": trace.format,
        "sha256": trace.sha256,
        "distributions": trace.distributions(),
        "mode": item.trace_mode,
        "time_scale": item.time_scale if arrivals else None,
        # Text-prompt traces (vllm-custom, ShareGPT) send each prompt as it is; token traces send that many ids.
        "prompts": "text" if any(r.prompt for r in trace.requests) else "token lengths",
        "output_tokens_when_unstated": item.endpoint.output_tokens
        if any(r.output_tokens is None for r in trace.requests)
        else None,
        "send_lag_tolerance_ms": scenario.send_lag_tolerance_ms if arrivals else None,
        "send_lag_ms": scenario.send_lag_ms() if arrivals else None,
    }


def run_endpoint_item(item: EndpointItem, out_dir: str | Path, progress: ProgressFn | None = None) -> dict:
    """Measure an endpoint item (all its rounds); its validated payload, also written to ``out_dir``."""
    settings, endpoint = item.settings, item.endpoint
    scenario = item.make_scenario()
    log_root = Path(out_dir) / "loadgen" / item.slug
    telemetry, started_at = TelemetrySession(item.device), _now()
    sut = EndpointSUT(endpoint, settings.performance_sample_count, trace=item.trace)
    measured: dict[int, list] = {}
    try:
        for round_index in range(settings.rounds):
            n = 0
            while n < len(scenario.labels()):  # a sweep adds its next level as it goes
                label = scenario.labels()[n]
                if progress:
                    progress({"workload": item.workload_id, "scenario": item.scenario, "point": label,
                              "round": round_index + 1, "rounds": settings.rounds,
                              "fraction": min(0.99, (round_index + n / (n + 2)) / settings.rounds)})  # fmt: skip
                log_dir = log_root / re.sub(r"[^a-z0-9.]+", "-", label)
                if settings.rounds > 1:
                    log_dir = log_dir / f"round-{round_index + 1}"
                scenario.calibrate(sut, n, log_dir, log_root, telemetry)
                measured.setdefault(n, []).append(scenario.measure(sut, n, log_dir, telemetry))
                n += 1
    finally:
        sut.close()
    # The server measured is another process: its CPU is the work, not interference.
    points = [point_from_rounds(scenario, measured[n], settings, other_processes_apply=False) for n in sorted(measured)]
    payload = {
        "schema": SCHEMA_ID,
        "run_id": str(uuid.uuid4()),
        "started_at": started_at,
        "finished_at": _now(),
        "workload": {
            "id": item.workload_id,
            "name": item.workload_id,
            "model_class": "endpoint",
            "size": "endpoint",
            "parameters": None,
            "flops_per_inference": None,
            "weight_bytes": None,
            "config": {
                "protocol": endpoint.protocol,
                "model": endpoint.model,
                "prompt_tokens": endpoint.prompt_tokens,
                "output_tokens": endpoint.output_tokens,
            }
            | ({"trace": item.trace.name, "trace_mode": item.trace_mode} if item.trace is not None else {}),
        },
        "scenario": item.scenario,
        "backend": endpoint.protocol,
        "precision": item.precision,
        "device": device_info(item.device),
        "environment": capture_environment() | {"torch_threads": settings.resolved_threads()},
        "settings": settings.to_dict(),
        "accuracy": None,
        "telemetry": telemetry.summary(),
        "points": points,
        "endpoint": endpoint.to_public_dict(),
    }
    if item.trace is not None:
        payload["trace"] = trace_block(item, scenario)
    text = dumps_result(payload)
    Path(out_dir).mkdir(parents=True, exist_ok=True)
    (Path(out_dir) / f"{item.slug}.json").write_text(text)
    if progress:
        progress({"workload": item.workload_id, "scenario": item.scenario, "point": "done", "fraction": 1.0})
    return payload


def scrub(text: str, endpoint: Endpoint) -> str:
    """``text`` with the endpoint's secrets (API key, passwords in its URLs) masked: for errors and logs."""
    secrets = [endpoint.api_key] + [urlsplit(u).password or "" for u in (endpoint.url, endpoint.metrics_url)]
    for secret in filter(None, secrets):
        text = text.replace(secret, "***")
    return text


def run_endpoint_items(
    items: list[EndpointItem], out_dir: str | Path, progress: ProgressFn | None = None
) -> Iterator[dict | Failure]:
    """Each item's payload, or a Failure (error and traceback, secrets masked) when it raised."""
    for index, item in enumerate(items):

        def on_event(event, index=index):
            if progress:
                progress(event | {"item": index, "items": len(items),
                                  "fraction": (index + event.get("fraction", 0.0)) / len(items)})  # fmt: skip

        try:
            yield run_endpoint_item(item, out_dir, on_event)
        except Exception as exc:  # one failing item must not stop the others
            error = scrub(f"{type(exc).__name__}: {exc}", item.endpoint)
            trace = scrub("".join(traceback.format_exception(exc)), item.endpoint)
            logger.error("%s failed: %s", item.slug, error)
            yield Failure(item.workload_id, item.scenario, item.endpoint.protocol, item.precision, error, trace)
