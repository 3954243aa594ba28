"""SingleStream: one query of batch 1 at a time; LoadGen records the latency distribution."""

from __future__ import annotations

import time
from pathlib import Path

from ..telemetry import TelemetrySession
from .base import Scenario, register
from .engine import Engine
from .loadgen_run import PointResult, Responder, SutFailure, SutRecord, assemble_point, base_settings, run_test
from .settings import RunSettings


def run_single_stream(engine: Engine, settings: RunSettings, log_dir: Path, telemetry: TelemetrySession) -> PointResult:
    # LoadGen pre-generates SingleStream queries from the expected latency: calibrate it first, on a warm
    # model (the first calls of a fresh process can take twice as long), and err 10% low, as LoadGen
    # advises, since an overestimate generates too few queries to fill min_duration (INVALID).
    engine.median_latency_ns(1, settings.warmup_queries)
    expected_ns = 0.9 * engine.median_latency_ns(1, settings.warmup_queries)
    sample_count = len(engine.samples)
    responder = Responder(engine.workload.output_tokens())
    record = SutRecord()
    failure = SutFailure()
    clock = time.perf_counter_ns

    def run_query(query_id: int, index: int) -> None:
        first = (lambda _tok: responder.first_tokens([query_id])) if engine.is_generative else None
        t0 = clock()
        timing = engine.execute(engine.samples[index], first)
        responder.complete([query_id])
        record.end_to_end_ns.append(clock() - t0)
        record.compute_ns.append(timing.compute_ns)
        if timing.h2d_ns is not None:
            record.h2d_ns.append(timing.h2d_ns)
            record.d2h_ns.append(timing.d2h_ns)
        record.samples += 1

    def issue(ids: list[int], indices: list[int]) -> None:
        # Runs in LoadGen's thread, which must not see an exception (it would be lost, and the test measured).
        for query_id, index in zip(ids, indices, strict=True):
            if failure.error is None:
                try:
                    run_query(query_id, index)
                    continue
                except Exception as exc:  # noqa: BLE001 - raised to the caller once LoadGen's test has ended
                    failure.record(exc)
            responder.complete([query_id])  # unrun after a failure: LoadGen's test ends when every query has

    lg_settings = base_settings(
        "single-stream",
        settings.min_duration_ms,
        settings.min_query_count,
        sample_count,
        engine.is_generative,
    )
    lg_settings.single_stream_expected_latency_ns = max(1, int(expected_ns))
    run = run_test(lg_settings, issue, lambda: None, sample_count, log_dir, telemetry)
    failure.raise_if_failed("single-stream")
    record.batch_sizes[1] = record.samples
    return assemble_point("single-stream", engine, run, log_dir, record, batch_size=1, concurrency=1)


@register
class SingleStream(Scenario):
    """One query of batch 1 at a time: judged by its p50 latency."""

    name = "single-stream"

    def labels(self) -> list[str]:
        return ["batch=1"]

    def measure(self, sut: Engine, point: int, log_dir: Path, telemetry: TelemetrySession) -> PointResult:
        return run_single_stream(sut, self.settings, log_dir, telemetry)
