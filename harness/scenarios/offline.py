"""Offline: LoadGen hands over all samples at once; the SUT runs them in batches of a fixed size."""

from __future__ import annotations

import queue
import threading
import time
from pathlib import Path

from ..telemetry import TelemetrySession
from .base import Scenario, register
from .engine import Engine
from .loadgen_run import (
    PointResult,
    Responder,
    SutFailure,
    SutRecord,
    assemble_point,
    base_settings,
    run_test,
    throughput_of,
)
from .settings import RunSettings

CALIBRATION_BATCHES = 3


def calibration_window_s(settings: RunSettings) -> float:
    """A tenth of the run, capped at 0.5 s: long enough to average out per-batch overhead."""
    return min(0.5, settings.min_duration_ms / 10_000)


def offline_expected_qps(
    engine: Engine, settings: RunSettings, batch_size: int, log_dir: Path, telemetry: TelemetrySession
) -> float:
    """The rate to size LoadGen's Offline query with. LoadGen sizes the single Offline query from the
    expected QPS, so a pilot LoadGen run of a tenth of the duration (logs in ``log_dir/pilot``) measures the
    rate the SUT really sustains under LoadGen, after a direct calibration seeds the pilot."""
    expected_qps = engine.throughput_per_s(batch_size, calibration_window_s(settings), CALIBRATION_BATCHES)
    pilot = settings.with_(min_duration_ms=max(100, settings.min_duration_ms // 10), min_query_count=1)
    pilot_point = _offline_test(engine, pilot, batch_size, expected_qps, log_dir / "pilot", telemetry)
    # 10% headroom: an exact estimate lands just short of min_duration about half the time.
    return 1.1 * (pilot_point.parsed.get("samples_per_second") or expected_qps)


def run_offline(
    engine: Engine,
    settings: RunSettings,
    batch_size: int,
    log_dir: Path,
    telemetry: TelemetrySession,
    expected_qps: float | None = None,
) -> PointResult:
    """Offline point at one batch size; ``expected_qps`` from ``offline_expected_qps`` (calibrated when
    not given)."""
    if expected_qps is None:
        expected_qps = offline_expected_qps(engine, settings, batch_size, log_dir, telemetry)
    return _offline_test(engine, settings, batch_size, expected_qps, log_dir, telemetry)


def _offline_test(
    engine: Engine,
    settings: RunSettings,
    batch_size: int,
    expected_qps: float,
    log_dir: Path,
    telemetry: TelemetrySession,
) -> PointResult:
    sample_count = len(engine.samples)
    responder = Responder(engine.workload.output_tokens())
    record = SutRecord()
    work: queue.Queue = queue.Queue()
    failure = SutFailure()
    clock = time.perf_counter_ns

    def run_batch(ids: list[int], indices: list[int]) -> None:
        first = (lambda _tok: responder.first_tokens(ids)) if engine.is_generative else None
        t0 = clock()
        batch = engine.form_batch(indices)
        t1 = clock()
        timing = engine.execute(batch, first)
        responder.complete(ids)
        record.batch_formation_ns.append(t1 - t0)
        record.compute_ns.append(timing.compute_ns)
        if timing.h2d_ns is not None:
            record.h2d_ns.append(timing.h2d_ns)
            record.d2h_ns.append(timing.d2h_ns)
        record.batch_sizes[len(ids)] += 1
        record.samples += len(ids)

    def worker() -> None:
        while (query := work.get()) is not None:
            all_ids, all_indices = query
            for start in range(0, len(all_ids), batch_size):
                if failure.error is None:
                    try:
                        run_batch(all_ids[start : start + batch_size], all_indices[start : start + batch_size])
                        continue
                    except Exception as exc:  # noqa: BLE001 - raised to the caller once LoadGen's test has ended
                        failure.record(exc)
                # The backend failed: complete the rest unrun, since LoadGen's test ends only when every sample has.
                responder.complete(all_ids[start:])
                break

    thread = threading.Thread(target=worker, name="offline-sut", daemon=True)
    thread.start()
    lg_settings = base_settings(
        "offline", settings.min_duration_ms, settings.min_query_count, sample_count, engine.is_generative
    )
    lg_settings.offline_expected_qps = expected_qps
    try:
        run = run_test(
            lg_settings, lambda ids, indices: work.put((ids, indices)), lambda: None, sample_count, log_dir, telemetry
        )
    finally:
        work.put(None)
        thread.join()
    failure.raise_if_failed("offline")
    return assemble_point("offline", engine, run, log_dir, record, batch_size=batch_size)


@register
class Offline(Scenario):
    """A batch-size sweep, each point one Offline query sized from a calibrated rate: judged by throughput."""

    name = "offline"
    chosen_by = "throughput_per_s"
    higher_is_better = True

    def __init__(self, settings: RunSettings):
        super().__init__(settings)
        self.expected_qps: dict[int, float] = {}

    def labels(self) -> list[str]:
        return [f"batch={b}" for b in self.settings.offline_batch_sizes]

    def calibrate(self, sut: Engine, point: int, log_dir: Path, log_root: Path, telemetry: TelemetrySession) -> None:
        if point not in self.expected_qps:
            batch_size = self.settings.offline_batch_sizes[point]
            self.expected_qps[point] = offline_expected_qps(sut, self.settings, batch_size, log_dir, telemetry)

    def measure(self, sut: Engine, point: int, log_dir: Path, telemetry: TelemetrySession) -> PointResult:
        batch_size = self.settings.offline_batch_sizes[point]
        result = run_offline(sut, self.settings, batch_size, log_dir, telemetry, self.expected_qps[point])
        # A round faster than the calibration finishes its query before min_duration (INVALID): size later
        # rounds for the fastest rate seen, with the same 10% headroom.
        measured_qps = result.parsed.get("samples_per_second") or 0.0
        self.expected_qps[point] = max(self.expected_qps[point], 1.1 * measured_qps)
        return result

    def figure_of_merit(self, result: PointResult) -> float:
        return throughput_of(result)[0]
