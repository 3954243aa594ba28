"""Repeatability: two quick-suite runs back to back, point by point (ratio = run 2 / run 1).

What is compared is the figure each scenario exists to measure:
  - single-stream: p50 latency;
  - server: p50 latency at the same offered rate (run 2 offers exactly run 1's rates, since the rate
    itself comes from a capacity calibration that moves a little between runs);
  - offline: throughput. Offline's p50 is also printed, but it is not a property of the hardware: LoadGen
    sends one query of N samples, so the p50 is roughly half of that query's length, which LoadGen sizes
    from the calibrated rate and the minimum duration.
Target: every compared ratio within 10% of 1.0. Prints the table and each run's wall time; exits
non-zero when a point misses.

    .venv/bin/python benchmarks/repeatability.py
"""

from __future__ import annotations

import sys
import tempfile
import time
from dataclasses import replace
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from agents.harness.suite import Skip, plan_suite, run_suite  # noqa: E402

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


def run_once(items, out_dir: Path) -> tuple[dict, dict, float]:
    started, figures, server_rates = time.perf_counter(), {}, {}
    for result in run_suite(items, out_dir):
        if isinstance(result, Skip):
            print(f"skip {result}", file=sys.stderr)
            continue
        for index, point in enumerate(result["points"]):
            label, value, rate = _measure(result, point)
            figures[(_item_key(result), index)] = (label, value, point["latency_ms"]["p50"])
            if result["scenario"] == "server":
                server_rates.setdefault(_item_key(result), []).append(rate)
    return figures, server_rates, time.perf_counter() - started


def main() -> int:
    items = plan_suite("quick")
    with tempfile.TemporaryDirectory() as tmp:
        first, rates, wall_1 = run_once(items, Path(tmp) / "run1")
        same_load = [
            replace(item, settings=item.settings.with_(server_rates_qps=tuple(rates[_item_key(item)])))
            if item.scenario == "server" and _item_key(item) in rates
            else item
            for item in items
        ]
        second, _, wall_2 = run_once(same_load, Path(tmp) / "run2")
    print(f"quick suite wall time: run 1 {wall_1:.1f} s, run 2 {wall_2:.1f} s")
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
