"""CPU-side telemetry: process CPU time, peak RSS and RAPL package energy (when readable)."""

from __future__ import annotations

import glob
import os
import resource

RAPL_GLOB = "/sys/class/powercap/intel-rapl:[0-9]*"


def process_cpu_time_s() -> float:
    usage = resource.getrusage(resource.RUSAGE_SELF)
    return usage.ru_utime + usage.ru_stime


def peak_rss_bytes() -> int:
    """Peak resident set size of this process (Linux reports ru_maxrss in KiB)."""
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024


class Rapl:
    """Reads the package-level RAPL energy counters; ``reason`` says why they are unusable."""

    def __init__(self):
        self.zones = sorted(p for p in glob.glob(RAPL_GLOB) if os.path.isfile(os.path.join(p, "energy_uj")))
        self.reason = ""
        if not self.zones:
            self.reason = "no /sys/class/powercap/intel-rapl* zones (not exposed on this host)"
            return
        try:
            self.read_uj()
        except OSError as exc:
            self.reason = f"RAPL energy counter not readable ({exc.strerror})"

    @property
    def available(self) -> bool:
        return not self.reason

    def read_uj(self) -> list[int]:
        values = []
        for zone in self.zones:
            with open(os.path.join(zone, "energy_uj")) as handle:
                values.append(int(handle.read()))
        return values

    def _max_uj(self, zone: str) -> int:
        try:
            with open(os.path.join(zone, "max_energy_range_uj")) as handle:
                return int(handle.read())
        except OSError:
            return 2**32

    def energy_j(self, start_uj: list[int], end_uj: list[int]) -> float:
        """Energy between two readings, handling counter wrap-around."""
        total = 0
        for zone, a, b in zip(self.zones, start_uj, end_uj, strict=True):
            total += b - a if b >= a else b + self._max_uj(zone) - a
        return total / 1e6
