"""Validity of the machine: a point measured while other processes loaded the host is stored as not valid, with
the reason, and kept out of answers; the shared-host override records the same reason without invalidating."""

import os
import subprocess
import sys

import pytest

from harness.runner import SuiteItem, run_item
from harness.telemetry import host as host_telemetry
from harness.telemetry.host import BUSIEST_SHOWN, HostThresholds, unfit_reasons
from results.ingest import ingest_result
from results.models import BenchmarkRun
from tests.harness.conftest_helpers import FAST

pytestmark = pytest.mark.django_db

SPIN = "print('spinning', flush=True)\nwhile True: pass"


@pytest.fixture
def busy_host():
    """One spinning process per CPU, started before the point: the CPUs are never idle, so however busy the
    machine already was, other processes hold at least (CPUs - this process's share) of them, far over 25%
    (this process's few threads get at most a fair share among the spinners). Each has started spinning before the
    point begins (an interpreter's start-up takes seconds on a loaded host, and used next to no CPU)."""
    spinners = [subprocess.Popen([sys.executable, "-c", SPIN], stdout=subprocess.PIPE, text=True)
                for _ in range(os.cpu_count() or 1)]  # fmt: skip
    for spinner in spinners:
        assert spinner.stdout.readline() == "spinning\n"
    yield {spinner.pid for spinner in spinners}
    for spinner in spinners:
        spinner.kill()
        spinner.wait()


@pytest.fixture
def ticks_read(monkeypatch):
    """Every process's CPU ticks as the host watch read them around the point (a spy on its reads of /proc): what
    each process used during the point, the spinners included, whether or not the record names them."""
    reads, read = [], host_telemetry._process_ticks

    def spy():
        reads.append(read())
        return reads[-1]

    monkeypatch.setattr(host_telemetry, "_process_ticks", spy)
    return reads


def _measure(settings, out_dir) -> dict:
    return run_item(SuiteItem("tabular", "tiny", "single-stream", "eager", "fp32", "cpu", settings), out_dir)


def test_a_point_measured_on_a_busy_host_is_stored_as_not_valid_with_the_reason(
    catalog, busy_host, ticks_read, tmp_path
):
    payload = _measure(FAST.with_(host_checks="enforce", min_duration_ms=500), tmp_path)
    (point,) = payload["points"]
    assert point["validity"]["valid"] is False and point["validity"]["host_checks"] == "enforce"
    reason = next(r for r in point["validity"]["reasons"] if "other processes used" in r)
    assert reason.startswith("not valid: other processes used ") and "of the CPUs (threshold 25%)" in reason
    host = point["validity"]["host"][0]
    assert host["other_cpu_share"] > 0.25
    # The reason names the busiest other processes by command and PID, busiest first, as the record has them.
    busiest = host["busiest_other_processes"]
    assert reason.endswith(
        "; busiest: " + ", ".join(f"{p['command']} (pid {p['pid']}) {p['cpu_share']:.0%}" for p in busiest)
    )
    # They are the top offenders: no process left unnamed used more CPU during the point than one named.
    (before, after), ours = ticks_read[:2], os.getpid()
    used = {pid: ticks - before.get(pid, ("", 0))[1] for pid, (_, ticks) in after.items() if pid != ours}
    named = {p["pid"] for p in busiest}
    assert len(named) == min(BUSIEST_SHOWN, sum(1 for ticks in used.values() if ticks > 0))
    assert min(used[pid] for pid in named) >= max((t for pid, t in used.items() if pid not in named), default=0)
    # The spinners ran throughout the point; each is named by its PID unless BUSIEST_SHOWN other processes were at
    # least as busy (on a host shared with other busy work: the names are then theirs, and the reason still holds).
    for spinner in busy_host:
        assert used[spinner] > 0
        as_busy = sum(1 for pid, ticks in used.items() if pid != spinner and ticks >= used[spinner])
        if as_busy < BUSIEST_SHOWN:
            assert f"(pid {spinner})" in reason, (spinner, used[spinner], busiest)

    outcome = ingest_result(payload, source="test")
    run = BenchmarkRun.objects.get(pk=outcome.run.pk)
    stored = run.points.get()
    assert stored.measurement_valid is False and reason in stored.not_valid_reasons
    assert run.measurement_valid is False and run.not_valid_reasons == [
        f"point 0: {r}" for r in stored.not_valid_reasons
    ]
    assert not BenchmarkRun.objects.that_count().filter(pk=run.pk).exists()  # kept out of answers


def test_the_shared_host_override_records_the_reason_and_keeps_the_point(catalog, busy_host, tmp_path):
    payload = _measure(FAST.with_(host_checks="record", min_duration_ms=500), tmp_path)
    (point,) = payload["points"]
    assert point["validity"]["valid"] is True and point["validity"]["reasons"] == []
    assert any("other processes used" in r for r in point["validity"]["host_unfit_recorded"])


def test_each_gpu_check_names_what_it_saw():
    # What NVML would report on a GPU host during a point, and the reason each check gives.
    record = {
        "gpu_before": {"sm_clock_mhz": 1980, "sm_clock_max_mhz": 1980, "clock_event_reasons": [],
                       "other_processes": [{"pid": 4242, "memory_bytes": 3 * 2**30}], "ecc_uncorrected_volatile": 0},
        "gpu_during": {"sm_clock_mhz": 990, "sm_clock_max_mhz": 1980, "clock_event_reasons": ["HW_THERMAL_SLOWDOWN"],
                       "other_processes": [], "ecc_uncorrected_volatile": 2},
        "gpu_xid_errors": [79],
    }  # fmt: skip
    assert unfit_reasons(record, HostThresholds()) == [
        "other processes on the GPU before the point: pid 4242 (3072 MiB)",
        "GPU slowed itself during the point: HW_THERMAL_SLOWDOWN",
        # 990 / 1980 = 50%, under 70%.
        "GPU SM clock 990 MHz, 50% of its maximum 1980 MHz (threshold 70%)",
        "2 uncorrected ECC error(s) during the point",
        "critical XID error(s) during the point: 79",
    ]


def test_cpu_steal_and_a_low_frequency_are_reasons_and_an_endpoint_ignores_its_server_process():
    record = {"other_cpu_share": 0.6, "busiest_other_processes": [], "steal_share": 0.08, "cpu_freq_fraction": 0.5}
    assert unfit_reasons(record, HostThresholds(), other_processes_apply=False) == [
        "CPU steal 8.0% (threshold 5%)",
        "CPU frequency at 50% of its maximum (threshold 80%)",
    ]
