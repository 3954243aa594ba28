"""Harness fidelity: does the harness's single-stream latency agree with torch.utils.benchmark?

For every tiny workload (eager fp32, batch 1) the same model and input are timed in one process, in
interleaved rounds, by
the harness (LoadGen SingleStream p50) and by ``Timer.blocked_autorange`` (median); the ratio should be
1.00 +- 0.05. The harness's own per-query overhead (LoadGen + SUT callbacks) is measured with a no-op
model and should stay under 20 us. Exits non-zero naming any missed target.

    .venv/bin/python benchmarks/harness_fidelity.py [--min-duration-ms 3000]
"""

from __future__ import annotations

import argparse
import os
import sys
import tempfile
import time
from pathlib import Path

import torch
from torch.utils.benchmark import Timer

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from harness.backends.eager import EagerBackend  # noqa: E402
from harness.scenarios import Engine, RunSettings, run_single_stream  # noqa: E402
from harness.scenarios.engine import ExecTiming  # noqa: E402
from harness.telemetry import TelemetrySession  # noqa: E402
from harness.workloads import WORKLOADS, get_workload  # noqa: E402

RATIO_TOLERANCE = 0.05
OVERHEAD_TARGET_US = 20.0


class _NoopWorkload:
    config: dict = {}

    def output_tokens(self) -> int:
        return 0


class NoopEngine:
    """An Engine stand-in whose execution does nothing: what remains is the harness's overhead."""

    def __init__(self):
        self.workload, self.samples, self.is_generative = _NoopWorkload(), [()] * 8, False

    def execute(self, batch, on_first_token=None) -> ExecTiming:
        return ExecTiming(None, 0, None, None)

    def median_latency_ns(self, batch_size: int, repeats: int) -> int:
        t0 = time.perf_counter_ns()
        self.execute(())
        return max(1000, time.perf_counter_ns() - t0)


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--min-duration-ms", type=int, default=2000)
    parser.add_argument("--rounds", type=int, default=3, help="Interleaved harness/Timer rounds per workload.")
    args = parser.parse_args()
    settings = RunSettings(
        min_duration_ms=args.min_duration_ms,
        min_query_count=256,
        warmup_queries=50,
        performance_sample_count=1,
        preset="fidelity",
    )
    # The same intra-op thread count the suite's run_item uses (one fewer than the CPUs).
    torch.set_num_threads(settings.resolved_threads())
    failures, telemetry = [], TelemetrySession()
    print(f"intra-op threads: {torch.get_num_threads()} of {os.cpu_count()} CPUs")
    print(f"{'workload':24s} {'harness p50 ms':>15s} {'Timer median ms':>16s} {'ratio':>7s} {'SUT compute p50':>16s}")
    with tempfile.TemporaryDirectory() as tmp:
        for name in WORKLOADS:
            workload = get_workload(name, "tiny")
            backend = EagerBackend()
            backend.load(workload.build(), workload.example_inputs(2))
            engine = Engine(workload, backend, sample_count=1)
            inputs = engine.samples[0]

            def infer(workload=workload, backend=backend, inputs=inputs):
                with torch.no_grad():
                    return workload.infer(backend.forward, backend.module, inputs)

            # Timer sets its own thread count (default 1): give it the harness's.
            timer = Timer("infer()", globals={"infer": infer}, num_threads=torch.get_num_threads())
            # A shared machine has slow phases lasting seconds, so the two methods are interleaved and each
            # is summarised by its best (lowest) round, as the suite reports a point's best round and
            # timeit its best repeat: a slower round measures interference, on either side.
            harness_p50s, timer_medians, compute_p50s = [], [], []
            for round_index in range(args.rounds):
                point = run_single_stream(engine, settings, Path(tmp) / f"{name}-{round_index}", telemetry)
                harness_p50s.append(point.parsed["latency_ns"]["p50"] / 1e6)
                compute = sorted(point.sut.compute_ns)
                compute_p50s.append(compute[len(compute) // 2] / 1e6)
                timer_medians.append(timer.blocked_autorange(min_run_time=args.min_duration_ms / 1000).median * 1e3)
            harness_ms, timer_ms = min(harness_p50s), min(timer_medians)
            ratio = harness_ms / timer_ms
            print(f"{workload.name:24s} {harness_ms:15.4f} {timer_ms:16.4f} {ratio:7.3f} {min(compute_p50s):16.4f}")
            if abs(ratio - 1.0) > RATIO_TOLERANCE:
                failures.append(f"{workload.name}: ratio {ratio:.3f} outside 1.00 +- {RATIO_TOLERANCE}")
        noop = run_single_stream(NoopEngine(), settings, Path(tmp) / "noop", telemetry)
    overhead_us = noop.parsed["latency_ns"]["p50"] / 1e3
    print(
        f"harness overhead per query (no-op model, LoadGen p50): {overhead_us:.1f} us "
        f"(mean {noop.parsed['latency_ns']['mean'] / 1e3:.1f} us, "
        f"p99 {noop.parsed['latency_ns']['p99'] / 1e3:.1f} us)"
    )
    if overhead_us >= OVERHEAD_TARGET_US:
        failures.append(f"overhead {overhead_us:.1f} us >= {OVERHEAD_TARGET_US} us")
    for failure in failures:
        print("MISSED:", failure)
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
