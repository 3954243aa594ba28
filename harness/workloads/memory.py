"""Whether a workload fits this host before anything is allocated.

The harness builds a workload twice on the host (the fp32 reference the accuracy guard compares
against, and the copy the backend loads), so a host needs two fp32 copies of its weights; a CUDA
device needs one copy, or two when the accuracy guard runs there too. Weights are counted on the meta
device. A workload that does not fit is a skip with the figure ("needs 209.2 GB"), never an
out-of-memory crash halfway through a suite.
"""

from __future__ import annotations

import os

from .base import Workload

GB = 1e9


def host_available_bytes() -> int | None:
    """Memory the host can give without swapping (Linux ``MemAvailable``), None when unknown."""
    try:
        with open("/proc/meminfo") as meminfo:
            for line in meminfo:
                if line.startswith("MemAvailable:"):
                    return int(line.split()[1]) * 1024
    except OSError:
        pass
    try:
        return os.sysconf("SC_AVPHYS_PAGES") * os.sysconf("SC_PAGE_SIZE")
    except (ValueError, OSError, AttributeError):
        return None


def device_available_bytes(device: str) -> int | None:
    if device != "cuda":
        return None
    import torch

    if not torch.cuda.is_available():
        return None
    free_bytes, _total = torch.cuda.mem_get_info()
    return int(free_bytes)


def fp32_weight_bytes(workload: Workload) -> int:
    return workload.weight_bytes(workload.build("meta"))


def memory_shortfall(
    workload: Workload,
    device: str,
    *,
    with_reference_copy: bool,
    host_bytes: int | None = None,
    device_bytes: int | None = None,
) -> str | None:
    """Why ``workload`` cannot be loaded here (a sentence with the figures), or None when it fits.

    ``with_reference_copy``: the accuracy guard also loads the fp32 reference on ``device``.
    ``host_bytes`` / ``device_bytes`` default to what this machine has available now.
    """
    weights = fp32_weight_bytes(workload)
    host_bytes = host_available_bytes() if host_bytes is None else host_bytes
    host_needed = 2 * weights
    if host_bytes is not None and host_needed > host_bytes:
        return (
            f"{workload.name} needs {host_needed / GB:.1f} GB of host memory (two fp32 copies of its "
            f"{weights / GB:.1f} GB of weights: the model and the accuracy reference); "
            f"this host has {host_bytes / GB:.1f} GB available"
        )
    if device == "cuda":
        device_bytes = device_available_bytes(device) if device_bytes is None else device_bytes
        device_needed = weights * (2 if with_reference_copy else 1)
        if device_bytes is not None and device_needed > device_bytes:
            return (
                f"{workload.name} needs {device_needed / GB:.1f} GB of GPU memory for its fp32 weights; "
                f"the GPU has {device_bytes / GB:.1f} GB free"
            )
    return None
