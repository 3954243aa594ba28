"""A backend that raises mid-run fails its point within seconds, with its traceback; it never hangs LoadGen.

Before, an exception in the offline worker or the batcher thread killed that thread, LoadGen waited forever
for the queries it had issued, and the suite reported any error as a "skip".
"""

import threading
import time

import pytest

from harness.backends.eager import EagerBackend
from harness.runner import Failure, Skip, SuiteItem
from harness.scenarios import Engine, SutFailed, run_offline, run_server, run_single_stream
from harness.suite import run_suite
from harness.telemetry import TelemetrySession
from harness.workloads import get_workload
from tests.harness.conftest_helpers import FAST, break_offline_eager_forward

# Generous, so that it holds on a slow shared machine: the point is "ends", not "fast".
ENDS_WITHIN_S = 30
# A hung LoadGen test blocks in C++ where a signal cannot interrupt it: end the whole test run instead.
NEVER_HANG = pytest.mark.timeout(120, method="thread")


class BreaksOnCall(EagerBackend):
    """Eager fp32 that raises on its ``fail_on``-th forward call (1-based, counted from construction)."""

    def __init__(self, fail_on: int):
        super().__init__("fp32", "cpu")
        self.fail_on, self.calls, self.threads = fail_on, 0, set()

    def forward(self, *inputs):
        self.calls += 1
        self.threads.add(threading.current_thread().name)
        if self.calls == self.fail_on:
            raise RuntimeError(f"backend broke on call {self.calls}")
        return super().forward(*inputs)


def _engine(fail_on: int) -> tuple[Engine, BreaksOnCall]:
    workload = get_workload("tabular")
    backend = BreaksOnCall(fail_on)
    backend.load(workload.build(), workload.example_inputs(2))
    return Engine(workload, backend, FAST.performance_sample_count), backend


def _fails_within_bound(run) -> SutFailed:
    started = time.monotonic()
    with pytest.raises(SutFailed) as failed:
        run()
    assert time.monotonic() - started < ENDS_WITHIN_S
    assert isinstance(failed.value.__cause__, RuntimeError) and "backend broke" in str(failed.value)
    return failed.value


@NEVER_HANG
def test_it_fails_an_offline_point_whose_backend_raises_in_the_worker_thread(tmp_path):
    engine, backend = _engine(fail_on=6)
    _fails_within_bound(lambda: run_offline(engine, FAST, 1, tmp_path, TelemetrySession("cpu"), expected_qps=2000.0))
    assert backend.threads == {"offline-sut"}


@NEVER_HANG
def test_it_fails_a_server_point_whose_backend_raises_in_the_batcher_thread(tmp_path):
    engine, backend = _engine(fail_on=6)
    _fails_within_bound(lambda: run_server(engine, FAST, 200.0, tmp_path, TelemetrySession("cpu")))
    assert backend.threads == {"dynamic-batcher"}


@NEVER_HANG
def test_it_fails_a_single_stream_point_whose_backend_raises_in_loadgens_thread(tmp_path):
    calibration_calls = 2 * FAST.warmup_queries
    engine, backend = _engine(fail_on=calibration_calls + 6)
    _fails_within_bound(lambda: run_single_stream(engine, FAST, tmp_path, TelemetrySession("cpu")))
    assert backend.calls >= calibration_calls + 6


@NEVER_HANG
def test_a_suite_reports_an_item_that_raised_as_a_failure_with_its_traceback_not_a_skip(tmp_path, monkeypatch):
    break_offline_eager_forward(monkeypatch, on_batch=6)
    items = [
        SuiteItem("tabular", "tiny", "offline", "eager", "fp32", "cpu", FAST.with_(offline_batch_sizes=(1,))),
        SuiteItem("tabular", "tiny", "offline", "cudagraphs", "fp32", "cpu", FAST),
    ]
    started = time.monotonic()
    failed, skipped = run_suite(items, tmp_path)
    assert time.monotonic() - started < ENDS_WITHIN_S
    assert isinstance(failed, Failure) and failed.error.startswith("SutFailed: offline: the backend raised")
    assert "Traceback (most recent call last)" in failed.traceback
    assert "RuntimeError: backend broke mid-run" in failed.traceback and "in forward" in failed.traceback
    assert isinstance(skipped, Skip) and skipped.reason == "CUDA not available"
