"""Telemetry for one harness item: NVML on GPU hosts, CPU time / RSS / RAPL everywhere."""

from __future__ import annotations

from dataclasses import dataclass, field

from .cpu import Rapl, peak_rss_bytes, process_cpu_time_s
from .environment import capture_environment, device_info
from .host import GpuWatch, HostWatch
from .nvml import NvmlSampler, nvml_status


@dataclass
class PointEnergy:
    """Power and energy of one measured window, from NVML (GPU) or RAPL (CPU) when available."""

    power_w_mean: float | None
    energy_j: float | None
    duration_s: float
    # The machine's state around the window (harness.telemetry.host): what the validity checks read.
    host_state: dict | None = field(default=None, compare=False)


class TelemetrySession:
    """Wraps each measured point (``begin_point``/``end_point``) and summarises the whole item."""

    def __init__(self, device: str = "cpu", index: int = 0):
        self.device = device
        pynvml, self.nvml_reason = nvml_status()
        self.sampler = NvmlSampler(pynvml, index) if pynvml is not None and device == "cuda" else None
        if pynvml is not None and device != "cuda":
            self.nvml_reason = "not sampled: the item runs on CPU"
        self.rapl = Rapl()
        self.host = HostWatch(GpuWatch(pynvml, index) if self.sampler is not None else None)
        self.cpu_time_start_s = process_cpu_time_s()
        self.nvml_points: list[dict] = []
        self.rapl_energy_j, self.rapl_duration_s = 0.0, 0.0

    def begin_point(self) -> None:
        import time

        self.host.begin()
        self._t0 = time.perf_counter()
        if self.sampler is not None:
            self.sampler.start()
        self._rapl_start = self.rapl.read_uj() if self.rapl.available else None

    def end_point(self) -> PointEnergy:
        import time

        duration_s = time.perf_counter() - self._t0
        if self.sampler is not None:
            summary = self.sampler.stop()
            self.nvml_points.append(summary)
            return PointEnergy(summary["power_w_mean"], summary["energy_j"], duration_s, self.host.end())
        if self._rapl_start is not None:
            energy_j = self.rapl.energy_j(self._rapl_start, self.rapl.read_uj())
            self.rapl_energy_j += energy_j
            self.rapl_duration_s += duration_s
            power = energy_j / duration_s if duration_s > 0 else None
            return PointEnergy(power, energy_j, duration_s, self.host.end())
        return PointEnergy(None, None, duration_s, self.host.end())

    def summary(self) -> dict:
        """The payload's ``telemetry`` block."""
        if self.sampler is not None and self.nvml_points:
            pts = self.nvml_points
            nvml = {
                "device_name": pts[0]["device_name"],
                "points": len(pts),
                "energy_j": sum(p["energy_j"] for p in pts),
                "power_w_max": max(p["power_w_max"] for p in pts),
                "gpu_util_pct_mean": sum(p["gpu_util_pct_mean"] for p in pts) / len(pts),
                "memory_used_bytes_max": max(p["memory_used_bytes_max"] for p in pts),
                "temperature_c_max": max(p["temperature_c_max"] for p in pts),
            }
        else:
            nvml = f"unavailable ({self.nvml_reason or 'no samples'})"
        if self.rapl.available:
            rapl = {
                "energy_j": self.rapl_energy_j,
                "measured_s": self.rapl_duration_s,
                "zones": len(self.rapl.zones),
            }
        else:
            rapl = f"unavailable ({self.rapl.reason})"
        return {
            "nvml": nvml,
            "cpu_time_s": process_cpu_time_s() - self.cpu_time_start_s,
            "peak_rss_bytes": peak_rss_bytes(),
            "rapl": rapl,
        }


__all__ = ["PointEnergy", "TelemetrySession", "capture_environment", "device_info", "nvml_status"]
