"""Trace replay fidelity: how late requests leave against their recorded arrival times (p99 send lag).

A Poisson trace (Mooncake JSONL, ``--requests`` at ``--rate`` per second, 8 output tokens each) is replayed
against the no-op server (stdlib, in its own process: it answers at once, so what is measured is our replay's
own cost). The baseline, measured in the same run, is the same schedule kept by the same kind of asyncio tasks
that only note the time (no request): what the event loop's timers give at best. Printed: send lag p50/p99/max
of both and their p99 ratio. Target: replay p99 send lag at most 20 ms.

    .venv/bin/python benchmarks/replay_overhead.py [--requests 400] [--rate 40]
"""

from __future__ import annotations

import argparse
import asyncio
import json
import random
import socket
import subprocess
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from harness.endpoints.client import clock  # noqa: E402
from harness.endpoints.replay import LEAD_NS, replay, send_lag_summary_ms  # noqa: E402
from harness.endpoints.target import Endpoint  # noqa: E402
from harness.endpoints.trace import parse_trace  # noqa: E402
from harness.stats import latency_summary_ms  # noqa: E402

TARGET_P99_MS = 20.0


def _free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def _trace_text(requests: int, rate: float) -> str:
    rng, at_ms, lines = random.Random(29), 0.0, []
    for _ in range(requests):
        at_ms += rng.expovariate(rate) * 1000
        lines.append(json.dumps({"timestamp": round(at_ms, 3), "input_length": 32, "output_length": 8}))
    return "\n".join(lines)


async def _timers_only(offsets_s: list[float]) -> list[int]:
    start = clock() + LEAD_NS

    async def wait(offset_s: float) -> int:
        scheduled = start + round(offset_s * 1e9)
        await asyncio.sleep(max(0, scheduled - clock()) / 1e9)
        while clock() < scheduled:
            await asyncio.sleep(0)
        return clock() - scheduled

    return list(await asyncio.gather(*(wait(offset) for offset in offsets_s)))


def _line(name: str, summary: dict) -> str:
    return f"{name:<34} p50 {summary['p50']:7.3f} ms   p99 {summary['p99']:7.3f} ms   max {summary['max']:7.3f} ms"


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--requests", type=int, default=400)
    parser.add_argument("--rate", type=float, default=40.0)
    args = parser.parse_args()
    trace = parse_trace("bench", _trace_text(args.requests, args.rate), "mooncake")
    port = _free_port()
    server = subprocess.Popen([sys.executable, "-m", "harness.endpoints.engines.noop_server", str(port)],
                              stdout=subprocess.PIPE, text=True)  # fmt: skip
    try:
        assert server.stdout is not None and server.stdout.readline().strip() == "ready"
        endpoint = Endpoint(name="noop", protocol="openai-completions", url=f"http://127.0.0.1:{port}", model="m")
        baseline = latency_summary_ms(asyncio.run(_timers_only([r.offset_s or 0.0 for r in trace.requests])))
        replayed = replay(trace, endpoint)
    finally:
        server.terminate()
        server.wait(timeout=10)
    failed = sum(not request.record.ok for request in replayed)
    lag = send_lag_summary_ms(replayed)
    duration_s = trace.requests[-1].offset_s or 0.0
    print(f"trace: {len(trace.requests)} requests over {duration_s:.1f} s (Poisson, {args.rate:g}/s), {failed} failed")
    print(_line("baseline (asyncio timers only)", baseline))
    print(_line("replay (scheduled vs actual send)", lag))
    ratio = lag["p99"] / baseline["p99"] if baseline["p99"] > 0 else float("inf")
    print(f"replay p99 send lag / timers-only p99: {ratio:.2f}x; target p99 <= {TARGET_P99_MS:g} ms: "
          f"{'met' if lag['p99'] <= TARGET_P99_MS and not failed else 'MISSED'}")  # fmt: skip
    return 0 if lag["p99"] <= TARGET_P99_MS and not failed else 1


if __name__ == "__main__":
    sys.exit(main())
