"""What an agent host reports about itself: its devices and software versions. Django-free (runs on GPU hosts)."""

from __future__ import annotations

import socket

from harness.telemetry.environment import capture_environment, cpu_model
from harness.telemetry.nvml import nvml_status

VERSION_KEYS = ("python", "torch", "cuda", "driver", "onnxruntime", "tensorrt", "mlcommons_loadgen", "platform")


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


def collect_inventory(name: str) -> dict:
    """The registration report an agent sends to the control plane."""
    environment = capture_environment()
    devices = nvml_devices() or [
        {"type": "cpu", "index": 0, "name": cpu_model(), "vcpu_count": environment.get("cpu_count") or 1}
    ]
    return {
        "name": name,
        "hostname": socket.gethostname(),
        "queue": agent_queue(name),
        "devices": devices,
        "versions": {key: environment.get(key) for key in VERSION_KEYS},
    }
