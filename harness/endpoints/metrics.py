"""The server's own timing, from its Prometheus metrics scraped before and after a point.

vLLM, Triton and KServe's Python model server export cumulative sums (histograms, or Triton's counters) of
the time they spend on requests, and counts of tokens and requests; the difference between two scrapes is what
the server saw of exactly the requests in between. The server's own time per request (its end-to-end time where
it measures one, else the sum of the stages it times) against the client's is the transport and serialisation
share.
"""

from __future__ import annotations

from dataclasses import dataclass

import httpx
from prometheus_client.parser import text_string_to_metric_families

# (our name, metric family, unit in seconds): histograms are read as sum/count; counters as a total.
VLLM_HISTOGRAMS = {
    "queue": ("vllm:request_queue_time_seconds", 1.0),
    "compute": ("vllm:request_inference_time_seconds", 1.0),
    "prefill": ("vllm:request_prefill_time_seconds", 1.0),
    "decode": ("vllm:request_decode_time_seconds", 1.0),
    "e2e": ("vllm:e2e_request_latency_seconds", 1.0),
    "ttft": ("vllm:time_to_first_token_seconds", 1.0),
    "itl": ("vllm:inter_token_latency_seconds", 1.0),
    "tpot": ("vllm:request_time_per_output_token_seconds", 1.0),
}
VLLM_COUNTERS = {
    "prompt_tokens": "vllm:prompt_tokens",
    "generation_tokens": "vllm:generation_tokens",
    "requests": "vllm:request_success",
}
# Triton's are cumulative counters of microseconds over all requests, not histograms.
TRITON_US_COUNTERS = {
    "queue": "nv_inference_queue_duration_us",
    "compute": "nv_inference_compute_infer_duration_us",
    "e2e": "nv_inference_request_duration_us",
}
TRITON_COUNTERS = {"requests": "nv_inference_request_success"}
# KServe's Python model server (kserve.metrics, on its HTTP port's /metrics) times the stages of its model's
# __call__, one histogram each, and nothing around them (no queue, no whole request): its requests are the
# predict histogram's count. Its explain histogram is left out: our client only ever calls infer.
KSERVE_HISTOGRAMS = {
    "preprocess": ("request_preprocess_seconds", 1.0),
    "compute": ("request_predict_seconds", 1.0),
    "postprocess": ("request_postprocess_seconds", 1.0),
}
# What a server times of each request, by source: its end-to-end time, or, where it has none, the stages it
# times one after the other (their means add up to the mean of their sum only over the same requests).
TIMED_STAGES = {
    "vllm": ("e2e",),
    "triton": ("e2e",),
    "kserve": ("preprocess", "compute", "postprocess"),
}


@dataclass(frozen=True)
class Scrape:
    source: str  # vllm | triton | kserve
    sums_s: dict[str, float]  # histogram sums (s) by our name
    counts: dict[str, float]  # histogram counts by our name
    totals: dict[str, float]  # counters by our name


def _families(text: str) -> dict[str, list]:
    families = {}
    for family in text_string_to_metric_families(text):
        families[family.name] = family.samples
    return families


def _histograms(families: dict[str, list], histograms: dict) -> tuple[dict[str, float], dict[str, float]]:
    """Sums (s) and counts by our name, each summed over the histogram's labels (models, engines)."""
    sums, counts = {}, {}
    for ours, (name, scale) in histograms.items():
        samples = families.get(name)
        if samples is None:
            continue
        sums[ours] = scale * sum(s.value for s in samples if s.name == f"{name}_sum")
        counts[ours] = sum(s.value for s in samples if s.name == f"{name}_count")
    return sums, counts


def parse_metrics(text: str) -> Scrape | None:
    """What we read from one exposition; None when it is not vLLM's, Triton's or KServe's."""
    families = _families(text)
    sums, counts, totals = {}, {}, {}
    if any(name.startswith("vllm:") for name in families):
        sums, counts = _histograms(families, VLLM_HISTOGRAMS)
        for ours, name in VLLM_COUNTERS.items():
            samples = families.get(name)
            if samples is not None:
                totals[ours] = sum(s.value for s in samples if s.name == f"{name}_total")
        return Scrape("vllm", sums, counts, totals)
    if any(name.startswith("nv_inference") for name in families):
        samples = [s for family in families.values() for s in family]

        def total(name: str) -> float:
            return sum(s.value for s in samples if s.name in (name, f"{name}_total"))

        requests = total(TRITON_COUNTERS["requests"])
        for ours, name in TRITON_US_COUNTERS.items():
            sums[ours], counts[ours] = total(name) / 1e6, requests
        totals["requests"] = requests
        return Scrape("triton", sums, counts, totals)
    if KSERVE_HISTOGRAMS["compute"][0] in families:
        # Declared at import, a histogram has no samples until its model's first request: zero until then.
        sums, counts = _histograms(families, KSERVE_HISTOGRAMS)
        return Scrape("kserve", sums, counts, {"requests": counts["compute"]})
    return None


def scrape(url: str, headers: dict | None = None, timeout_s: float = 10.0) -> Scrape | None:
    response = httpx.get(url, headers=headers or {}, timeout=timeout_s)
    response.raise_for_status()
    return parse_metrics(response.text)


def server_timing(before: Scrape | None, after: Scrape | None) -> dict | None:
    """Means (ms) of what the server timed between two scrapes, its token and request counts, and its own time
    per request (``timed_ms_mean``, the sum of the means of ``timed_stages``; None where a stage is missing or
    the stages were not timed over the same number of requests)."""
    if before is None or after is None or before.source != after.source:
        return None
    block: dict = {"source": after.source}
    counts = {}
    for ours in after.sums_s:
        counts[ours] = after.counts.get(ours, 0) - before.counts.get(ours, 0)
        total_s = after.sums_s[ours] - before.sums_s.get(ours, 0.0)
        block[f"{ours}_ms_mean"] = total_s * 1000 / counts[ours] if counts[ours] > 0 else None
    for ours in after.totals:
        block[ours] = int(round(after.totals[ours] - before.totals.get(ours, 0.0)))
    stages = TIMED_STAGES[after.source]
    means = [mean for stage in stages if (mean := block.get(f"{stage}_ms_mean")) is not None]
    complete = len(means) == len(stages) and len({counts.get(stage) for stage in stages}) == 1
    block["timed_stages"] = list(stages)
    block["timed_ms_mean"] = sum(means) if complete else None
    return block
