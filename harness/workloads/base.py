"""The Workload interface: a reference architecture at a named size, with seeded weights and inputs."""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Callable
from typing import Any, ClassVar

import torch
from torch import nn
from torch.utils.flop_counter import FlopCounterMode

import workloads as registry

WEIGHT_SEED = 1234


class Workload(ABC):
    """One model class at one size.

    Subclasses declare ``model_class`` and ``SIZES`` (size name -> architecture config) and build the
    module in ``_build``. Weights are random but seeded, so every host measures the same network.
    """

    model_class: ClassVar[str]
    SIZES: ClassVar[dict[str, dict[str, Any]]]
    # True when the output's argmax (or sign, for a single logit) is a decision worth comparing.
    has_decision: ClassVar[bool] = True

    def __init__(self, size: str = "tiny"):
        if size not in self.SIZES:
            raise ValueError(f"unknown size {size!r} for {self.model_class}; known: {sorted(self.SIZES)}")
        self.size = size
        self.config = dict(self.SIZES[size])

    @property
    def registry_workload(self) -> registry.Workload:
        """The registered workload this model class at this size is (its id names every result)."""
        return registry.for_harness(self.model_class, self.size)

    @property
    def name(self) -> str:
        """The registry id, e.g. ``resnet50`` or ``tabular-tiny``."""
        return self.registry_workload.id

    @abstractmethod
    def _build(self) -> nn.Module:
        """Construct the module from ``self.config`` (called under a seeded RNG and a device)."""

    @abstractmethod
    def example_inputs(self, batch_size: int, seed: int = 0, device: str = "cpu") -> tuple[torch.Tensor, ...]:
        """Seeded inputs for ``batch_size`` inferences; the batch dimension is always dim 0."""

    def build(self, device: str | torch.device = "cpu") -> nn.Module:
        """The module in eval mode with seeded weights (``device='meta'`` allocates nothing)."""
        torch.manual_seed(WEIGHT_SEED)
        with torch.device(device):
            model = self._build()
        return model.eval()

    def infer(self, forward: Callable, module: nn.Module, inputs: tuple, on_first_token=None) -> torch.Tensor:
        """One inference of a batch through ``forward``; generative workloads override this."""
        return forward(*inputs)

    def guard_output(self, forward: Callable, module: nn.Module, inputs: tuple) -> torch.Tensor:
        """The tensor the accuracy guard compares (the model's output, or next-token logits)."""
        return forward(*inputs)

    def output_tokens(self) -> int:
        """Generated tokens per inference (0 for non-generative workloads)."""
        return 0

    def prompt_tokens(self) -> int:
        """Prompt tokens per inference (0 for non-generative workloads)."""
        return 0

    @staticmethod
    def parameter_count(model: nn.Module) -> int:
        return sum(p.numel() for p in model.parameters())

    @staticmethod
    def weight_bytes(model: nn.Module) -> int:
        """Bytes of the state dict: parameters and persistent buffers (KV caches are non-persistent)."""
        return sum(t.numel() * t.element_size() for t in model.state_dict().values() if torch.is_tensor(t))

    def flops_per_inference(self, model: nn.Module | None = None, device: str = "meta") -> int:
        """FLOPs of one batch-1 inference, counted by FlopCounterMode (works on the meta device)."""
        model = model if model is not None else self.build(device)
        inputs = self.example_inputs(1, device=device)
        counter = FlopCounterMode(display=False)
        with torch.no_grad(), counter:
            self.infer(model, model, inputs)
        return int(counter.get_total_flops())
