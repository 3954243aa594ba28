"""Repeatability: two quick-suite runs back to back, point by point (ratio = run 2 / run 1).

What is compared is the figure each scenario exists to measure:
  - single-stream: p50 latency;
  - server: p50 latency at the same offered rate (run 2 offers exactly run 1's rates, since the rate
    itself comes from a capacity calibration that moves a little between runs);
  - offline: throughput. Offline's p50 is also printed, but it is not a property of the hardware: LoadGen
    sends one query of N samples, so the p50 is roughly half of that query's length, which LoadGen sizes
    from the calibrated rate and the minimum duration.
Each point is what the quick preset reports: the best of its rounds (settings.rounds), with the
rounds a suite's length apart. Target: every compared ratio within 10% of 1.0. Prints the table, each
run's wall time, and a baseline measured in the same session: a plain loop of each tiny workload
before each run, which shows how much the machine itself moved. Exits non-zero when a point misses.

    .venv/bin/python benchmarks/repeatability.py
"""

from __future__ import annotations

import sys
import tempfile
import time
from dataclasses import replace
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from harness.suite import Failure, Skip, plan_suite, run_suite  # noqa: E402

TOLERANCE = 0.10


def _item_key(payload_or_item) -> tuple:
    if isinstance(payload_or_item, dict):
        p = payload_or_item
        return (p["workload"]["model_class"], p["scenario"], p["backend"], p["precision"])
    return (payload_or_item.model_class, payload_or_item.scenario, payload_or_item.backend, payload_or_item.precision)


def _measure(payload: dict, point: dict) -> tuple[str, float, float]:
    """(label, compared figure, offline p50 for information) for one point."""
    scenario, name = payload["scenario"], payload["workload"]["name"]
    where = f"{payload['backend']}/{payload['precision']}"
    if scenario == "offline":
        return f"{name} offline {where} batch={point['batch_size']} (samples/s)", point["throughput_per_s"], 0.0
    if scenario == "server":
        rate = point["offered_rate_qps"]
        return f"{name} server {where} @{rate:.0f}qps (p50 ms)", point["latency_ms"]["p50"], rate
    return f"{name} single-stream {where} (p50 ms)", point["latency_ms"]["p50"], 0.0


def machine_baseline() -> dict[str, float]:
    """Samples/s of each tiny workload (eager fp32, batch 8) in a plain loop, no LoadGen, best of three
    1-s windows: how much the machine itself moves between the two runs."""
    import torch

    from harness.backends import get_backend_class
    from harness.scenarios import Engine
    from harness.workloads import WORKLOADS, get_workload

    previous, rates = torch.get_num_threads(), {}
    torch.set_num_threads(plan_suite("quick")[0].settings.resolved_threads())
    try:
        for model_class in WORKLOADS:
            workload = get_workload(model_class, "tiny")
            backend = get_backend_class("eager")("fp32", "cpu")
            backend.load(workload.build("cpu"), workload.example_inputs(2))
            engine = Engine(workload, backend, 16)
            rates[workload.name] = max(engine.throughput_per_s(8, 1.0, 3, 1) for _ in range(3))
    finally:
        torch.set_num_threads(previous)
    return rates


def run_once(items, out_dir: Path) -> tuple[dict, dict, float]:
    started, figures, server_rates, valid = time.perf_counter(), {}, {}, []
    for result in run_suite(items, out_dir):
        if isinstance(result, Skip | Failure):
            print(f"{type(result).__name__.lower()} {result}", file=sys.stderr)
            continue
        for index, point in enumerate(result["points"]):
            label, value, rate = _measure(result, point)
            valid.append(point["loadgen"]["result_valid"])
            figures[(_item_key(result), index)] = (label, value, point["latency_ms"]["p50"])
            if result["scenario"] == "server":
                server_rates.setdefault(_item_key(result), []).append(rate)
    print(f"LoadGen VALID points: {sum(valid)}/{len(valid)}")
    return figures, server_rates, time.perf_counter() - started


def main() -> int:
    items = plan_suite("quick")
    with tempfile.TemporaryDirectory() as tmp:
        baseline_1 = machine_baseline()
        first, rates, wall_1 = run_once(items, Path(tmp) / "run1")
        same_load = [
            replace(item, settings=item.settings.with_(server_rates_qps=tuple(rates[_item_key(item)])))
            if item.scenario == "server" and _item_key(item) in rates
            else item
            for item in items
        ]
        baseline_2 = machine_baseline()
        second, _, wall_2 = run_once(same_load, Path(tmp) / "run2")
    print(f"quick suite wall time: run 1 {wall_1:.1f} s, run 2 {wall_2:.1f} s")
    print("machine baseline, measured before each run (plain loop, batch 8, samples/s, best of 3 x 1 s):")
    for name, rate_1 in baseline_1.items():
        print(f"  {name:24s} {rate_1:11.1f} {baseline_2[name]:11.1f} {baseline_2[name] / rate_1:7.3f}")
    print(f"{'point':66s} {'run 1':>11s} {'run 2':>11s} {'ratio':>7s}   offline p50 ratio (info)")
    misses = []
    for key, (label, value_1, p50_1) in first.items():
        if key not in second:
            misses.append(f"{label}: missing in run 2")
            continue
        _, value_2, p50_2 = second[key]
        ratio = value_2 / value_1
        flag = "" if abs(ratio - 1) <= TOLERANCE else "  MISSED"
        info = f"   {p50_2 / p50_1:.3f}" if key[0][1] == "offline" else ""
        print(f"{label:66s} {value_1:11.4f} {value_2:11.4f} {ratio:7.3f}{flag}{info}")
        if flag:
            misses.append(f"{label}: ratio {ratio:.3f}")
    print(f"{len(first) - len(misses)}/{len(first)} points within {TOLERANCE:.0%}")
    return 1 if misses else 0


if __name__ == "__main__":
    sys.exit(main())
