"""The Backend interface: how a workload's module is prepared and executed at a precision on a device."""

from __future__ import annotations

import contextlib
import warnings
from abc import ABC, abstractmethod
from typing import ClassVar

import torch
from torch import nn

PRECISIONS = ("fp32", "bf16", "fp16", "int8", "fp8")
FP8_MIN_CAPABILITY = (8, 9)


def cuda_available() -> bool:
    return torch.cuda.is_available()


def torch_precision_support(precision: str, device: str) -> tuple[bool, str]:
    """Whether plain PyTorch can run ``precision`` on ``device``; the reason says why not."""
    if precision not in PRECISIONS:
        return False, f"unknown precision {precision!r}; known: {', '.join(PRECISIONS)}"
    if device == "cuda" and not cuda_available():
        return False, "CUDA not available"
    if precision == "fp32":
        return True, ""
    if precision == "bf16":
        if device == "cuda" and not torch.cuda.is_bf16_supported():
            return False, "this GPU has no bf16 support"
        return True, ""
    if precision == "fp16":
        return (True, "") if device == "cuda" else (False, "fp16 runs on GPU only (CPU has no fast fp16 matmul)")
    if precision == "int8":
        if device != "cpu":
            return False, "int8 dynamic quantization (quantize_dynamic) runs on CPU only"
        return True, ""
    if device != "cuda" or torch.cuda.get_device_capability() < FP8_MIN_CAPABILITY:
        return False, "fp8 needs a GPU with compute capability >= 8.9 (Ada/Hopper)"
    try:
        import torchao.quantization  # noqa: F401
    except ImportError as exc:
        return False, f"fp8 runs through torchao, not installed here ({exc}; requirements-gpu.txt installs it)"
    return True, ""


def _fp8_able(module: nn.Module, _fqn: str) -> bool:
    # torch._scaled_mm, under torchao's fp8 linear, needs both dimensions to be multiples of 16.
    return isinstance(module, nn.Linear) and module.in_features % 16 == 0 and module.out_features % 16 == 0


def quantize_fp8(module: nn.Module) -> nn.Module:
    """fp8 (e4m3) weights and dynamically quantized fp8 activations, scaled per row, on the Linear layers whose
    shapes fp8 matmuls take; the rest runs in bf16. torchao's recipe (Float8DynamicActivationFloat8WeightConfig)
    on a GPU of compute capability >= 8.9 (Ada, Hopper): chosen over TensorRT's fp8, which needs Q/DQ nodes
    inserted by another tool (NVIDIA ModelOpt) before the engine build."""
    from torchao.quantization import Float8DynamicActivationFloat8WeightConfig, PerRow, quantize_

    module = module.to(torch.bfloat16)
    quantize_(module, Float8DynamicActivationFloat8WeightConfig(granularity=PerRow()), filter_fn=_fp8_able)
    return module


def quantize_int8(module: nn.Module) -> nn.Module:
    """Dynamic int8 quantization of Linear layers (weights int8, activations quantized per batch).

    Only the linear layers, as a practitioner would: embeddings, convolutions and LayerNorm stay fp32.
    fbgemm's dynamic linear quantizes activations to a 7-bit range (``reduce_range=True``) so that its
    u8s8 products cannot saturate on CPUs without VNNI: the error does not depend on the CPU's ISA
    (the tiny encoder's max abs error on an AVX2-only CPU: 0.025, tolerance 0.1). ONNX Runtime's int8
    path makes the same choice (see ``onnxruntime_backend.quantize_int8_onnx``).

    ``torch.ao.quantization`` warns that it is moving to torchao; we keep it deliberately because it
    ships with torch (no extra dependency) and still produces real int8 kernels on CPU.
    """
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", DeprecationWarning)
        warnings.filterwarnings("ignore", message=".*quantize_per_tensor.*")
        return torch.ao.quantization.quantize_dynamic(module, {nn.Linear}, dtype=torch.qint8)


def autocast_for(precision: str, device: str):
    """Autocast context for bf16/fp16 (and fp8, whose layers outside fp8 run in bf16); a null context otherwise."""
    if precision in ("bf16", "fp16", "fp8"):
        dtype = torch.float16 if precision == "fp16" else torch.bfloat16
        return torch.autocast(device_type=device, dtype=dtype)
    return contextlib.nullcontext()


class OutsideProfile(ValueError):
    """A batch the backend's compiled engine does not cover (TensorRT's optimisation profile)."""


class Backend(ABC):
    """Prepares a module once (``load``) then runs batches (``forward``); outputs are torch tensors."""

    name: ClassVar[str]
    # The largest batch the loaded backend runs (None: any); an item asking for more fails before measuring.
    max_batch: int | None = None

    def __init__(self, precision: str = "fp32", device: str = "cpu"):
        self.precision = precision
        self.device = device
        self.module: nn.Module | None = None

    @classmethod
    def supports(cls, precision: str, device: str) -> tuple[bool, str]:
        """Whether this backend can run ``precision`` on ``device`` here, and why not."""
        return torch_precision_support(precision, device)

    @classmethod
    def supports_workload(cls, model_class: str) -> tuple[bool, str]:
        """Whether this backend can run a model class (generation loops are not exportable everywhere)."""
        return True, ""

    @abstractmethod
    def load(self, model: nn.Module, example: tuple[torch.Tensor, ...]) -> None:
        """Prepare ``model`` (fp32, eval mode) for ``self.precision``; ``example`` is a sample batch."""

    @abstractmethod
    def forward(self, *inputs) -> torch.Tensor:
        """Run one batch; blocks until the result is ready on the host or device."""

    def synchronize(self) -> None:
        if self.device == "cuda":
            torch.cuda.synchronize()

    def close(self) -> None:
        """Release resources (sessions, graphs, temp files); nothing to release by default."""
        return None
