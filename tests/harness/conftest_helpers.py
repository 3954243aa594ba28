"""Shared test settings (LoadGen runs short enough for a unit test suite) and test backends."""

import threading

import torch

from harness.backends.eager import EagerBackend
from harness.scenarios import RunSettings

FAST = RunSettings(
    min_duration_ms=200,
    min_query_count=16,
    warmup_queries=3,
    performance_sample_count=8,
    offline_batch_sizes=(1, 4),
    server_load_fractions=(0.5,),
    server_max_batch_size=4,
    accuracy_batch_size=2,
    preset="test",
)


class PerturbedEagerBackend(EagerBackend):
    """Eager PyTorch with ``offset`` added to every output: a backend whose error against the fp32
    reference the test chooses (the max abs error is ``offset`` plus the precision's own error)."""

    offset = 0.0

    def forward(self, *inputs) -> torch.Tensor:
        return super().forward(*inputs) + self.offset


def perturbed_eager(offset: float) -> type[PerturbedEagerBackend]:
    return type("PerturbedEagerBackend", (PerturbedEagerBackend,), {"offset": offset})


def break_offline_eager_forward(monkeypatch, *, on_batch: int = 6) -> None:
    """Eager PyTorch raises RuntimeError("backend broke mid-run") on its `on_batch`-th batch in LoadGen's offline
    worker thread ("offline-sut"): a backend that fails mid-run, everywhere else the real one."""
    calls, eager_forward = [], EagerBackend.forward

    def forward(self, *inputs):
        if threading.current_thread().name == "offline-sut":
            calls.append(1)
            if len(calls) == on_batch:
                raise RuntimeError("backend broke mid-run")
        return eager_forward(self, *inputs)

    monkeypatch.setattr(EagerBackend, "forward", forward)
