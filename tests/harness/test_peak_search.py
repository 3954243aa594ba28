"""find_peak_qps bisects LoadGen Server runs to the highest rate meeting a p99 target."""

from agents.harness.backends.eager import EagerBackend
from agents.harness.scenarios import Engine, find_peak_qps
from agents.harness.telemetry import TelemetrySession
from agents.harness.workloads import get_workload

from .conftest_helpers import FAST


def test_it_finds_a_rate_that_meets_the_target(tmp_path):
    workload = get_workload("tabular")
    backend = EagerBackend()
    backend.load(workload.build(), workload.example_inputs(2))
    engine = Engine(workload, backend, sample_count=8)
    search = find_peak_qps(
        engine, FAST, target_p99_ms=20.0, log_dir=tmp_path, telemetry=TelemetrySession(), iterations=3
    )
    assert len(search.tried) == 3
    assert search.peak_qps is not None and search.peak_qps == max(t["qps"] for t in search.tried if t["passed"])
    assert all(t["p99_ms"] <= 20.0 for t in search.tried if t["passed"])
