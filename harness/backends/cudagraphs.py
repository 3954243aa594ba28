"""CUDA graphs: each batch shape is captured once with static buffers and replayed per batch."""

from __future__ import annotations

import torch
from torch import nn

from .base import Backend, autocast_for, torch_precision_support


class CudaGraphsBackend(Backend):
    name = "cudagraphs"
    WARMUP_ITERATIONS = 3

    @classmethod
    def supports(cls, precision: str, device: str) -> tuple[bool, str]:
        if device != "cuda" or not torch.cuda.is_available():
            return False, "CUDA not available"
        return torch_precision_support(precision, device)

    @classmethod
    def supports_workload(cls, model_class: str) -> tuple[bool, str]:
        if model_class == "llm-decoder":
            return False, "the decode loop's growing KV-cache slice is not graph-capturable as written"
        return True, ""

    def load(self, model: nn.Module, example: tuple[torch.Tensor, ...]) -> None:
        self.module = model.to(self.device)
        self._graphs: dict[tuple, tuple[torch.cuda.CUDAGraph, list[torch.Tensor], torch.Tensor]] = {}
        self._capture(tuple(t.to(self.device) for t in example))

    def _capture(self, inputs: tuple[torch.Tensor, ...]):
        static_inputs = [t.clone() for t in inputs]
        stream = torch.cuda.Stream()
        stream.wait_stream(torch.cuda.current_stream())
        with torch.cuda.stream(stream), torch.no_grad(), autocast_for(self.precision, self.device):
            for _ in range(self.WARMUP_ITERATIONS):
                self.module(*static_inputs)
        torch.cuda.current_stream().wait_stream(stream)
        graph = torch.cuda.CUDAGraph()
        with torch.cuda.graph(graph), torch.no_grad(), autocast_for(self.precision, self.device):
            static_output = self.module(*static_inputs)
        entry = (graph, static_inputs, static_output)
        self._graphs[tuple(tuple(t.shape) for t in inputs)] = entry
        return entry

    def forward(self, *inputs) -> torch.Tensor:
        key = tuple(tuple(t.shape) for t in inputs)
        entry = self._graphs.get(key) or self._capture(tuple(t.to(self.device) for t in inputs))
        graph, static_inputs, static_output = entry
        for dst, src in zip(static_inputs, inputs, strict=True):
            dst.copy_(src, non_blocking=True)
        graph.replay()
        return static_output
