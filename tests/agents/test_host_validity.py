"""Validity of the machine: a point measured while other processes loaded the host is stored as not valid, with
the reason, and kept out of answers; the shared-host override records the same reason without invalidating."""

import os
import subprocess
import sys

import pytest

from harness.runner import SuiteItem, run_item
from harness.telemetry.host import HostThresholds, unfit_reasons
from results.ingest import ingest_result
from results.models import BenchmarkRun
from tests.harness.conftest_helpers import FAST

pytestmark = pytest.mark.django_db

SPIN = "while True: pass"


@pytest.fixture
def busy_host():
    """One spinning process per CPU, started before the point: the CPUs are never idle, so however busy the
    machine already was, other processes hold at least (CPUs - this process's share) of them, far over 25%
    (this process's few threads get at most a fair share among the spinners)."""
    spinners = [subprocess.Popen([sys.executable, "-c", SPIN]) for _ in range(os.cpu_count() or 1)]
    yield {spinner.pid for spinner in spinners}
    for spinner in spinners:
        spinner.kill()
        spinner.wait()


def _measure(settings, out_dir) -> dict:
    return run_item(SuiteItem("tabular", "tiny", "single-stream", "eager", "fp32", "cpu", settings), out_dir)


def test_a_point_measured_on_a_busy_host_is_stored_as_not_valid_with_the_reason(catalog, busy_host, tmp_path):
    payload = _measure(FAST.with_(host_checks="enforce", min_duration_ms=500), tmp_path)
    (point,) = payload["points"]
    assert point["validity"]["valid"] is False and point["validity"]["host_checks"] == "enforce"
    reason = next(r for r in point["validity"]["reasons"] if "other processes used" in r)
    assert reason.startswith("not valid: other processes used ") and "of the CPUs (threshold 25%)" in reason
    host = point["validity"]["host"][0]
    assert host["other_cpu_share"] > 0.25
    # The busiest others are named (on a machine busier still, they may be other than the spinners).
    assert len(host["busiest_other_processes"]) >= 1 and "; busiest: " in reason

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
