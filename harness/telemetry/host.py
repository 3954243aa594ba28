"""Whether the machine was fit to measure on: its state before and during each point, and the checks on it.

CPU (Linux /proc and /sys): the share of all CPUs that other processes used during the point (every
process's CPU time but ours, with the busiest named), CPU steal (a hypervisor giving our vCPUs to
another guest) and the CPU frequency against its maximum. GPU (NVML, where there is one): SM clock
against its maximum, the clock-event ("throttle") reasons, other processes on the device and their
memory, uncorrected ECC errors and critical XID events during the point.

A check that fails makes the point "not valid: <reason>" (kept out of answers, as a failed accuracy guard
is) unless the checks only record (``HOST_CHECKS_ENV`` = ``record``: a shared host, where other
processes are the norm; the reasons are still recorded). The thresholds are ``HostThresholds``'s.
"""

from __future__ import annotations

import glob
import os
import time
from dataclasses import asdict, dataclass

HOST_CHECKS_ENV = "INFERLEDGER_HOST_CHECKS"
HOST_CHECK_MODES = ("enforce", "record")
# How many of the busiest other processes a point's record names.
BUSIEST_SHOWN = 5
CLK_TCK = os.sysconf("SC_CLK_TCK") if hasattr(os, "sysconf") else 100


@dataclass(frozen=True)
class HostThresholds:
    """The documented limit of each check (docs/result-schema.md, "Validity of the machine")."""

    # Other processes used more than this share of all CPUs during the point: they competed with it.
    other_cpu_share_max: float = 0.25
    # The hypervisor took more than this share of our CPU time for other guests.
    steal_share_max: float = 0.05
    # The CPUs ran below this fraction of their maximum frequency (where cpufreq is exposed).
    cpu_freq_min_fraction: float = 0.80
    # The GPU's SM clock below this fraction of its maximum while measuring.
    gpu_sm_clock_min_fraction: float = 0.70


def host_checks_mode(setting: str = "") -> str:
    """``enforce`` or ``record``: the setting when given, else ``INFERLEDGER_HOST_CHECKS``, else enforce."""
    mode = setting or os.environ.get(HOST_CHECKS_ENV, "") or "enforce"
    if mode not in HOST_CHECK_MODES:
        raise ValueError(f"{HOST_CHECKS_ENV}={mode!r}: expected one of {', '.join(HOST_CHECK_MODES)}")
    return mode


def _proc_stat_cpu() -> dict[str, int] | None:
    """The aggregate ``cpu`` line of /proc/stat in clock ticks; None off Linux."""
    try:
        with open("/proc/stat") as handle:
            fields = handle.readline().split()
    except OSError:
        return None
    names = ("user", "nice", "system", "idle", "iowait", "irq", "softirq", "steal")
    return dict(zip(names, map(int, fields[1:9]), strict=False))


def _process_ticks() -> dict[int, tuple[str, int]]:
    """{pid: (command, user + system ticks)} of every readable process (children's times not included)."""
    ticks = {}
    for stat_path in glob.glob("/proc/[0-9]*/stat"):
        try:
            with open(stat_path) as handle:
                text = handle.read()
        except OSError:
            continue  # the process ended while we read
        command = text[text.find("(") + 1 : text.rfind(")")]
        fields = text[text.rfind(")") + 2 :].split()
        ticks[int(stat_path.split("/")[2])] = (command, int(fields[11]) + int(fields[12]))
    return ticks


def _cpu_freq_fraction() -> float | None:
    """Mean current frequency over mean maximum of the CPUs exposing cpufreq; None where none does."""
    current, maximum = [], []
    for cpu in glob.glob("/sys/devices/system/cpu/cpu[0-9]*/cpufreq"):
        try:
            with open(f"{cpu}/scaling_cur_freq") as cur, open(f"{cpu}/cpuinfo_max_freq") as most:
                current.append(int(cur.read()))
                maximum.append(int(most.read()))
        except (OSError, ValueError):
            continue
    return sum(current) / sum(maximum) if current and sum(maximum) else None


class GpuWatch:
    """NVML's view of one GPU for the validity checks: clocks, throttle reasons, other processes, ECC, XID."""

    # Clock-event reasons that mean the hardware slowed itself (heat, power brake), not a normal power cap.
    SLOWDOWN_REASONS = {
        "HW_SLOWDOWN": 0x8,
        "SW_THERMAL_SLOWDOWN": 0x20,
        "HW_THERMAL_SLOWDOWN": 0x40,
        "HW_POWER_BRAKE_SLOWDOWN": 0x80,
    }

    def __init__(self, pynvml, index: int = 0):
        self.nvml, self.handle = pynvml, pynvml.nvmlDeviceGetHandleByIndex(index)
        self.events = None
        try:  # XID errors arrive as events; registration needs a device that supports them.
            self.events = pynvml.nvmlEventSetCreate()
            pynvml.nvmlDeviceRegisterEvents(self.handle, pynvml.nvmlEventTypeXidCriticalError, self.events)
        except pynvml.NVMLError:
            self.events = None

    def _try(self, call, *args):
        try:
            return call(self.handle, *args)
        except self.nvml.NVMLError:
            return None

    def state(self) -> dict:
        n = self.nvml
        reasons_call = (
            getattr(n, "nvmlDeviceGetCurrentClocksEventReasons", None) or n.nvmlDeviceGetCurrentClocksThrottleReasons
        )
        mask = self._try(reasons_call) or 0
        others = []
        for process in self._try(n.nvmlDeviceGetComputeRunningProcesses) or []:
            if process.pid != os.getpid():
                others.append({"pid": process.pid, "memory_bytes": process.usedGpuMemory})
        sm, sm_max = self._try(n.nvmlDeviceGetClockInfo, n.NVML_CLOCK_SM), self._try(n.nvmlDeviceGetMaxClockInfo,
                                                                                      n.NVML_CLOCK_SM)  # fmt: skip
        ecc = self._try(n.nvmlDeviceGetTotalEccErrors, n.NVML_MEMORY_ERROR_TYPE_UNCORRECTED, n.NVML_VOLATILE_ECC)
        return {
            "sm_clock_mhz": sm,
            "sm_clock_max_mhz": sm_max,
            "clock_event_reasons": [name for name, bit in self.SLOWDOWN_REASONS.items() if mask & bit],
            "clock_event_mask": mask,
            "other_processes": others,
            "ecc_uncorrected_volatile": ecc,
        }

    def xid_errors(self) -> list[int]:
        """Critical XID errors reported since the last call (without waiting)."""
        found = []
        while self.events is not None:
            try:
                event = self.nvml.nvmlEventSetWait_v2(self.events, 0)
            except self.nvml.NVMLError:  # NVML_ERROR_TIMEOUT: none pending
                break
            found.append(int(event.eventData))
        return found


class HostWatch:
    """Snapshots around one point: ``begin()`` before it, ``end()`` after; ``end`` returns the record."""

    def __init__(self, gpu: GpuWatch | None = None):
        self.gpu = gpu

    def begin(self) -> None:
        self._t0 = time.monotonic()
        self._cpu = _proc_stat_cpu()
        self._ticks = _process_ticks()
        self._freq_before = _cpu_freq_fraction()
        self._load_before = os.getloadavg()[0] if hasattr(os, "getloadavg") else None
        self._gpu_before = self.gpu.state() if self.gpu is not None else None
        if self.gpu is not None:
            self.gpu.xid_errors()  # drop events from before the point

    def end(self) -> dict:
        cpu_after, ticks_after = _proc_stat_cpu(), _process_ticks()
        record: dict = {
            "duration_s": time.monotonic() - self._t0,
            "cpu_count": os.cpu_count(),
            "load_1m_before": self._load_before,
            "cpu_freq_fraction": _min_known(self._freq_before, _cpu_freq_fraction()),
        }
        if self._cpu is not None and cpu_after is not None:
            total = sum(cpu_after.values()) - sum(self._cpu.values())
            # Only this process is the measurement: a child (a test's busy process) competes like any other.
            ours = {os.getpid()}
            other = {}
            for pid, (command, after) in ticks_after.items():
                before = self._ticks.get(pid, (command, 0))[1]
                if pid not in ours and after > before:
                    other[pid] = (command, after - before)
            busiest = sorted(other.items(), key=lambda kv: -kv[1][1])[:BUSIEST_SHOWN]
            record |= {
                "other_cpu_share": min(1.0, sum(t for _, t in other.values()) / total) if total > 0 else 0.0,
                "steal_share": (cpu_after.get("steal", 0) - self._cpu.get("steal", 0)) / total if total > 0 else 0.0,
                "busiest_other_processes": [
                    {"pid": pid, "command": command, "cpu_share": ticks / total} for pid, (command, ticks) in busiest
                ],
            }
        if self.gpu is not None:
            record["gpu_before"], record["gpu_during"] = self._gpu_before, self.gpu.state()
            record["gpu_xid_errors"] = self.gpu.xid_errors()
        return record


def _min_known(*values):
    known = [v for v in values if v is not None]
    return min(known) if known else None


def unfit_reasons(record: dict | None, thresholds: HostThresholds, *, other_processes_apply: bool = True) -> list[str]:
    """Each check the host failed during a point, as "<what>: <figure> (threshold <limit>)"; empty when fit.

    ``other_processes_apply`` is False for an endpoint point: the server measured is itself another process.
    """
    if not record:
        return []
    reasons = []
    other = record.get("other_cpu_share")
    if other_processes_apply and other is not None and other > thresholds.other_cpu_share_max:
        names = ", ".join(f"{p['command']} (pid {p['pid']}) {p['cpu_share']:.0%}"
                          for p in record.get("busiest_other_processes", []))  # fmt: skip
        reasons.append(f"other processes used {other:.0%} of the CPUs (threshold {thresholds.other_cpu_share_max:.0%})"
                       f"; busiest: {names}")  # fmt: skip
    steal = record.get("steal_share")
    if steal is not None and steal > thresholds.steal_share_max:
        reasons.append(f"CPU steal {steal:.1%} (threshold {thresholds.steal_share_max:.0%})")
    freq = record.get("cpu_freq_fraction")
    if freq is not None and freq < thresholds.cpu_freq_min_fraction:
        reasons.append(f"CPU frequency at {freq:.0%} of its maximum (threshold {thresholds.cpu_freq_min_fraction:.0%})")
    for when in ("gpu_before", "gpu_during"):
        gpu = record.get(when)
        if not gpu:
            continue
        moment = "before" if when == "gpu_before" else "during"
        if gpu["other_processes"]:
            shown = ", ".join(f"pid {p['pid']} ({(p['memory_bytes'] or 0) / 2**20:.0f} MiB)"
                              for p in gpu["other_processes"])  # fmt: skip
            reasons.append(f"other processes on the GPU {moment} the point: {shown}")
        if moment == "during" and gpu["clock_event_reasons"]:
            reasons.append(f"GPU slowed itself during the point: {', '.join(gpu['clock_event_reasons'])}")
        sm, sm_max = gpu["sm_clock_mhz"], gpu["sm_clock_max_mhz"]
        if moment == "during" and sm and sm_max and sm / sm_max < thresholds.gpu_sm_clock_min_fraction:
            reasons.append(f"GPU SM clock {sm} MHz, {sm / sm_max:.0%} of its maximum {sm_max} MHz "
                           f"(threshold {thresholds.gpu_sm_clock_min_fraction:.0%})")  # fmt: skip
    before, during = record.get("gpu_before") or {}, record.get("gpu_during") or {}
    ecc_before, ecc_during = before.get("ecc_uncorrected_volatile"), during.get("ecc_uncorrected_volatile")
    if ecc_before is not None and ecc_during is not None and ecc_during > ecc_before:
        reasons.append(f"{ecc_during - ecc_before} uncorrected ECC error(s) during the point")
    if record.get("gpu_xid_errors"):
        reasons.append(f"critical XID error(s) during the point: {', '.join(map(str, record['gpu_xid_errors']))}")
    return reasons


def thresholds_dict(thresholds: HostThresholds) -> dict:
    return asdict(thresholds)
