"""Server: LoadGen issues single-sample queries with Poisson arrivals at a target QPS into our
dynamic batcher; latency includes queueing. ``find_peak_qps`` bisects the rate against a p99 target."""

from __future__ import annotations

import time
from dataclasses import dataclass, field
from pathlib import Path

from ..telemetry import TelemetrySession
from .base import Scenario, register
from .batcher import DynamicBatcher, Request
from .engine import Engine
from .loadgen_run import PointResult, Responder, SutRecord, assemble_point, base_settings, raise_sut_failure, run_test
from .offline import _offline_test, calibration_window_s
from .settings import RunSettings


def capacity_qps(engine: Engine, settings: RunSettings, log_dir: Path, telemetry: TelemetrySession) -> float:
    """Queries/s the SUT sustains in the Server scenario: the scale for server load fractions.

    Two pilot runs: Offline at the largest batch (logs in ``log_dir/capacity-pilot``) bounds the compute,
    then Server offered that rate (``log_dir/capacity-server-pilot``), which overloads it whenever
    per-request costs (LoadGen's callback, the batcher's queue, one response per query) matter: the rate
    it completes queries at is the capacity. For a sub-millisecond model the second is far lower (a
    tabular scorer: 78,000 samples/s Offline, under 30,000 queries/s Server on 2 cores), and a load
    fraction of the first would overload the server and measure only its queue.
    """
    pilot = settings.with_(min_duration_ms=max(100, settings.min_duration_ms // 5), min_query_count=1)
    batch = settings.server_max_batch_size
    rate = engine.throughput_per_s(batch, calibration_window_s(settings))
    point = _offline_test(engine, pilot, batch, rate, log_dir / "capacity-pilot", telemetry)
    offline_qps = point.parsed.get("samples_per_second") or rate
    overload = run_server(engine, pilot, offline_qps, log_dir / "capacity-server-pilot", telemetry)
    return min(offline_qps, overload.completed_per_s or offline_qps)


def run_server(
    engine: Engine, settings: RunSettings, target_qps: float, log_dir: Path, telemetry: TelemetrySession
) -> PointResult:
    responder = Responder(engine.workload.output_tokens())
    batcher = DynamicBatcher(
        engine,
        settings.server_max_batch_size,
        settings.server_max_queue_wait_ms,
        on_complete=lambda reqs: responder.complete([r.query_id for r in reqs]),
        on_first_token=(lambda reqs: responder.first_tokens([r.query_id for r in reqs]))
        if engine.is_generative
        else None,
    )
    clock = time.perf_counter_ns

    def issue(ids: list[int], indices: list[int]) -> None:
        for query_id, index in zip(ids, indices, strict=True):
            batcher.submit(Request(query_id, index, clock()))

    sample_count = len(engine.samples)
    lg_settings = base_settings(
        "server", settings.min_duration_ms, settings.min_query_count, sample_count, engine.is_generative
    )
    lg_settings.server_target_qps = float(target_qps)
    lg_settings.server_target_latency_ns = int(settings.server_target_latency_ms * 1e6)
    if engine.is_generative:
        lg_settings.ttft_latency = int(settings.llm_ttft_latency_ms * 1e6)
        lg_settings.tpot_latency = int(settings.llm_tpot_latency_ms * 1e6)
    batcher.start()
    try:
        run = run_test(lg_settings, issue, lambda: None, sample_count, log_dir, telemetry)
    finally:
        batcher.stop()
    raise_sut_failure("server", batcher.error)
    record = SutRecord(batch_sizes=batcher.batch_sizes, samples=len(batcher.completed))
    completed_per_s = None
    if batcher.completed:
        first_arrival_ns = min(r.arrival_ns for r in batcher.completed)
        last_done_ns = max(r.arrival_ns + r.end_to_end_ns for r in batcher.completed)
        completed_per_s = len(batcher.completed) * 1e9 / max(1, last_done_ns - first_arrival_ns)
    for r in batcher.completed:
        record.queue_wait_ns.append(r.queue_wait_ns)
        record.batch_formation_ns.append(r.batch_formation_ns)
        record.compute_ns.append(r.compute_ns)
        record.end_to_end_ns.append(r.end_to_end_ns)
        record.request_batch_sizes.append(r.batch_size)
        if r.h2d_ns is not None:
            record.h2d_ns.append(r.h2d_ns)
            record.d2h_ns.append(r.d2h_ns)
    return assemble_point(
        "server",
        engine,
        run,
        log_dir,
        record,
        batch_size=settings.server_max_batch_size,
        offered_rate_qps=target_qps,
        completed_per_s=completed_per_s,
    )


@register
class Server(Scenario):
    """Poisson arrivals at offered rates (explicit, or fractions of the calibrated capacity) into the dynamic
    batcher: judged by p50 latency."""

    name = "server"

    def __init__(self, settings: RunSettings):
        super().__init__(settings)
        self.capacity_qps: float | None = None
        self.rates_qps: dict[int, float] = {}

    def labels(self) -> list[str]:
        if self.settings.server_rates_qps:
            return [f"rate={rate:g}qps" for rate in self.settings.server_rates_qps]
        return [f"load={f:g}" for f in self.settings.server_load_fractions]

    def calibrate(self, sut: Engine, point: int, log_dir: Path, log_root: Path, telemetry: TelemetrySession) -> None:
        if point in self.rates_qps:
            return
        if self.settings.server_rates_qps:
            self.rates_qps[point] = self.settings.server_rates_qps[point]
            return
        if self.capacity_qps is None:
            self.capacity_qps = capacity_qps(sut, self.settings, log_root, telemetry)
        self.rates_qps[point] = self.settings.server_load_fractions[point] * self.capacity_qps

    def measure(self, sut: Engine, point: int, log_dir: Path, telemetry: TelemetrySession) -> PointResult:
        return run_server(sut, self.settings, self.rates_qps[point], log_dir, telemetry)


@dataclass
class PeakSearch:
    """Outcome of ``find_peak_qps``: the best passing rate and every rate tried with its p99."""

    target_p99_ms: float
    peak_qps: float | None
    tried: list[dict] = field(default_factory=list)
    best: PointResult | None = None


def _meets(point: PointResult, target_p99_ms: float) -> tuple[bool, float]:
    p99_ms = point.parsed["latency_ns"]["p99"] / 1e6
    keeps_up = point.parsed["constraints"].get("performance_constraints", True) is not False
    return p99_ms <= target_p99_ms and keeps_up, p99_ms


def find_peak_qps(
    engine: Engine,
    settings: RunSettings,
    target_p99_ms: float,
    log_dir: Path,
    telemetry: TelemetrySession,
    low_qps: float | None = None,
    high_qps: float | None = None,
    iterations: int = 6,
) -> PeakSearch:
    """Bisection over ``server_target_qps`` with one LoadGen Server run per probe.

    The bracket defaults to [5% of capacity, 120% of capacity]; each probe's logs go to
    ``log_dir/qps-<rate>``. A rate passes when LoadGen's p99 is within the target.
    """
    capacity = capacity_qps(engine, settings, log_dir, telemetry)
    low, high = low_qps or 0.05 * capacity, high_qps or 1.2 * capacity
    search = PeakSearch(target_p99_ms, None)
    settings = settings.with_(server_target_latency_ms=target_p99_ms)
    for _ in range(iterations):
        rate = (low + high) / 2 if search.tried else low
        point = run_server(engine, settings, rate, log_dir / f"qps-{rate:.1f}", telemetry)
        ok, p99_ms = _meets(point, target_p99_ms)
        search.tried.append({"qps": rate, "p99_ms": p99_ms, "passed": ok, "verdict": point.parsed["verdict"]})
        if ok:
            search.peak_qps, search.best = rate, point
            low = rate
        else:
            high = rate
        if len(search.tried) == 1 and not ok:
            break
    return search
