"""Turns a measured PointResult into the payload's ``points[i]`` block."""

from __future__ import annotations

from .scenarios import PointResult
from .scenarios.loadgen_run import throughput_of
from .stats import NS_PER_MS, loadgen_latency_ms, p99_index, split_summary_ms


def _histogram(point: PointResult) -> dict[str, int] | None:
    counts = {str(size): int(n) for size, n in sorted(point.sut.batch_sizes.items()) if n}
    return counts or None


def p99_request_ms(point: PointResult) -> dict | None:
    """The SUT's own split of the one request at the p99 of its end-to-end times (nearest rank, LoadGen's
    convention), so that the parts of that request add up to its whole; None where the SUT does not time
    requests one by one (Offline times batches, an endpoint's server is another process)."""
    sut = point.sut
    e2e = sut.end_to_end_ns
    if not e2e or len(sut.compute_ns) != len(e2e):
        return None
    index = p99_index(e2e)

    def part(values: list[int]) -> float | None:
        return values[index] / NS_PER_MS if len(values) == len(e2e) else None

    batch_sizes = sut.request_batch_sizes
    return {
        "end_to_end": e2e[index] / NS_PER_MS,
        "queue_wait": part(sut.queue_wait_ns),
        "batch_formation": part(sut.batch_formation_ns),
        "h2d": part(sut.h2d_ns),
        "compute": part(sut.compute_ns),
        "d2h": part(sut.d2h_ns),
        "batch_size": batch_sizes[index] if len(batch_sizes) == len(e2e) else point.batch_size,
    }


def _optional_latency(latency_ns: dict) -> dict | None:
    return loadgen_latency_ms(latency_ns) if latency_ns else None


def _endpoint_llm_block(point: PointResult) -> dict:
    """An endpoint's token figures: the client's TTFT/TPOT per request, token counts from the server's usage."""
    block = point.endpoint
    completed = block["requests"] - block["errors"]
    return {
        "prompt_tokens": round(block["prompt_tokens_total"] / completed) if completed else 0,
        "output_tokens": max(1, round(block["output_tokens_total"] / completed)) if completed else point.output_tokens,
        "ttft_ms": block["ttft_ms"],
        "tpot_ms": block["tpot_ms"],
        "output_tokens_per_s": throughput_of(point)[0],
    }


def _llm_block(point: PointResult) -> dict | None:
    if not point.output_tokens:
        return None
    if point.endpoint is not None:
        return _endpoint_llm_block(point)
    parsed = point.parsed
    tokens_per_s = parsed.get("tokens_per_second")
    if not tokens_per_s:
        raise ValueError(f"LoadGen reported no token throughput for {point.log_dir}")
    return {
        "prompt_tokens": point.prompt_tokens,
        "output_tokens": point.output_tokens,
        # LoadGen reports token latencies for SingleStream and Server only (Offline has none).
        "ttft_ms": _optional_latency(parsed["first_token_latency_ns"]),
        "tpot_ms": _optional_latency(parsed["time_per_output_token_ns"]),
        "output_tokens_per_s": float(tokens_per_s),
    }


def point_payload(point: PointResult) -> dict:
    parsed = point.parsed
    llm = _llm_block(point)
    throughput, unit = throughput_of(point)
    samples = point.sut.samples
    energy = point.energy
    block = {
        "batch_size": point.batch_size,
        "concurrency": point.concurrency,
        "offered_rate_qps": point.offered_rate_qps,
        "throughput_per_s": float(throughput),
        "throughput_unit": unit,
        "latency_ms": _headline_latency_ms(point),
        "query_count": int(parsed.get("query_count") or samples),
        "sample_count": samples,
        "queue_wait_ms": split_summary_ms(point.sut.queue_wait_ns),
        "batch_formation_ms": split_summary_ms(point.sut.batch_formation_ns),
        "compute_ms": split_summary_ms(point.sut.compute_ns),
        "h2d_ms": split_summary_ms(point.sut.h2d_ns),
        "d2h_ms": split_summary_ms(point.sut.d2h_ns),
        "end_to_end_ms": split_summary_ms(point.sut.end_to_end_ns),
        "p99_request_ms": p99_request_ms(point),
        "batch_size_histogram": _histogram(point),
        "llm": llm,
        "power_w_mean": energy.power_w_mean,
        "energy_j_per_inference": energy.energy_j / samples if energy.energy_j is not None and samples else None,
        "loadgen": {
            "result_valid": bool(parsed.get("result_valid")),
            "verdict": parsed.get("verdict") or "INVALID",
            "reasons": [str(r) for r in parsed.get("reasons", [])],
            "early_stopping": parsed.get("early_stopping"),
            "constraints": parsed.get("constraints", {}),
            "scenario": parsed.get("scenario") or "",
            "log_dir": point.log_dir,
            "summary_log": point.summary_log,
            "detail_log": point.detail_log,
        },
    }
    if point.endpoint is not None:
        # LoadGen's query latency (a sweep's one Offline query spans the whole point) kept as a detail.
        block["endpoint"] = point.endpoint | {"loadgen_query_latency_ms": loadgen_latency_ms(parsed["latency_ns"])}
    return block


def _headline_latency_ms(point: PointResult) -> dict:
    """A point's latency: an endpoint's per request (end to end; TTFT and TPOT are in ``llm``), else LoadGen's
    per query (a query is one request there)."""
    if point.endpoint is not None and point.endpoint.get("e2e_ms"):
        return dict(point.endpoint["e2e_ms"])
    return loadgen_latency_ms(point.parsed["latency_ns"])
