"""A user's model file as a harness workload (``workloads.user`` declares and validates it).

ONNX files run on ONNX Runtime (CPU, or the CUDA / TensorRT execution providers when present), TorchScript
and ``torch.export`` files on the torch backends, Hugging Face directories through ``transformers``
loaded offline (``local_files_only``; HF_HUB_OFFLINE is set before the import). The fp32 run on the
format's native backend is the reference the accuracy guard compares other backends/precisions against.

A Hugging Face causal LM declared with ``unit: output_tokens`` generates: greedy, exactly the declared
number of output tokens after a prompt of the declared length, through the built-in decoder's generation
loop (``llm_decoder.greedy_generate``), so its TTFT, TPOT and output tokens/s are measured as that one's are.
"""

from __future__ import annotations

import json
import os
from pathlib import Path

import torch
from torch import nn

import workloads as registry

from .base import Workload
from .llm_decoder import greedy_generate, next_token_logits

TORCH_DTYPES = {"float32": torch.float32, "float16": torch.float16, "bfloat16": torch.bfloat16,
                "int64": torch.int64, "int32": torch.int32, "bool": torch.bool}  # fmt: skip
DEFAULT_INT_RANGE = (0, 100)


class OnnxFile(nn.Module):
    """An ONNX file as a module: ``forward`` runs it on ONNX Runtime's CPU provider (the reference run);
    the onnxruntime backend opens ``path`` itself with the providers of its device."""

    def __init__(self, path: str, input_names: list[str]):
        super().__init__()
        self.onnx_file_path, self.input_names = path, input_names
        self._session = None

    def forward(self, *inputs):
        if self._session is None:
            import onnxruntime

            self._session = onnxruntime.InferenceSession(self.onnx_file_path, providers=["CPUExecutionProvider"])
        feeds = {n: t.detach().cpu().numpy() for n, t in zip(self.input_names, inputs, strict=True)}
        return torch.from_numpy(self._session.run(None, feeds)[0])


class FirstTensor(nn.Module):
    """A loaded model whose output is a tuple, dict or ``ModelOutput``: its first tensor (or ``logits``)."""

    def __init__(self, model: nn.Module):
        super().__init__()
        self.model = model

    def forward(self, *inputs):
        out = self.model(*inputs)
        if hasattr(out, "logits"):
            return out.logits
        if isinstance(out, dict):
            out = next(iter(out.values()))
        while isinstance(out, tuple | list):
            out = out[0]
        return out


class CausalLmSteps(nn.Module):
    """A Hugging Face causal LM with the built-in decoder's step interface (``llm_decoder.greedy_generate``):
    ``setup_cache`` starts an empty KV cache, ``forward(tokens, start)`` runs ``tokens`` at position ``start``
    with the cache and returns float logits [batch, tokens, vocab]."""

    def __init__(self, model: nn.Module):
        super().__init__()
        self.model = model
        self._cache = None

    def setup_cache(self, batch: int, max_len: int) -> None:
        from transformers import DynamicCache

        self._cache = DynamicCache(config=self.model.config)

    def forward(self, tokens: torch.Tensor, start: int = 0) -> torch.Tensor:
        positions = torch.arange(start, start + tokens.shape[1], device=tokens.device)
        out = self.model(input_ids=tokens, past_key_values=self._cache, use_cache=True, cache_position=positions,
                         position_ids=positions.unsqueeze(0).expand(tokens.shape[0], -1))  # fmt: skip
        self._cache = out.past_key_values
        return out.logits.float()


class FileWorkload(Workload):
    model_class = registry.USER
    SIZES = {"file": {}}
    has_decision = True

    def __init__(self, spec: registry.UserWorkloadSpec):
        self.spec, self.size = spec, "file"
        self.config = spec.to_dict()
        self._onnx_meta = None
        # On the host that runs it: the file must be there and match its declaration (a job's item fails if not).
        errors = registry.file_errors(spec)
        if errors:
            raise registry.UserWorkloadError(errors)
        if spec.format == "onnx":
            self._check_onnx()
        self.generative = spec.unit == registry.Unit.OUTPUT_TOKENS.value
        if self.generative:
            self.vocab_size = int(json.loads((Path(spec.path) / "config.json").read_text())["vocab_size"])

    @property
    def registry_workload(self) -> registry.Workload:
        return registry.user_workload(self.spec.id, self.spec)

    @property
    def native_backend(self) -> str:
        return self.spec.native_backend

    def _check_onnx(self) -> None:
        import onnx

        try:
            model = onnx.load(self.spec.path)
        except Exception as exc:  # noqa: BLE001 - any parse failure is the file's fault
            raise registry.UserWorkloadError([("path", f"not a readable ONNX model: {exc}")]) from None
        sizes = [(int(torch.tensor(i.dims).prod()) if i.dims else 1, i.data_type) for i in model.graph.initializer]
        self._onnx_meta = {
            "parameters": sum(count for count, _ in sizes) or None,
            "weight_bytes": sum(count * onnx.helper.tensor_dtype_to_np_dtype(t).itemsize for count, t in sizes) or None,
        }

    def _build(self) -> nn.Module:
        spec = self.spec
        names = [i["name"] for i in spec.inputs]
        try:
            if spec.format == "onnx":
                return OnnxFile(spec.path, names)
            if spec.format == "torchscript":
                return FirstTensor(torch.jit.load(spec.path, map_location="cpu"))
            if spec.format == "torch-export":
                return FirstTensor(torch.export.load(spec.path).module())
            if self.generative:
                return CausalLmSteps(_load_huggingface(spec.path, causal_lm=True))
            return FirstTensor(_load_huggingface(spec.path))
        except registry.UserWorkloadError:
            raise
        except Exception as exc:  # noqa: BLE001 - a file that does not load is reported against its field
            raise registry.UserWorkloadError([("path", f"{spec.path} does not load as {spec.format}: {exc}")]) from None

    def build(self, device: str | torch.device = "cpu") -> nn.Module:
        model = self._build()
        model = model if str(device) == "cpu" else model.to(device)
        # An exported program's module has no train/eval switch (it was exported in inference mode).
        return model if self.spec.format == "torch-export" else model.eval()

    def example_inputs(self, batch_size: int, seed: int = 0, device: str = "cpu") -> tuple[torch.Tensor, ...]:
        generator = torch.Generator().manual_seed(seed)
        if self.generative:  # a prompt of the declared length, token ids from the model's vocabulary
            shape = (batch_size, self.spec.llm["prompt_tokens"])
            return (torch.randint(0, self.vocab_size, shape, generator=generator).to(device),)
        tensors = []
        for spec in self.spec.inputs:
            shape, dtype = (batch_size, *spec["shape"][1:]), TORCH_DTYPES[spec["dtype"]]
            if dtype.is_floating_point:
                tensor = torch.randn(shape, generator=generator).to(dtype)
            else:
                low, high = spec.get("range") or ((0, 2) if dtype == torch.bool else DEFAULT_INT_RANGE)
                tensor = torch.randint(low, high, shape, generator=generator).to(dtype)
            tensors.append(tensor.to(device))
        return tuple(tensors)

    def output_tokens(self) -> int:
        return self.spec.llm["output_tokens"] if self.generative else 0

    def prompt_tokens(self) -> int:
        return self.spec.llm["prompt_tokens"] if self.generative else 0

    def infer(self, forward, module: nn.Module, inputs: tuple, on_first_token=None) -> torch.Tensor:
        if not self.generative:
            return forward(*inputs)
        (prompt,) = inputs
        return greedy_generate(forward, module, prompt, self.output_tokens(), on_first_token)

    def guard_output(self, forward, module: nn.Module, inputs: tuple) -> torch.Tensor:
        return next_token_logits(forward, module, inputs[0]) if self.generative else forward(*inputs)

    def parameter_count(self, model: nn.Module) -> int | None:
        if self._onnx_meta is not None:
            return self._onnx_meta["parameters"]
        return sum(p.numel() for p in model.parameters()) or None

    def weight_bytes(self, model: nn.Module) -> int | None:
        if self._onnx_meta is not None:
            return self._onnx_meta["weight_bytes"]
        return Workload.weight_bytes(model) or None

    def flops_per_inference(self, model: nn.Module | None = None, device: str = "meta") -> int | None:
        """Counted by FlopCounterMode where the model runs aten ops in Python (torch.export, Hugging
        Face); None where it cannot be counted (ONNX, TorchScript: the counter sees no ops)."""
        if self.spec.format in ("onnx", "torchscript") or model is None:
            return None
        return super().flops_per_inference(model, "cpu") or None


def _load_huggingface(path: str, causal_lm: bool = False) -> nn.Module:
    os.environ.setdefault("HF_HUB_OFFLINE", "1")
    os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")
    from transformers import AutoModel, AutoModelForCausalLM

    loader = AutoModelForCausalLM if causal_lm else AutoModel
    return loader.from_pretrained(path, local_files_only=True, use_safetensors=True)


TENSORRT_PROVIDERS = ("TensorrtExecutionProvider", "CUDAExecutionProvider")


def file_support(spec: registry.UserWorkloadSpec, backend: str, precision: str, device: str) -> tuple[bool, str]:
    """(True, "") when ``backend`` can run this file here, else (False, the reason)."""
    from ..backends import check_support

    if spec.format == "onnx":
        if backend == "tensorrt":
            import onnxruntime

            if device != "cuda":
                return False, "ONNX Runtime's TensorRT execution provider needs a CUDA device"
            if TENSORRT_PROVIDERS[0] not in onnxruntime.get_available_providers():
                return False, "onnxruntime has no TensorrtExecutionProvider (install onnxruntime-gpu with TensorRT)"
            if precision != "fp32":
                return False, f"{precision} is not wired for ONNX Runtime's TensorRT provider (fp32 is)"
            return True, ""
        if backend != "onnxruntime":
            return False, f"an ONNX file runs on ONNX Runtime (backends onnxruntime, tensorrt), not {backend}"
    elif backend == "onnxruntime":
        return False, f"a {spec.format} model is not re-exported to ONNX: declare the ONNX file instead"
    elif spec.unit == registry.Unit.OUTPUT_TOKENS.value and backend != "eager":
        # Each decode step grows the KV cache: compile and CUDA graphs would capture a new shape per token.
        return False, f"a causal LM file generates on the eager backend (its KV cache grows each step), not {backend}"
    return check_support(backend, precision, device, registry.USER)


def file_backend(spec: registry.UserWorkloadSpec, backend: str, precision: str, device: str):
    """The loaded-to-be backend object for this file (ONNX on tensorrt: ONNX Runtime's TensorRT provider)."""
    from ..backends import get_backend_class
    from ..backends.onnxruntime_backend import OnnxRuntimeBackend

    if spec.format == "onnx" and backend == "tensorrt":
        instance = OnnxRuntimeBackend(precision, device)
        instance.execution_providers = TENSORRT_PROVIDERS
        return instance
    return get_backend_class(backend)(precision, device)
