"""The environment captured with every result, so a number can be traced to the machine that made it."""

from __future__ import annotations

import os
import platform
import socket
import sys


def cpu_model() -> str:
    try:
        with open("/proc/cpuinfo") as handle:
            for line in handle:
                if line.startswith("model name"):
                    return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or platform.machine()


def _version(module_name: str) -> str | None:
    try:
        module = __import__(module_name)
    except ImportError:
        return None
    return getattr(module, "__version__", None)


def driver_version() -> str | None:
    from .nvml import nvml_status

    pynvml, _ = nvml_status()
    if pynvml is None:
        return None
    version = pynvml.nvmlSystemGetDriverVersion()
    return version.decode() if isinstance(version, bytes) else str(version)


def device_info(device: str, index: int = 0) -> dict:
    """The payload's ``device`` block: type, name (CPU model or GPU name) and index."""
    if device == "cuda":
        import torch

        return {"type": "cuda", "name": torch.cuda.get_device_name(index), "index": index}
    return {"type": "cpu", "name": cpu_model(), "index": 0}


def capture_environment() -> dict:
    import torch  # here, not at import: an idle agent's registration reads this module without torch

    try:
        from importlib.metadata import version

        import mlperf_loadgen  # noqa: F401

        loadgen_version = version("mlcommons-loadgen")
    except Exception:
        loadgen_version = None
    return {
        "hostname": socket.gethostname(),
        "platform": platform.platform(),
        "python": sys.version.split()[0],
        "cpu_model": cpu_model(),
        "cpu_count": os.cpu_count() or 1,
        "torch_threads": torch.get_num_threads(),
        "torch": torch.__version__,
        "onnxruntime": _version("onnxruntime"),
        "tensorrt": _version("tensorrt"),
        "mlcommons_loadgen": loadgen_version,
        "cuda": torch.version.cuda,
        "cuda_available": torch.cuda.is_available(),
        "driver": driver_version(),
        "gpu_count": torch.cuda.device_count() if torch.cuda.is_available() else 0,
    }
