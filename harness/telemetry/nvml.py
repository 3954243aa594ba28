"""NVML sampling on a background thread: power (or the total-energy counter), utilisation, memory,
SM clock and temperature of one GPU while a point is measured."""

from __future__ import annotations

import threading
import time
from types import ModuleType


def nvml_status() -> tuple[ModuleType | None, str]:
    """(pynvml module, "") when ``nvmlInit`` works, else (None, reason)."""
    try:
        import pynvml
    except ImportError as exc:
        return None, f"pynvml not installed ({exc})"
    try:
        pynvml.nvmlInit()
    except Exception as exc:  # NVMLError subclasses vary by failure; the reason is what matters.
        name = type(exc).__name__
        if "LibraryNotFound" in name:
            return None, "library not found"
        return None, f"{name}: {exc}"
    return pynvml, ""


class NvmlSampler:
    """Samples one GPU every ``interval_s`` between ``start()`` and ``stop()``."""

    def __init__(self, pynvml, index: int = 0, interval_s: float = 0.05):
        self.nvml, self.interval_s = pynvml, interval_s
        self.handle = pynvml.nvmlDeviceGetHandleByIndex(index)
        self.name = pynvml.nvmlDeviceGetName(self.handle)
        self.samples: list[dict] = []
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None

    def _energy_mj(self) -> int | None:
        try:
            return self.nvml.nvmlDeviceGetTotalEnergyConsumption(self.handle)
        except self.nvml.NVMLError:
            return None

    def _sample(self) -> dict:
        n, h = self.nvml, self.handle
        util = n.nvmlDeviceGetUtilizationRates(h)
        return {
            "power_w": n.nvmlDeviceGetPowerUsage(h) / 1000.0,
            "gpu_util_pct": float(util.gpu),
            "memory_used_bytes": int(n.nvmlDeviceGetMemoryInfo(h).used),
            "sm_clock_mhz": float(n.nvmlDeviceGetClockInfo(h, n.NVML_CLOCK_SM)),
            "temperature_c": float(n.nvmlDeviceGetTemperature(h, n.NVML_TEMPERATURE_GPU)),
        }

    def _loop(self) -> None:
        while not self._stop.is_set():
            self.samples.append(self._sample())
            self._stop.wait(self.interval_s)

    def start(self) -> None:
        self.samples, self._stop = [], threading.Event()
        self._energy_start_mj, self._t0 = self._energy_mj(), time.perf_counter()
        self._thread = threading.Thread(target=self._loop, name="nvml-sampler", daemon=True)
        self._thread.start()

    def stop(self) -> dict:
        """Summary of the window: means/maxima, and energy from the counter when the GPU has one."""
        self._stop.set()
        if self._thread is not None:
            self._thread.join()
        elapsed_s = time.perf_counter() - self._t0
        end_mj, samples = self._energy_mj(), self.samples or [self._sample()]
        power_mean = sum(s["power_w"] for s in samples) / len(samples)
        if end_mj is not None and self._energy_start_mj is not None:
            energy_j, source = (end_mj - self._energy_start_mj) / 1000.0, "energy_counter"
        else:
            energy_j, source = power_mean * elapsed_s, "power_samples"
        return {
            "device_name": str(self.name),
            "samples": len(samples),
            "duration_s": elapsed_s,
            "energy_j": energy_j,
            "energy_source": source,
            "power_w_mean": energy_j / elapsed_s if elapsed_s > 0 else power_mean,
            "power_w_max": max(s["power_w"] for s in samples),
            "gpu_util_pct_mean": sum(s["gpu_util_pct"] for s in samples) / len(samples),
            "memory_used_bytes_max": max(s["memory_used_bytes"] for s in samples),
            "sm_clock_mhz_mean": sum(s["sm_clock_mhz"] for s in samples) / len(samples),
            "temperature_c_max": max(s["temperature_c"] for s in samples),
        }
