"""An endpoint point's figures from its requests: client TTFT/TPOT/ITL, token totals from the server's
``usage``, errors, goodput under the SLOs, and the server's own timing beside the client's."""

from __future__ import annotations

from ..scenarios.settings import RunSettings
from ..stats import NS_PER_MS, latency_summary_ms, percentile
from .client import RequestRecord
from .metrics import Scrape, server_timing

MAX_ERROR_EXAMPLES = 3
# The client's and the server's figure of the same requests (mean TTFT, mean TPOT) disagree when one is more
# than this many times the other and they differ by more than CLIENT_SERVER_DIFF_MIN_MS: the client adds
# transport (so its TTFT is a little higher), but 4-6x, or a TPOT 100x below the server's, means the two
# time different things (e.g. a server that sends its tokens in one burst): shown, with both figures.
CLIENT_SERVER_RATIO_MAX = 2.0
CLIENT_SERVER_DIFF_MIN_MS = 0.5


def client_server_disagreements(client: dict[str, float | None], server: dict | None) -> list[dict]:
    """Each figure (``ttft``, ``tpot``) whose client mean and server mean disagree beyond the stated tolerance."""
    found = []
    for figure, client_ms in client.items():
        server_ms = (server or {}).get(f"{figure}_ms_mean")
        if client_ms is None or server_ms is None or client_ms <= 0 or server_ms <= 0:
            continue
        ratio = client_ms / server_ms
        if max(ratio, 1 / ratio) > CLIENT_SERVER_RATIO_MAX and abs(client_ms - server_ms) > CLIENT_SERVER_DIFF_MIN_MS:
            found.append({"figure": f"{figure}_ms_mean", "client_ms": client_ms, "server_ms": server_ms,
                          "ratio": ratio, "tolerance": f"within {CLIENT_SERVER_RATIO_MAX:g}x or "
                          f"{CLIENT_SERVER_DIFF_MIN_MS:g} ms"})  # fmt: skip
    return found


def _summary(values_ns) -> dict | None:
    return latency_summary_ms(values_ns) if values_ns else None


def is_good(record: RequestRecord, settings: RunSettings, generative: bool) -> bool:
    """A request that counts toward goodput: it succeeded and met every SLO."""
    if not record.ok:
        return False
    if not generative:
        return record.latency_ns <= settings.server_target_latency_ms * NS_PER_MS
    tpot_ns = record.tpot_ns
    return record.ttft_ns <= settings.llm_ttft_latency_ms * NS_PER_MS and (
        tpot_ns is None or tpot_ns <= settings.llm_tpot_latency_ms * NS_PER_MS
    )


def endpoint_block(
    records: list[RequestRecord], settings: RunSettings, generative: bool, before: Scrape | None, after: Scrape | None
) -> dict:
    ok = [r for r in records if r.ok]
    errors = [r.error for r in records if not r.ok]
    window_s = (max(r.done_ns for r in records) - min(r.sent_ns for r in records)) / 1e9 if records else 0.0
    good = [r for r in records if is_good(r, settings, generative)]
    output_tokens = sum(r.completion_tokens or 0 for r in ok)
    e2e_ns = [r.latency_ns for r in ok]
    ttft_ns = [r.ttft_ns for r in ok if r.ttft_ns is not None]
    tpot_ns = [r.tpot_ns for r in ok if r.tpot_ns is not None]
    itl_ns = [gap for r in ok for gap in r.inter_token_ns()]
    server = server_timing(before, after)
    client_e2e_mean_ms = sum(e2e_ns) / len(e2e_ns) / NS_PER_MS if e2e_ns else None
    server_timed_mean_ms = (server or {}).get("timed_ms_mean")
    transport_ms = None
    if client_e2e_mean_ms is not None and server_timed_mean_ms is not None:
        transport_ms = client_e2e_mean_ms - server_timed_mean_ms
    if generative:
        slo_met = bool(ttft_ns and tpot_ns) and (
            percentile(sorted(ttft_ns), 0.99) <= settings.llm_ttft_latency_ms * NS_PER_MS
            and percentile(sorted(tpot_ns), 0.99) <= settings.llm_tpot_latency_ms * NS_PER_MS
        )
    else:
        slo_met = bool(e2e_ns) and percentile(sorted(e2e_ns), 0.99) <= settings.server_target_latency_ms * NS_PER_MS
    ttft_summary, tpot_summary = _summary(ttft_ns), _summary(tpot_ns)
    client_means = {"ttft": (ttft_summary or {}).get("mean"), "tpot": (tpot_summary or {}).get("mean")}
    return {
        "requests": len(records),
        "errors": len(errors),
        "error_examples": list(dict.fromkeys(errors))[:MAX_ERROR_EXAMPLES],
        "prompt_tokens_total": sum(r.prompt_tokens or 0 for r in ok) if generative else None,
        "output_tokens_total": output_tokens if generative else None,
        "window_s": window_s,
        "request_throughput_per_s": len(ok) / window_s if window_s else 0.0,
        "output_tokens_per_s": output_tokens / window_s if window_s and generative else None,
        "e2e_ms": _summary(e2e_ns),
        "ttft_ms": ttft_summary,
        "tpot_ms": tpot_summary,
        "itl_ms": _summary(itl_ns),
        "slo": {
            "ttft_ms": settings.llm_ttft_latency_ms if generative else None,
            "tpot_ms": settings.llm_tpot_latency_ms if generative else None,
            "latency_ms": None if generative else settings.server_target_latency_ms,
        },
        "slo_met": slo_met,
        "good_requests": len(good),
        "goodput_requests_per_s": len(good) / window_s if window_s else 0.0,
        "goodput_output_tokens_per_s": (sum(r.completion_tokens or 0 for r in good) / window_s)
        if window_s and generative
        else None,
        "server": server,
        "client_server_disagreements": client_server_disagreements(client_means, server) if generative else [],
        "transport_ms_mean": transport_ms,
        "transport_share": transport_ms / client_e2e_mean_ms
        if transport_ms is not None and client_e2e_mean_ms
        else None,
    }
