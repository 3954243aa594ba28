"""The serving engines' standard Prometheus counters, by engine: the only place their names are spelled.

vLLM (docs.vllm.ai, "Production Metrics"): ``vllm:prompt_tokens_total``, ``vllm:generation_tokens_total``,
``vllm:request_success_total``. Triton / KServe (Triton's metrics docs): ``nv_inference_request_success``
counts requests and ``nv_inference_count`` inferences (a batch of 8 is one request, eight inferences); Triton
serves no token counters, so a Triton deployment is metered in inferences.
"""

from dataclasses import dataclass


@dataclass(frozen=True)
class EngineCounters:
    requests: str
    prompt_tokens: str | None
    generation_tokens: str | None
    inferences: str | None


ENGINE_COUNTERS = {
    "vllm": EngineCounters(
        requests="vllm:request_success_total",
        prompt_tokens="vllm:prompt_tokens_total",
        generation_tokens="vllm:generation_tokens_total",
        inferences=None,
    ),
    "triton": EngineCounters(
        requests="nv_inference_request_success",
        prompt_tokens=None,
        generation_tokens=None,
        inferences="nv_inference_count",
    ),
}
ENGINE_CHOICES = [(name, name) for name in ENGINE_COUNTERS]
