"""What an agent host reports about itself: its devices and software versions. Django-free (runs on GPU hosts).

Read without importing torch, ONNX Runtime or TensorRT (their installed versions from package metadata, CUDA's
from NVML): an idle agent registers and waits for jobs; it imports torch when its first job runs (an import
of torch alone holds about 200 MiB).
"""

from __future__ import annotations

import os
import platform
import socket
import sys
from importlib.metadata import PackageNotFoundError, version

from harness.telemetry.environment import cpu_model
from harness.telemetry.nvml import nvml_status


def agent_queue(name: str) -> str:
    return f"agent.{name}"


def nvml_devices() -> list[dict]:
    """One entry per NVIDIA GPU NVML sees; empty where there is no NVML."""
    pynvml, _reason = nvml_status()
    if pynvml is None:
        return []
    devices = []
    for index in range(pynvml.nvmlDeviceGetCount()):
        handle = pynvml.nvmlDeviceGetHandleByIndex(index)
        name = pynvml.nvmlDeviceGetName(handle)
        memory = pynvml.nvmlDeviceGetMemoryInfo(handle)
        devices.append(
            {
                "type": "cuda",
                "index": index,
                "name": name.decode() if isinstance(name, bytes) else str(name),
                "memory_bytes": int(memory.total),
            }
        )
    return devices


def _installed(*distributions: str) -> str | None:
    """The version of the first of ``distributions`` installed (onnxruntime-gpu stands in for onnxruntime)."""
    for distribution in distributions:
        try:
            return version(distribution)
        except PackageNotFoundError:
            continue
    return None


def _nvml_versions() -> tuple[str | None, str | None]:
    """(the driver's version, the CUDA version it supports), or (None, None) without NVML."""
    pynvml, _reason = nvml_status()
    if pynvml is None:
        return None, None
    driver = pynvml.nvmlSystemGetDriverVersion()
    cuda = pynvml.nvmlSystemGetCudaDriverVersion()  # e.g. 12080
    return (driver.decode() if isinstance(driver, bytes) else str(driver)), f"{cuda // 1000}.{cuda % 1000 // 10}"


def host_versions() -> dict:
    driver, cuda = _nvml_versions()
    return {
        "python": sys.version.split()[0],
        "torch": _installed("torch"),
        "cuda": cuda,
        "driver": driver,
        "onnxruntime": _installed("onnxruntime", "onnxruntime-gpu"),
        "tensorrt": _installed("tensorrt", "tensorrt-cu12", "tensorrt-cu13"),
        "mlcommons_loadgen": _installed("mlcommons-loadgen"),
        "platform": platform.platform(),
    }


def collect_inventory(name: str) -> dict:
    """The registration report an agent sends to the control plane."""
    devices = nvml_devices() or [{"type": "cpu", "index": 0, "name": cpu_model(), "vcpu_count": os.cpu_count() or 1}]
    return {
        "name": name,
        "hostname": socket.gethostname(),
        "queue": agent_queue(name),
        "devices": devices,
        "versions": host_versions(),
    }
