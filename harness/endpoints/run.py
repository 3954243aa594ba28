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
from .scenarios import ENDPOINT_SCENARIOS
from .sut import EndpointSUT
from .target import Endpoint

ProgressFn = Callable[[dict], None]
logger = logging.getLogger(__name__)


@dataclass(frozen=True)
class EndpointItem:
    endpoint: Endpoint
    scenario: str  # server | concurrency-sweep
    settings: RunSettings = field(default_factory=RunSettings)
    precision: str = "unknown"  # as the user declares what the server runs
    device: str = "cpu"  # the device of this host (where the server runs, in the tests and benchmarks)

    def __post_init__(self):
        if self.scenario not in ENDPOINT_SCENARIOS:
            raise ValueError(f"unknown endpoint scenario {self.scenario!r}; known: {', '.join(ENDPOINT_SCENARIOS)}")

    @property
    def slug(self) -> str:
        return f"endpoint-{self.endpoint.name}_{self.scenario}_{self.endpoint.protocol}"


def run_endpoint_item(item: EndpointItem, out_dir: str | Path, progress: ProgressFn | None = None) -> dict:
    """Measure an endpoint item (all its rounds); its validated payload, also written to ``out_dir``."""
    settings, endpoint = item.settings, item.endpoint
    scenario = ENDPOINT_SCENARIOS[item.scenario](settings)
    log_root = Path(out_dir) / "loadgen" / item.slug
    telemetry, started_at = TelemetrySession(item.device), _now()
    sut = EndpointSUT(endpoint, settings.performance_sample_count)
    measured: dict[int, list] = {}
    try:
        for round_index in range(settings.rounds):
            n = 0
            while n < len(scenario.labels()):  # a sweep adds its next level as it goes
                label = scenario.labels()[n]
                if progress:
                    progress({"workload": endpoint.workload_id, "scenario": item.scenario, "point": label,
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
            "id": endpoint.workload_id,
            "name": endpoint.workload_id,
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
            },  # fmt: skip
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
    text = dumps_result(payload)
    Path(out_dir).mkdir(parents=True, exist_ok=True)
    (Path(out_dir) / f"{item.slug}.json").write_text(text)
    if progress:
        progress({"workload": endpoint.workload_id, "scenario": item.scenario, "point": "done", "fraction": 1.0})
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
            yield Failure(
                item.endpoint.workload_id, item.scenario, item.endpoint.protocol, item.precision, error, trace
            )
