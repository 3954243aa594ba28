"""The SUT's execution core: pre-generated samples, batch formation and timed execution.

Host-to-device and device-to-host copies are timed separately (with ``torch.cuda.synchronize``) when
the backend runs on CUDA; on CPU they are absent and compute is the whole forward pass. On CUDA the samples and
every batch formed from them sit in pinned (page-locked) host memory, as a tuned SUT keeps them: a copy from
pageable memory is staged through a driver buffer by the CPU. On an H100 it was 35-38 % of ResNet-50's device
time at batch 32 (fp16), and its host-side jitter made the rounds of small models disagree.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable
from dataclasses import dataclass

import torch

from ..backends import Backend
from ..workloads import Workload


@dataclass
class ExecTiming:
    h2d_ns: int | None
    compute_ns: int
    d2h_ns: int | None
    output: torch.Tensor


def _concatenated(column: tuple[torch.Tensor, ...], pinned: bool) -> torch.Tensor:
    if not pinned:
        return torch.cat(column)
    # From the caching host allocator: a pinned block is reused once the copy that read it has completed.
    first = column[0]
    rows = sum(t.shape[0] for t in column)
    return torch.cat(column, out=torch.empty((rows, *first.shape[1:]), dtype=first.dtype, pin_memory=True))


class Engine:
    """Binds a loaded backend to a workload and a library of batch-1 samples (LoadGen's QSL)."""

    def __init__(self, workload: Workload, backend: Backend, sample_count: int, seed: int = 0):
        self.workload, self.backend = workload, backend
        self.device = backend.device
        self.samples = [workload.example_inputs(1, seed=seed + i) for i in range(sample_count)]
        if self.device == "cuda":
            self.samples = [tuple(t.pin_memory() for t in sample) for sample in self.samples]
        self.is_generative = workload.output_tokens() > 0
        # The intra-op thread count in force when the engine is built (the run's setting) must hold in every
        # thread that executes batches: OpenMP keeps the count per thread, so MKL called from a fresh thread
        # (LoadGen's, the batcher's, the offline worker's) would use every core and contend with LoadGen.
        self.intra_op_threads = torch.get_num_threads()
        self._thread_configured = threading.local()

    def form_batch(self, indices: list[int]) -> tuple[torch.Tensor, ...]:
        if len(indices) == 1:
            return self.samples[indices[0]]
        parts = [self.samples[i] for i in indices]
        return tuple(_concatenated(column, pinned=self.device == "cuda") for column in zip(*parts, strict=True))

    def execute(self, batch: tuple[torch.Tensor, ...], on_first_token: Callable | None = None) -> ExecTiming:
        """Run one batch; the output is on the host when this returns."""
        if not getattr(self._thread_configured, "done", False):
            torch.set_num_threads(self.intra_op_threads)
            self._thread_configured.done = True
        clock = time.perf_counter_ns
        h2d_ns = d2h_ns = None
        if self.device == "cuda":
            t0 = clock()
            batch = tuple(t.to("cuda", non_blocking=True) for t in batch)
            torch.cuda.synchronize()
            h2d_ns = clock() - t0
        t0 = clock()
        output = self.workload.infer(self.backend.forward, self.backend.module, batch, on_first_token)
        self.backend.synchronize()
        compute_ns = clock() - t0
        if self.device == "cuda":
            t0 = clock()
            output = output.cpu()
            torch.cuda.synchronize()
            d2h_ns = clock() - t0
        return ExecTiming(h2d_ns, compute_ns, d2h_ns, output)

    def median_latency_ns(self, batch_size: int, repeats: int) -> int:
        """Warm the backend and return the median wall time of ``repeats`` batches of ``batch_size``."""
        indices = [i % len(self.samples) for i in range(batch_size)]
        batch = self.form_batch(indices)
        times = []
        for _ in range(max(1, repeats)):
            t0 = time.perf_counter_ns()
            self.execute(batch)
            times.append(time.perf_counter_ns() - t0)
        times.sort()
        return times[len(times) // 2]

    def throughput_per_s(self, batch_size: int, window_s: float, min_batches: int = 3, max_windows: int = 10) -> float:
        """Samples/s of back-to-back batches (formation + execution), once it has settled.

        Used to size LoadGen's Offline query and the Server rate scale; it includes the per-batch
        Python overhead a tight single-batch timing would miss. A new batch shape can run slowly for a
        few hundred ms on CPU (kernel selection, thread-pool wake-up), so windows of ``window_s`` are
        repeated until two consecutive rates agree within 15% (at most ``max_windows``).
        """
        previous = 0.0
        for _ in range(max_windows):
            start, batches, offset = time.perf_counter_ns(), 0, 0
            deadline = start + int(window_s * 1e9)
            while batches < min_batches or time.perf_counter_ns() < deadline:
                indices = [(offset + i) % len(self.samples) for i in range(batch_size)]
                self.execute(self.form_batch(indices))
                batches, offset = batches + 1, offset + batch_size
            rate = batches * batch_size / ((time.perf_counter_ns() - start) / 1e9)
            if previous and abs(rate - previous) <= 0.15 * max(rate, previous):
                return (rate + previous) / 2
            previous = rate
        return previous
