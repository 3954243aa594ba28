"""Replaying a trace against an endpoint at its recorded arrival times (scaled by ``time_scale``).

Every request is scheduled up front at ``start + offset * time_scale`` and sent by its own task when that
moment comes, however many are still in flight (an open loop, as production traffic is): a slow server makes
requests pile up, it does not delay the next arrival. Each request keeps when it was scheduled and when it was
actually sent, so the replay states its own fidelity (the send lag).
"""

from __future__ import annotations

import asyncio
from dataclasses import dataclass, replace

import aiohttp

from ..stats import latency_summary_ms
from .client import RequestRecord, clock, stream_openai
from .target import Endpoint
from .trace import Trace

# The first request is scheduled this long after the replay starts: the tasks are created by then.
LEAD_NS = 50_000_000
# A replayed request that leaves later than this after its recorded arrival makes its point not valid: the load
# the server saw was no longer the trace's. Measured on a shared 2-core host (the client beside vLLM's CPU engine);
# benchmarks/replay_overhead.py prints the replay's own p99 against a no-op server.
SEND_LAG_TOLERANCE_MS = 250.0


@dataclass(frozen=True)
class ReplayedRequest:
    index: int
    scheduled_ns: int
    record: RequestRecord

    @property
    def send_lag_ns(self) -> int:
        """How late the request left against its schedule (never negative: nothing is sent early)."""
        return self.record.sent_ns - self.scheduled_ns


def replay_errors(trace: Trace, endpoint: Endpoint) -> list[str]:
    errors = []
    if not trace.has_arrivals:
        errors.append(f"trace {trace.name} ({trace.format}) records no arrival times: it cannot be replayed at them")
    if any(request.input_tokens is None or request.output_tokens is None for request in trace.requests):
        errors.append(f"trace {trace.name} does not give every request's input and output length in tokens")
    if endpoint.protocol != "openai-completions":
        errors.append(f"a trace is replayed through openai-completions (token-id prompts), not {endpoint.protocol}")
    return errors


def shaped_for(endpoint: Endpoint, trace: Trace, index: int) -> Endpoint:
    """The endpoint asking what request ``index`` (modulo the trace's length) of the trace asks: its lengths in
    tokens, where the trace gives them (else the endpoint's declared ones)."""
    request = trace.requests[index % len(trace.requests)]
    return replace(endpoint, prompt_tokens=request.input_tokens or endpoint.prompt_tokens,
                   output_tokens=request.output_tokens or endpoint.output_tokens)  # fmt: skip


async def _send_at(client, base_url: str, endpoint: Endpoint, trace: Trace, index: int, scheduled_ns: int):
    shaped = shaped_for(endpoint, trace, index)
    wait_ns = scheduled_ns - clock()
    if wait_ns > 0:
        await asyncio.sleep(wait_ns / 1e9)
    while clock() < scheduled_ns:  # asyncio may wake a little early; never send before the schedule
        await asyncio.sleep(0)
    return ReplayedRequest(index, scheduled_ns, await stream_openai(client, base_url, shaped, index))


async def replay_async(
    trace: Trace,
    endpoint: Endpoint,
    *,
    time_scale: float = 1.0,
    client: aiohttp.ClientSession | None = None,
    base_url: str | None = None,
) -> list[ReplayedRequest]:
    """Replay ``trace`` open loop; on ``client`` (its connector must not cap connections) at ``base_url`` when
    given (an EndpointSUT's, credentials moved to a header), else on a session of its own at the endpoint's URL."""
    errors = replay_errors(trace, endpoint)
    if errors:
        raise ValueError("; ".join(errors))
    if not time_scale > 0:
        raise ValueError(f"time_scale must be above 0, got {time_scale}")
    if client is None:
        # No connection limit: a connector queue would hold requests back after their recorded arrival.
        connector = aiohttp.TCPConnector(limit=0)
        async with aiohttp.ClientSession(connector=connector, timeout=aiohttp.ClientTimeout(total=600)) as own:
            return await replay_async(trace, endpoint, time_scale=time_scale, client=own, base_url=endpoint.url)
    start_ns = clock() + LEAD_NS
    tasks = [
        _send_at(client, base_url or endpoint.url, endpoint, trace, index,
                 start_ns + round((request.offset_s or 0.0) * time_scale * 1e9))
        for index, request in enumerate(trace.requests)
    ]  # fmt: skip
    return list(await asyncio.gather(*tasks))


def replay(trace: Trace, endpoint: Endpoint, *, time_scale: float = 1.0) -> list[ReplayedRequest]:
    return asyncio.run(replay_async(trace, endpoint, time_scale=time_scale))


def send_lag_summary_ms(replayed: list[ReplayedRequest]) -> dict:
    """The replay's fidelity: scheduled vs actual send time, in ms (min, mean, p50 ... p99.9, max)."""
    return latency_summary_ms([request.send_lag_ns for request in replayed])
