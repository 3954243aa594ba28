"""Shared test settings (LoadGen runs short enough for a unit test suite) and test backends."""

import torch

from agents.harness.backends.eager import EagerBackend
from agents.harness.scenarios import RunSettings

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
