"""PyTorch eager execution, and torch.compile on top of it."""

from __future__ import annotations

import torch
from torch import nn

from .base import Backend, autocast_for, quantize_fp8, quantize_int8


class EagerBackend(Backend):
    name = "eager"

    def load(self, model: nn.Module, example: tuple[torch.Tensor, ...]) -> None:
        model = model.to(self.device)
        quantize = {"int8": quantize_int8, "fp8": quantize_fp8}.get(self.precision)
        self.module = quantize(model) if quantize is not None else model
        self._callable = self.module

    def forward(self, *inputs) -> torch.Tensor:
        with torch.no_grad(), autocast_for(self.precision, self.device):
            return self._callable(*inputs)


class CompileBackend(EagerBackend):
    """``torch.compile`` (Inductor). Compilation happens lazily on the first batches, which the
    scenario's warm-up absorbs; on a 2-core CPU the first compile takes tens of seconds."""

    name = "compile"

    def load(self, model: nn.Module, example: tuple[torch.Tensor, ...]) -> None:
        super().load(model, example)
        self._callable = torch.compile(self.module, dynamic=False)
