"""Where a batch's compute goes, operator by operator: ``torch.profiler`` over one batch, run after a run's points
are measured (never inside LoadGen's window, where the profiler's own overhead would be timed).

The block is the payload's ``profile``: the top operators by self time (device time on CUDA, CPU time elsewhere)
with their share of the batch's total self time. Backends that run outside PyTorch (ONNX Runtime, TensorRT) show
the profiler one opaque call: they are not profiled, and the block says so.
"""

from __future__ import annotations

import time

from torch.profiler import ProfilerActivity, profile

from .scenarios import Engine

TOP_OPERATORS = 10
OPAQUE_BACKENDS = {
    "onnxruntime": "ONNX Runtime runs its graph outside PyTorch: torch.profiler sees one opaque call",
    "tensorrt": "TensorRT runs its engine outside PyTorch: torch.profiler sees one opaque call",
}


def profiled_batch_size(points: list[dict]) -> int:
    """The largest batch a run's points formed (Offline's largest query batch, the Server's largest batch formed,
    1 in single-stream): a shape already run, so the profiled batch pays no first-call cost."""
    sizes = [int(size) for point in points for size in (point.get("batch_size_histogram") or {})]
    return max(sizes or [point["batch_size"] for point in points] or [1])


def profile_one_batch(engine: Engine, batch_size: int, top: int = TOP_OPERATORS) -> dict:
    """The ``profile`` block for one batch of ``batch_size`` samples; a failure to profile is stated, not raised
    (the run's measurements stand without it)."""
    block: dict = {"tool": "torch.profiler", "batch_size": batch_size, "device": engine.device}
    if engine.backend.name in OPAQUE_BACKENDS:
        return block | {"not_profiled": OPAQUE_BACKENDS[engine.backend.name]}
    on_device = engine.device == "cuda"
    activities = [ProfilerActivity.CPU] + ([ProfilerActivity.CUDA] if on_device else [])
    batch = engine.form_batch([i % len(engine.samples) for i in range(batch_size)])
    try:
        with profile(activities=activities) as prof:
            began = time.perf_counter_ns()
            engine.execute(batch)
            wall_ns = time.perf_counter_ns() - began
        events = prof.key_averages()
    except Exception as exc:  # noqa: BLE001 - stated in the block; the measured points do not depend on it
        return block | {"not_profiled": f"torch.profiler raised {type(exc).__name__}: {exc}"}
    attribute = "self_device_time_total" if on_device else "self_cpu_time_total"
    self_us = {event.key: (float(getattr(event, attribute)), int(event.count)) for event in events}
    total_us = sum(us for us, _ in self_us.values())
    if total_us <= 0:
        return block | {"not_profiled": "torch.profiler recorded no operator time for the batch"}
    ranked = sorted(self_us.items(), key=lambda item: item[1][0], reverse=True)[:top]
    return block | {
        "time_kind": "self_device" if on_device else "self_cpu",
        "total_self_ms": total_us / 1000,
        "wall_ms": wall_ns / 1e6,
        "operators": [
            {"name": name, "self_ms": us / 1000, "share": us / total_us, "calls": calls} for name, (us, calls) in ranked
        ],
    }
