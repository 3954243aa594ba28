"""TensorRT: ONNX export, an engine built with an optimisation profile over batch sizes, run on torch
CUDA tensors through ``execute_async_v3``. Available only where ``import tensorrt`` works and CUDA is up."""

from __future__ import annotations

import os
import tempfile

import torch
from torch import nn

from .base import Backend
from .onnxruntime_backend import batch_axes, export_onnx, exports_to_onnx

MAX_BATCH = 64
WORKSPACE_BYTES = 4 << 30


def _tensorrt():
    import tensorrt

    return tensorrt


class TensorRTBackend(Backend):
    name = "tensorrt"

    @classmethod
    def supports(cls, precision: str, device: str) -> tuple[bool, str]:
        try:
            _tensorrt()
        except ImportError as exc:
            return False, f"tensorrt not installed ({exc})"
        if device != "cuda" or not torch.cuda.is_available():
            return False, "CUDA not available"
        if precision in ("fp32", "fp16", "bf16"):
            return True, ""
        return False, f"{precision} needs a calibration/quantization recipe that this backend does not run"

    @classmethod
    def supports_workload(cls, model_class: str) -> tuple[bool, str]:
        return exports_to_onnx(model_class, "a TensorRT engine")

    def load(self, model: nn.Module, example: tuple[torch.Tensor, ...]) -> None:
        trt = _tensorrt()
        with tempfile.TemporaryDirectory(prefix="inferledger-trt-") as tmp:
            path = os.path.join(tmp, "model.onnx")
            names = [f"input_{i}" for i in range(len(example))]
            export_onnx(model, example, path, names, batch_axes(names))
            logger = trt.Logger(trt.Logger.WARNING)
            builder = trt.Builder(logger)
            network = builder.create_network(0)
            parser = trt.OnnxParser(network, logger)
            if not parser.parse_from_file(path):
                errors = [str(parser.get_error(i)) for i in range(parser.num_errors)]
                raise RuntimeError("TensorRT could not parse the ONNX export: " + "; ".join(errors))
        config = builder.create_builder_config()
        config.set_memory_pool_limit(trt.MemoryPoolType.WORKSPACE, WORKSPACE_BYTES)
        if self.precision == "fp16":
            config.set_flag(trt.BuilderFlag.FP16)
        elif self.precision == "bf16":
            config.set_flag(trt.BuilderFlag.BF16)
        profile = builder.create_optimization_profile()
        for name, tensor in zip(names, example, strict=True):
            rest = tuple(tensor.shape[1:])
            profile.set_shape(name, (1, *rest), (tensor.shape[0], *rest), (MAX_BATCH, *rest))
        config.add_optimization_profile(profile)
        serialized = builder.build_serialized_network(network, config)
        if serialized is None:
            raise RuntimeError("TensorRT engine build failed")
        self.engine = trt.Runtime(logger).deserialize_cuda_engine(serialized)
        self.context = self.engine.create_execution_context()
        self._names = names
        self._stream = torch.cuda.Stream()

    def forward(self, *inputs) -> torch.Tensor:
        trt = _tensorrt()
        for name, tensor in zip(self._names, inputs, strict=True):
            tensor = tensor.to("cuda").contiguous()
            if tensor.dtype == torch.int64:
                tensor = tensor.to(torch.int32) if self.engine.get_tensor_dtype(name) == trt.int32 else tensor
            self.context.set_input_shape(name, tuple(tensor.shape))
            self.context.set_tensor_address(name, tensor.data_ptr())
        out_shape = tuple(self.context.get_tensor_shape("output"))
        output = torch.empty(out_shape, dtype=torch.float32, device="cuda")
        self.context.set_tensor_address("output", output.data_ptr())
        self.context.execute_async_v3(self._stream.cuda_stream)
        self._stream.synchronize()
        return output
