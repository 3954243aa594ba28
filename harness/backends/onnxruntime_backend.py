"""ONNX Runtime: the module is exported with the TorchScript exporter and run by an InferenceSession.

int8 is ONNX Runtime's dynamic quantization (``quantize_int8_onnx``): what a practitioner quantizes,
the linear layers, with weights that fit the int8 kernels of every x86-64 CPU (see its docstring).
"""

from __future__ import annotations

import os
import tempfile
import warnings

import torch
from torch import nn

from .base import Backend, cuda_available


def _onnxruntime():
    import onnxruntime

    return onnxruntime


def batch_axes(input_names: list[str]) -> dict:
    """Dynamic batch dimension on every input and on the output."""
    return {name: {0: "batch"} for name in input_names} | {"output": {0: "batch"}}


def exports_to_onnx(model_class: str, target: str) -> tuple[bool, str]:
    """Whether ``export_onnx`` can export a model class (for ONNX Runtime, or a TensorRT engine built from it)."""
    if model_class == "llm-decoder":
        return False, f"the KV-cache generation loop is not exported to {target}"
    return True, ""


def export_onnx(model: nn.Module, example: tuple, path: str, names: list[str], axes: dict) -> None:
    """TorchScript-based export (``dynamo=False``): chosen deliberately because it needs only the
    ``onnx`` package, not ``onnxscript``; its deprecation and tracer warnings are expected here."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", DeprecationWarning)
        warnings.simplefilter("ignore", torch.jit.TracerWarning)
        torch.onnx.export(
            model.cpu(),
            tuple(t.cpu() for t in example),
            path,
            input_names=names,
            output_names=["output"],
            dynamic_axes=axes,
            dynamo=False,
        )


# The linear layers: nn.Linear exports as MatMul (Gemm for 2-D inputs). Embedding gathers, convolutions
# and LayerNorm stay fp32, as in torch's quantize_dynamic({nn.Linear}); activation-by-activation MatMuls
# (attention scores) are never quantized by the dynamic quantizer (it needs a constant weight).
INT8_OP_TYPES = ("MatMul", "Gemm")


def quantize_int8_onnx(path: str, quantized_path: str) -> None:
    """Dynamic int8 quantization of the linear layers: int8 weights (per tensor, 7-bit range), uint8
    activations quantized per batch at run time.

    ``reduce_range=True`` (7-bit weights, [-64, 64]) because ONNX Runtime's u8s8 kernel on x86-64 CPUs
    without VNNI (AVX2, and AVX-512 before VNNI) multiplies with ``vpmaddubsw``, whose int16 pair sums
    saturate with full-range weights; with VNNI or AMX they accumulate in int32 and do not. Full-range
    weights therefore give a CPU-dependent error: on an AVX2-only AMD EPYC the tiny encoder's max abs
    error was 0.297 against a tolerance of 0.1 (quantizing only the linear layers did not change it:
    0.297), with 7-bit weights 0.013. ONNX Runtime's quantization guide recommends reduce_range for
    non-VNNI machines, and torch's fbgemm dynamic linear (``reduce_range=True``) narrows its activations
    for the same reason. One setting for every x86-64 CPU keeps the int8 arithmetic the same everywhere.
    """
    from onnxruntime.quantization import QuantType, quantize_dynamic

    quantize_dynamic(
        path,
        quantized_path,
        weight_type=QuantType.QInt8,
        op_types_to_quantize=list(INT8_OP_TYPES),
        reduce_range=True,
    )


class OnnxRuntimeBackend(Backend):
    name = "onnxruntime"

    @classmethod
    def supports(cls, precision: str, device: str) -> tuple[bool, str]:
        try:
            ort = _onnxruntime()
        except ImportError as exc:
            return False, f"onnxruntime not installed ({exc})"
        if device == "cuda":
            if not cuda_available():
                return False, "CUDA not available"
            if "CUDAExecutionProvider" not in ort.get_available_providers():
                return False, "onnxruntime has no CUDAExecutionProvider (install onnxruntime-gpu)"
        if precision == "fp32":
            return True, ""
        if precision == "int8" and device == "cpu":
            return True, ""
        return False, f"{precision} is not wired for onnxruntime on {device} (fp32, and int8 on CPU, are)"

    @classmethod
    def supports_workload(cls, model_class: str) -> tuple[bool, str]:
        return exports_to_onnx(model_class, "ONNX")

    # Execution providers by device; a user's ONNX file on the tensorrt backend puts TensorRT's first.
    execution_providers: tuple[str, ...] | None = None

    def load(self, model: nn.Module, example: tuple[torch.Tensor, ...]) -> None:
        ort = _onnxruntime()
        self._tmp = tempfile.TemporaryDirectory(prefix="inferledger-onnx-")
        if hasattr(model, "onnx_file_path"):  # a user's ONNX file (workloads.file.OnnxFile): run it as it is
            path, names, self._outputs = model.onnx_file_path, list(model.input_names), None
        else:
            path = os.path.join(self._tmp.name, "model.onnx")
            names, self._outputs = [f"input_{i}" for i in range(len(example))], ["output"]
            export_onnx(model, example, path, names, batch_axes(names))
        if self.precision == "int8":
            quantized = os.path.join(self._tmp.name, "model.int8.onnx")
            quantize_int8_onnx(path, quantized)
            path = quantized
        providers = self.execution_providers or (
            ["CUDAExecutionProvider"] if self.device == "cuda" else ["CPUExecutionProvider"]
        )
        options = ort.SessionOptions()
        options.intra_op_num_threads = torch.get_num_threads()
        self.session = ort.InferenceSession(path, options, providers=providers)
        self._names = names

    def forward(self, *inputs) -> torch.Tensor:
        feeds = {n: t.detach().cpu().numpy() for n, t in zip(self._names, inputs, strict=True)}
        return torch.from_numpy(self.session.run(self._outputs, feeds)[0])

    def close(self) -> None:
        tmp = getattr(self, "_tmp", None)
        if tmp is not None:
            tmp.cleanup()
