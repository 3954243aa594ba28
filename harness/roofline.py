"""The roofline: the two ceilings a device puts on a model's throughput. One rule, read by the latency split of a
run's p99 (harness.latency_layers) and by purchase advice's optimisation runway (accounting.recommendations).

    compute ceiling = peak FLOP/s / FLOPs of one inference                                    (inferences/s)
    memory ceiling  = bandwidth (bytes/s) x batch / (weight bytes x forward passes per inference)
                      (a batch reads the weights once per forward pass; an inference takes one pass, an LLM
                      request one per output token)

The lower ceiling binds; at a tie, compute. Said the other way round: a batch is memory-bound when its arithmetic
intensity (FLOPs per weight byte read) is below the device's ridge point (peak FLOP/s per byte/s). Activations and
the KV cache are left out of the bytes read, so the memory ceiling is an upper bound.
"""

from __future__ import annotations

from dataclasses import dataclass

COMPUTE, MEMORY = "compute", "memory"


@dataclass(frozen=True)
class Roofline:
    flops_per_inference: float | None
    weight_bytes: float | None
    peak_tflops: float | None  # at the run's precision
    memory_bandwidth_gbps: float | None
    passes_per_inference: int = 1

    def ceilings_per_s(self, batch_size: int) -> dict[str, float]:
        """Each ceiling the figures allow, in inferences/s (compute first)."""
        ceilings = {}
        if self.peak_tflops and self.flops_per_inference:
            ceilings[COMPUTE] = self.peak_tflops * 1e12 / self.flops_per_inference
        if self.memory_bandwidth_gbps and self.weight_bytes:
            bytes_per_batch = self.weight_bytes * self.passes_per_inference
            ceilings[MEMORY] = self.memory_bandwidth_gbps * 1e9 * batch_size / bytes_per_batch
        return ceilings

    def binding(self, batch_size: int) -> tuple[str, float] | None:
        """(which ceiling binds, its inferences/s), or None when the figures allow neither."""
        return _lowest(self.ceilings_per_s(batch_size))

    def intensity(self, batch_size: int) -> dict | None:
        """The batch's arithmetic intensity against the ridge point, and which ceiling binds; None without all four
        figures."""
        ceilings = self.ceilings_per_s(batch_size)
        if len(ceilings) < 2:
            return None
        intensity = self.flops_per_inference * batch_size / (self.weight_bytes * self.passes_per_inference)
        ridge = self.peak_tflops * 1e12 / (self.memory_bandwidth_gbps * 1e9)
        return {"batch_size": batch_size, "intensity_flops_per_byte": intensity, "ridge_flops_per_byte": ridge,
                "bound": _lowest(ceilings)[0]}  # fmt: skip


def output_tokens_per_request(point: dict | None) -> int | None:
    """The output tokens one request of an LLM point makes (its ``llm`` block, as the result schema writes it): the
    forward passes one inference takes. None for a point that states none (not an LLM's, or not recorded)."""
    tokens = ((point or {}).get("llm") or {}).get("output_tokens")
    return int(tokens) if tokens else None


def _lowest(ceilings: dict[str, float]) -> tuple[str, float] | None:
    if not ceilings:
        return None
    bound = min(ceilings, key=ceilings.__getitem__)  # the first of equals: compute
    return bound, ceilings[bound]
