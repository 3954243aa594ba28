"""find_peak_qps bisects LoadGen Server runs to the highest rate meeting a p99 target."""

from harness.backends.eager import EagerBackend
from harness.scenarios import Engine, find_peak_qps
from harness.telemetry import TelemetrySession
from harness.workloads import get_workload

from .conftest_helpers import FAST


def test_it_finds_a_rate_that_meets_the_target(tmp_path):
    workload = get_workload("tabular")
    backend = EagerBackend()
    backend.load(workload.build(), workload.example_inputs(2))
    engine = Engine(workload, backend, sample_count=8)
    search = find_peak_qps(
        engine, FAST, target_p99_ms=20.0, log_dir=tmp_path, telemetry=TelemetrySession(), iterations=3
    )
    # Which rates meet 20 ms is this machine's measurement; what holds anywhere is how the search uses it:
    # it stops at once when even the lowest rate misses, otherwise it bisects up after a pass, down after a miss.
    tried = search.tried
    assert len(tried) == 3 or (len(tried) == 1 and not tried[0]["passed"])
    assert all(t["p99_ms"] <= 20.0 for t in tried if t["passed"])
    for before, after in zip(tried, tried[1:], strict=False):
        assert (after["qps"] > before["qps"]) == before["passed"]
    assert search.peak_qps == max((t["qps"] for t in tried if t["passed"]), default=None)
