"""Repeatability: two quick-suite runs back to back; p50 latency ratio (run 2 / run 1) per point.

Target: every ratio within 10% of 1.0. Prints the table and the quick suite's wall time per run;
exits non-zero when a point misses.

    .venv/bin/python benchmarks/repeatability.py
"""

from __future__ import annotations

import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from agents.harness.suite import Skip, plan_suite, run_suite  # noqa: E402

TOLERANCE = 0.10


def _label(payload: dict, point: dict) -> str:
    where = f"batch={point['batch_size']}" if payload["scenario"] != "server" else "server"
    parts = (
        payload["workload"]["name"],
        payload["scenario"],
        payload["backend"],
        payload["precision"],
        where,
    )
    return " ".join(parts)


def run_once(out_dir: Path) -> tuple[dict[str, float], float]:
    started, p50s = time.perf_counter(), {}
    for result in run_suite(plan_suite("quick"), out_dir):
        if isinstance(result, Skip):
            print(f"skip {result}", file=sys.stderr)
            continue
        for point in result["points"]:
            p50s[_label(result, point)] = point["latency_ms"]["p50"]
    return p50s, time.perf_counter() - started


def main() -> int:
    with tempfile.TemporaryDirectory() as tmp:
        first, wall_1 = run_once(Path(tmp) / "run1")
        second, wall_2 = run_once(Path(tmp) / "run2")
    print(f"quick suite wall time: run 1 {wall_1:.1f} s, run 2 {wall_2:.1f} s")
    print(f"{'point':62s} {'p50 run1 ms':>12s} {'p50 run2 ms':>12s} {'ratio':>7s}")
    misses = []
    for key in first:
        if key not in second:
            misses.append(f"{key}: missing in run 2")
            continue
        ratio = second[key] / first[key]
        flag = "" if abs(ratio - 1) <= TOLERANCE else "  MISSED"
        print(f"{key:62s} {first[key]:12.4f} {second[key]:12.4f} {ratio:7.3f}{flag}")
        if flag:
            misses.append(f"{key}: ratio {ratio:.3f}")
    print(f"{len(first) - len(misses)}/{len(first)} points within {TOLERANCE:.0%}")
    return 1 if misses else 0


if __name__ == "__main__":
    sys.exit(main())
