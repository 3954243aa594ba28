"""Where a batch's compute goes, operator by operator: ``torch.profiler`` over one batch, run after a run's points
are measured (never inside LoadGen's window, where the profiler's own overhead would be timed).

The block is the payload's ``profile``: on the CPU the top operators by self CPU time, on CUDA the top device
activities (kernels, copies) by device time, each with its share of the batch's total. Backends that run outside
PyTorch (ONNX Runtime, TensorRT) show the profiler one opaque call: they are not profiled, and the block says so.
"""

from __future__ import annotations

import time

from torch.autograd import DeviceType
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
    self_us = _self_time_by_key(events, on_device)
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


LONGEST_NAME = 120  # a kernel's demangled C++ name can run to a thousand characters


def _self_time_by_key(events, on_device: bool) -> dict[str, tuple[float, int]]:
    """Self time per operator (CPU) or per device activity (CUDA: kernels, copies, sets), each microsecond once.

    On CUDA the device's own events are read, not the operators' self device time: kineto hands a kernel's time
    to every CPU-side event linked to its launch, and that is not only the operator that launched it (on an H100
    the first copy of a batch was credited to both ``aten::copy_`` and kineto's "Activity Buffer Request"; see
    pytorch/pytorch#60783 for wrappers). A CUDA graph's replayed kernels, which no operator launched, count too.
    GPU user annotations span kernels already counted and are left out (torch's own table does the same)."""
    if not on_device:
        return {event.key: (float(event.self_cpu_time_total), int(event.count)) for event in events}
    by_key: dict[str, tuple[float, int]] = {}
    for event in events:
        if event.device_type == DeviceType.CPU or event.is_user_annotation or event.self_device_time_total <= 0:
            continue
        name = event.key if len(event.key) <= LONGEST_NAME else event.key[: LONGEST_NAME - 3] + "..."
        us, count = by_key.get(name, (0.0, 0))
        by_key[name] = (us + float(event.self_device_time_total), count + int(event.count))
    return by_key
