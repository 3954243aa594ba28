"""TensorRT: ONNX export, an engine built with an optimisation profile over batch sizes, run on torch
CUDA tensors through ``execute_async_v3``. Available only where ``import tensorrt`` works and CUDA is up.

Engines are cached on disk, keyed by everything that makes an engine: the exported model (its ONNX bytes),
the precision, the input shapes and the profile's batch range, the TensorRT version and the device (name and
compute capability). A second item of the same model, precision and shapes loads the engine instead of
building it again (minutes for a large model); the builder's timing cache (keyed by TensorRT version and
device) is kept beside it, so even a new engine reuses the kernel timings measured before.

Every batch must lie inside the optimisation profile (1..``MAX_BATCH``); outside it TensorRT would refuse
the shape and, unchecked, the point would time no compute. Each shape and address call and each enqueue is
checked: a refusal raises with the reason, and the item fails instead of reporting a fast result.
"""

from __future__ import annotations

import hashlib
import json
import os
import tempfile
from pathlib import Path

import torch
from torch import nn

from .base import Backend, OutsideProfile
from .onnxruntime_backend import batch_axes, export_onnx, exports_to_onnx

# The profile's largest batch: the publishable suite's largest Offline batch (tests/harness/test_backends_cpu.py
# holds the two together; backends sit below scenarios, so this cannot read the preset).
MAX_BATCH = 128
WORKSPACE_BYTES = 4 << 30
CACHE_DIR_ENV = "INFERLEDGER_TENSORRT_CACHE"


class TensorRTCallFailed(RuntimeError):
    """TensorRT refused a call (a shape, an address, an enqueue): nothing was computed."""


def _tensorrt():
    import tensorrt

    return tensorrt


def cache_dir() -> Path:
    return Path(os.environ.get(CACHE_DIR_ENV) or Path.home() / ".cache" / "inferledger" / "tensorrt")


def device_key() -> dict:
    properties = torch.cuda.get_device_properties(torch.cuda.current_device())
    return {"device": properties.name, "capability": f"{properties.major}.{properties.minor}"}


def engine_key(
    onnx_bytes: bytes, precision: str, shapes: dict[str, tuple], max_batch: int, trt_version: str, device: dict
) -> str:
    """The cache key of an engine: model, precision, shapes and profile, TensorRT version and device."""
    identity = {
        "model_sha256": hashlib.sha256(onnx_bytes).hexdigest(),
        "precision": precision,
        "shapes": {name: list(shape) for name, shape in sorted(shapes.items())},
        "profile_batch": [1, max_batch],
        "tensorrt": trt_version,
    } | device
    return hashlib.sha256(json.dumps(identity, sort_keys=True).encode()).hexdigest()[:32]


def _checked(ok, what: str) -> None:
    if not ok:
        raise TensorRTCallFailed(f"TensorRT refused {what}")


class TensorRTBackend(Backend):
    name = "tensorrt"
    max_batch: int | None = MAX_BATCH

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
        if precision == "fp8":
            return False, "fp8 runs on the eager and compile backends through torchao (TensorRT's fp8 needs Q/DQ nodes)"
        return False, f"{precision} needs a calibration/quantization recipe that this backend does not run"

    @classmethod
    def supports_workload(cls, model_class: str) -> tuple[bool, str]:
        return exports_to_onnx(model_class, "a TensorRT engine")

    def load(self, model: nn.Module, example: tuple[torch.Tensor, ...]) -> None:
        trt = _tensorrt()
        logger = trt.Logger(trt.Logger.WARNING)
        self._names = [f"input_{i}" for i in range(len(example))]
        shapes = {name: tuple(tensor.shape[1:]) for name, tensor in zip(self._names, example, strict=True)}
        with tempfile.TemporaryDirectory(prefix="inferledger-trt-") as tmp:
            path = os.path.join(tmp, "model.onnx")
            export_onnx(model, example, path, self._names, batch_axes(self._names))
            onnx_bytes = Path(path).read_bytes()
            self.cache_key = engine_key(
                onnx_bytes, self.precision, shapes, self.max_batch, trt.__version__, device_key()
            )
            engine_path = cache_dir() / f"{self.cache_key}.engine"
            self.cache_hit = engine_path.is_file()
            if self.cache_hit:
                serialized = engine_path.read_bytes()
            else:
                serialized = self._build(trt, logger, path, example)
                engine_path.parent.mkdir(parents=True, exist_ok=True)
                partial = engine_path.with_suffix(".partial")
                partial.write_bytes(serialized)
                partial.replace(engine_path)  # whole or absent: a crash mid-write leaves no truncated engine
        self.engine = trt.Runtime(logger).deserialize_cuda_engine(serialized)
        if self.engine is None:
            raise TensorRTCallFailed(f"TensorRT could not deserialize the engine {self.cache_key}")
        self.context = self.engine.create_execution_context()
        outputs = [self.engine.get_tensor_name(i) for i in range(self.engine.num_io_tensors)]
        outputs = [name for name in outputs if self.engine.get_tensor_mode(name) == trt.TensorIOMode.OUTPUT]
        if len(outputs) != 1:
            raise TensorRTCallFailed(f"expected one output tensor, the engine has {outputs}")
        self._output = outputs[0]
        self._stream = torch.cuda.Stream()

    def _build(self, trt, logger, onnx_path: str, example: tuple[torch.Tensor, ...]) -> bytes:
        builder = trt.Builder(logger)
        network = builder.create_network(0)
        parser = trt.OnnxParser(network, logger)
        if not parser.parse_from_file(onnx_path):
            errors = [str(parser.get_error(i)) for i in range(parser.num_errors)]
            raise RuntimeError("TensorRT could not parse the ONNX export: " + "; ".join(errors))
        config = builder.create_builder_config()
        config.set_memory_pool_limit(trt.MemoryPoolType.WORKSPACE, WORKSPACE_BYTES)
        if self.precision == "fp16":
            config.set_flag(trt.BuilderFlag.FP16)
        elif self.precision == "bf16":
            config.set_flag(trt.BuilderFlag.BF16)
        timing_path = cache_dir() / f"timing-{trt.__version__}-{device_key()['device']}-{device_key()['capability']}"
        timing_path = timing_path.with_name(timing_path.name.replace(" ", "_") + ".cache")
        timing_cache = config.create_timing_cache(timing_path.read_bytes() if timing_path.is_file() else b"")
        _checked(config.set_timing_cache(timing_cache, ignore_mismatch=False), "the timing cache")
        profile = builder.create_optimization_profile()
        for name, tensor in zip(self._names, example, strict=True):
            rest = tuple(tensor.shape[1:])
            opt = min(max(1, tensor.shape[0]), self.max_batch)
            profile.set_shape(name, (1, *rest), (opt, *rest), (self.max_batch, *rest))
        config.add_optimization_profile(profile)
        serialized = builder.build_serialized_network(network, config)
        if serialized is None:
            raise RuntimeError("TensorRT engine build failed")
        timing_path.parent.mkdir(parents=True, exist_ok=True)
        timing_path.write_bytes(bytes(config.get_timing_cache().serialize()))
        return bytes(serialized)

    def forward(self, *inputs) -> torch.Tensor:
        trt = _tensorrt()
        batch = int(inputs[0].shape[0])
        if not 1 <= batch <= self.max_batch:
            raise OutsideProfile(
                f"batch {batch} is outside the TensorRT engine's optimisation profile (batches 1 to {self.max_batch})"
            )
        keep = []  # the converted inputs must outlive the enqueue
        for name, tensor in zip(self._names, inputs, strict=True):
            tensor = tensor.to("cuda").contiguous()
            if tensor.dtype == torch.int64 and self.engine.get_tensor_dtype(name) == trt.int32:
                tensor = tensor.to(torch.int32)
            keep.append(tensor)
            shape = tuple(tensor.shape)
            _checked(self.context.set_input_shape(name, shape), f"input {name} of shape {shape}")
            _checked(self.context.set_tensor_address(name, tensor.data_ptr()), f"the address of input {name}")
        out_shape = tuple(self.context.get_tensor_shape(self._output))
        if any(size < 0 for size in out_shape):
            raise TensorRTCallFailed(f"the output shape {out_shape} is unresolved for these inputs")
        dtypes = {trt.float32: torch.float32, trt.float16: torch.float16, trt.bfloat16: torch.bfloat16}
        output = torch.empty(out_shape, dtype=dtypes[self.engine.get_tensor_dtype(self._output)], device="cuda")
        _checked(self.context.set_tensor_address(self._output, output.data_ptr()), "the output address")
        _checked(self.context.execute_async_v3(self._stream.cuda_stream), f"to enqueue batch {batch}")
        self._stream.synchronize()
        return output
