"""A stored run's latency layers: the p99 of each of its points split by ``harness.latency_layers.split_p99``,
fed with the run's payload (exactly as ingested) and the catalog's figures for its accelerator."""

from __future__ import annotations

from harness.latency_layers import LatencyLayers, MemoryModel, split_p99
from harness.roofline import output_tokens_per_request

from .models import BenchmarkRun, RunOrigin


class NoLatencyLayers(ValueError):
    """A run whose p99 cannot be split (a published result: MLPerf publishes no per-request timing)."""


def memory_model(run: BenchmarkRun, point: dict) -> MemoryModel:
    """The catalog's bandwidth and peak for the run's accelerator, the run's weight bytes and FLOPs, and the
    forward passes per batch (an LLM's generation reads the weights once per output token)."""
    accelerator = run.accelerator
    passes = output_tokens_per_request(point) or 1
    return MemoryModel(
        accelerator=str(accelerator),
        weight_bytes=run.weight_bytes,
        memory_bandwidth_gbps=accelerator.memory_bandwidth_gbps,
        passes_per_batch=max(1, passes),
        flops_per_inference=run.flops_per_inference,
        peak_tflops=accelerator.peak_tflops(run.precision),
    )


def run_latency_layers(run: BenchmarkRun) -> list[LatencyLayers]:
    """Each point's split, in the order of the run's points."""
    return [point_latency_layers(run, index) for index in range(len(_points(run)))]


def point_latency_layers(run: BenchmarkRun, index: int) -> LatencyLayers:
    point = _points(run)[index]
    return split_p99(point, scenario=run.scenario, memory=memory_model(run, point), profile=run.payload.get("profile"))


def _points(run: BenchmarkRun) -> list[dict]:
    if run.origin != RunOrigin.MEASURED:
        raise NoLatencyLayers("a published result states no per-request timing: its p99 cannot be split")
    return (run.payload or {}).get("points") or []
