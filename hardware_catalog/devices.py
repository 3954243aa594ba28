"""Mapping the device a result was measured on to a catalog accelerator."""

import re

from .models import Accelerator, AcceleratorKind
from .services import register_local_cpu

# Names as NVML/torch report them (lower-cased regex) -> (vendor, catalog model).
GPU_NAME_ALIASES = [
    (r"h100.*(sxm|hbm3)", ("NVIDIA", "H100 SXM5 80GB")),
    (r"h100.*(pcie|nvl)", ("NVIDIA", "H100 PCIe 80GB")),
    (r"h200", ("NVIDIA", "H200 SXM 141GB")),
    (r"b200", ("NVIDIA", "B200")),
    (r"l40s", ("NVIDIA", "L40S")),
    (r"\bl4\b", ("NVIDIA", "L4")),
    (r"a100.*sxm.*80", ("NVIDIA", "A100 SXM4 80GB")),
    (r"a100.*sxm.*40", ("NVIDIA", "A100 SXM4 40GB")),
    (r"a100.*pcie.*80|a100 80gb pcie", ("NVIDIA", "A100 PCIe 80GB")),
    (r"a100.*pcie.*40|a100-pcie-40", ("NVIDIA", "A100 PCIe 40GB")),
    (r"a10g", ("NVIDIA", "A10G")),
    (r"\ba10\b", ("NVIDIA", "A10")),
    (r"\bt4\b", ("NVIDIA", "T4")),
    (r"rtx 4090", ("NVIDIA", "RTX 4090")),
    (r"rtx a2000", ("NVIDIA", "RTX A2000 12GB")),
    (r"mi300x", ("AMD", "MI300X")),
]


def catalog_match(device_name: str) -> Accelerator | None:
    name = device_name.lower()
    for pattern, (vendor, model) in GPU_NAME_ALIASES:
        if re.search(pattern, name):
            return Accelerator.objects.filter(vendor=vendor, model=model).first()
    return None


def accelerator_for_device(device: dict, environment: dict) -> Accelerator:
    """The catalog accelerator for a payload's device; a local CPU is registered and priced as a CPU slice.

    A GPU the catalog does not know is registered under its reported name (with no prices) rather than
    guessed to be a similar model.
    """
    name = (device.get("name") or "unknown device").strip()
    if device.get("type") == "cpu":
        vcpus = environment.get("cpu_count") or environment.get("logical_cpus") or environment.get("threads") or 1
        return register_local_cpu(cpu_model=name, vcpu_count=int(vcpus))
    found = catalog_match(name)
    if found:
        return found
    vendor = name.split()[0] if name else "Unknown"
    accelerator, _ = Accelerator.objects.get_or_create(
        vendor=vendor,
        model=name,
        defaults={"kind": AcceleratorKind.GPU, "source": "registered from a result; no catalog entry matched"},
    )
    return accelerator
