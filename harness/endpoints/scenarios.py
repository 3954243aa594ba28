"""Scenarios over an endpoint: Server (Poisson arrivals at target rates) and the closed-loop concurrency
sweep (1, 2, 4, ... requests in flight until throughput stops growing or the SLOs break), each with
warm-up requests first and the server's metrics scraped around the measured window."""

from __future__ import annotations

from pathlib import Path

from ..scenarios.base import Scenario
from ..scenarios.loadgen_run import PointResult, SutRecord, assemble_point, base_settings, run_test, throughput_of
from ..scenarios.settings import RunSettings
from ..telemetry import TelemetrySession
from .figures import endpoint_block
from .metrics import scrape
from .sut import EndpointSUT


def _scrape(sut: EndpointSUT):
    url = sut.endpoint.metrics_url
    return scrape(url, sut.endpoint.headers()) if url else None


class EndpointFailed(RuntimeError):
    """Every request of a point failed: there is nothing to measure (the errors are the finding)."""


def _measure(sut: EndpointSUT, settings: RunSettings, lg_settings, log_dir: Path, telemetry: TelemetrySession):
    before = _scrape(sut)
    sut.records = []
    run = run_test(lg_settings, sut.issue, lambda: None, len(sut.samples), log_dir, telemetry)
    sut.wait_idle()
    after = _scrape(sut)
    records = sut.records
    if records and not any(r.ok for r in records):
        examples = "; ".join(dict.fromkeys(r.error for r in records))
        raise EndpointFailed(f"all {len(records)} requests failed: {examples[:500]}")
    record = SutRecord(end_to_end_ns=[r.latency_ns for r in records if r.ok], samples=len(records))
    return run, record, records, before, after


class EndpointServer(Scenario):
    """Open loop: LoadGen's Poisson arrivals at each of ``settings.server_rates_qps``; judged by p50 latency."""

    name = "server"

    def labels(self) -> list[str]:
        return [f"rate={rate:g}qps" for rate in self.settings.server_rates_qps]

    def calibrate(self, sut: EndpointSUT, point: int, log_dir: Path, log_root: Path, telemetry) -> None:
        sut.run_direct(self.settings.warmup_queries, concurrency=4, start_index=len(sut.samples))

    def measure(self, sut: EndpointSUT, point: int, log_dir: Path, telemetry: TelemetrySession) -> PointResult:
        s, rate = self.settings, self.settings.server_rates_qps[point]
        sut.set_concurrency(None)
        lg_settings = base_settings("server", s.min_duration_ms, s.min_query_count, len(sut.samples), sut.is_generative)
        lg_settings.server_target_qps = float(rate)
        lg_settings.server_target_latency_ns = int(s.server_target_latency_ms * 1e6)
        if sut.is_generative:
            lg_settings.ttft_latency = int(s.llm_ttft_latency_ms * 1e6)
            lg_settings.tpot_latency = int(s.llm_tpot_latency_ms * 1e6)
        run, record, records, before, after = _measure(sut, s, lg_settings, log_dir, telemetry)
        point_result = assemble_point("server", sut, run, log_dir, record, batch_size=1, offered_rate_qps=rate)
        point_result.endpoint = endpoint_block(records, s, sut.is_generative, before, after)
        return point_result


class ConcurrencySweep(Scenario):
    """Closed loop: at most N requests in flight (LoadGen's Offline query, served N at a time), for N = 1, 2,
    4, ...; the next level is measured only while output throughput still grows by
    ``settings.concurrency_growth_min`` and the SLOs hold. Judged by throughput."""

    name = "concurrency-sweep"
    chosen_by = "throughput_per_s"
    higher_is_better = True

    def __init__(self, settings: RunSettings):
        super().__init__(settings)
        self.levels = [1]
        self.expected_qps: dict[int, float] = {}
        self.best_throughput = 0.0

    def labels(self) -> list[str]:
        return [f"concurrency={n}" for n in self.levels]

    def calibrate(self, sut: EndpointSUT, point: int, log_dir: Path, log_root: Path, telemetry) -> None:
        concurrency = self.levels[point]
        warmup = max(self.settings.warmup_queries, 2 * concurrency)
        records, seconds = sut.run_direct(warmup, concurrency, start_index=len(sut.samples))
        if point not in self.expected_qps:
            completed = sum(1 for r in records if r.ok) or 1
            # 10% headroom: an Offline query sized for exactly the rate ends short of min_duration half the time.
            self.expected_qps[point] = 1.1 * completed / max(seconds, 1e-6)

    def measure(self, sut: EndpointSUT, point: int, log_dir: Path, telemetry: TelemetrySession) -> PointResult:
        s, concurrency = self.settings, self.levels[point]
        sut.set_concurrency(concurrency)
        lg_settings = base_settings(
            "offline", s.min_duration_ms, s.min_query_count, len(sut.samples), sut.is_generative
        )
        lg_settings.offline_expected_qps = self.expected_qps[point]
        run, record, records, before, after = _measure(sut, s, lg_settings, log_dir, telemetry)
        result = assemble_point("concurrency-sweep", sut, run, log_dir, record, batch_size=1, concurrency=concurrency)
        result.endpoint = endpoint_block(records, s, sut.is_generative, before, after)
        measured_qps = result.parsed.get("samples_per_second") or 0.0
        self.expected_qps[point] = max(self.expected_qps[point], 1.1 * measured_qps)
        self._extend(point, result)
        return result

    def _extend(self, point: int, result: PointResult) -> None:
        """Add the next level when this one (the last so far) still paid off."""
        if point != len(self.levels) - 1:
            return
        throughput = throughput_of(result)[0]
        grew = throughput >= (1 + self.settings.concurrency_growth_min) * self.best_throughput
        self.best_throughput = max(self.best_throughput, throughput)
        following = 2 * self.levels[-1]
        if grew and result.endpoint["slo_met"] and following <= self.settings.concurrency_max:
            self.levels.append(following)

    def figure_of_merit(self, result: PointResult) -> float:
        return throughput_of(result)[0]


ENDPOINT_SCENARIOS: dict[str, type[Scenario]] = {cls.name: cls for cls in (EndpointServer, ConcurrencySweep)}
