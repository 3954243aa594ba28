"""Backend registry and the support check that turns impossible combinations into skip reasons."""

from __future__ import annotations

from .base import PRECISIONS, Backend
from .cudagraphs import CudaGraphsBackend
from .eager import CompileBackend, EagerBackend
from .onnxruntime_backend import OnnxRuntimeBackend
from .tensorrt_backend import TensorRTBackend

BACKENDS: dict[str, type[Backend]] = {
    cls.name: cls for cls in (EagerBackend, CompileBackend, OnnxRuntimeBackend, CudaGraphsBackend, TensorRTBackend)
}


def get_backend_class(name: str) -> type[Backend]:
    try:
        return BACKENDS[name]
    except KeyError:
        raise ValueError(f"unknown backend {name!r}; known: {', '.join(BACKENDS)}") from None


def check_support(backend: str, precision: str, device: str, model_class: str) -> tuple[bool, str]:
    """(True, "") when the combination can run here, else (False, reason)."""
    if precision not in PRECISIONS:
        raise ValueError(f"unknown precision {precision!r}; known: {', '.join(PRECISIONS)}")
    cls = get_backend_class(backend)
    ok, reason = cls.supports(precision, device)
    if not ok:
        return False, reason
    return cls.supports_workload(model_class)


__all__ = ["BACKENDS", "PRECISIONS", "Backend", "check_support", "get_backend_class"]
