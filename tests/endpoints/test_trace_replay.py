"""A 200-request trace with recorded arrivals replayed against the real vLLM CPU server, open loop."""

import json
import random

from harness.endpoints.replay import replay, send_lag_summary_ms
from harness.endpoints.target import Endpoint
from harness.endpoints.trace import parse_trace

# Every request leaves within this of its scheduled moment (and never before it): the replay's stated
# tolerance on a shared 2-core host; benchmarks/replay_overhead.py prints what it really is.
SEND_TOLERANCE_MS = 250


def _mooncake_trace(requests: int, rate_per_s: float, seed: int) -> str:
    """Poisson arrivals at `rate_per_s`, input 16-64 and output 4-16 tokens, as Mooncake's JSONL (ms stamps)."""
    rng, at_ms, lines = random.Random(seed), 0, []
    for _ in range(requests):
        at_ms += round(rng.expovariate(rate_per_s) * 1000)
        lines.append(json.dumps({"timestamp": at_ms, "input_length": rng.randint(16, 64),
                                 "output_length": rng.randint(4, 16)}))  # fmt: skip
    return "\n".join(lines)


def test_it_replays_a_trace_at_its_recorded_arrivals(vllm_server):
    trace = parse_trace("chat-sample", _mooncake_trace(200, rate_per_s=10, seed=29), "mooncake")
    endpoint = Endpoint(name="tiny-vllm", protocol="openai-completions", url=vllm_server.url,
                        model=vllm_server.model)  # fmt: skip

    replayed = replay(trace, endpoint, time_scale=1.0)

    assert len(replayed) == 200 and all(request.record.ok for request in replayed), [
        request.record.error for request in replayed if not request.record.ok
    ][:3]
    # Each request asked for its own recorded lengths (ignore_eos: exactly that many output tokens).
    assert [(r.record.prompt_tokens, r.record.completion_tokens) for r in replayed] == [
        (request.input_tokens, request.output_tokens) for request in trace.requests
    ]
    # Sent in the recorded order, at the recorded offsets: none early, none later than the tolerance.
    lags_ms = [request.send_lag_ns / 1e6 for request in replayed]
    assert min(lags_ms) >= 0
    assert max(lags_ms) <= SEND_TOLERANCE_MS, send_lag_summary_ms(replayed)
