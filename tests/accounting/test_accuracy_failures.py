"""A run whose accuracy guard fails: stored as measured, marked failed with its figures, never ranked.

The failure is forced with a backend whose outputs the test offsets, so it holds on any CPU.
"""

import html

import pytest

from accounting import policy
from accounting.rankings.ranking import ranking
from harness.backends import BACKENDS
from harness.runner import SuiteItem, run_item
from results.ingest import STORED, ingest_result
from results.models import BenchmarkRun
from tests.harness.conftest_helpers import FAST, perturbed_eager

pytestmark = pytest.mark.django_db

# Far beyond the bf16 tolerance (5% of max(1, max|reference output|)) of the tiny tabular model.
OFFSET = 1e6


def _measured_bf16(tmp_path, monkeypatch, offset: float) -> dict:
    monkeypatch.setitem(BACKENDS, "eager", perturbed_eager(offset))
    payload = run_item(SuiteItem("tabular", "tiny", "offline", "eager", "bf16", "cpu", FAST), tmp_path)
    # LoadGen's verdict on a short run is this machine's (a busy box can miss its minimum duration); pin
    # it VALID in both runs so that only the accuracy guard decides which one is ranked.
    for point in payload["points"]:
        point["loadgen"]["result_valid"] = True
    return payload


def test_it_stores_a_run_that_fails_its_guard_and_keeps_it_out_of_rankings(catalog, tmp_path, monkeypatch, api, client,
                                                                           user):  # fmt: skip
    passing = _measured_bf16(tmp_path / "passing", monkeypatch, 0.0)
    failing = _measured_bf16(tmp_path / "failing", monkeypatch, OFFSET)  # later: the latest of its configuration
    assert passing["accuracy"]["passed"], passing["accuracy"]
    assert ingest_result(passing, source="test").status == STORED
    assert ingest_result(failing, source="test").status == STORED

    run = BenchmarkRun.objects.get(pk=failing["run_id"])
    assert run.accuracy_passed is False and run.loadgen_valid
    assert run.accuracy == failing["accuracy"] and run.accuracy["max_abs_error"] > run.accuracy["tolerance"]
    (reason,) = policy.why_not_ranked(run)
    assert reason.startswith(
        f"accuracy guard failed: max abs error {run.accuracy['max_abs_error']:.3g} > tolerance "
        f"{run.accuracy['tolerance']:.3g} against fp32"
    )
    assert policy.why_not_ranked(BenchmarkRun.objects.get(pk=passing["run_id"])) == []

    eligible = {str(pk) for pk in policy.eligible_runs(workload="tabular-tiny").values_list("pk", flat=True)}
    assert eligible == {passing["run_id"]}
    board = ranking(workload="tabular-tiny", sla_p99_ms=None, price_kind="cloud_on_demand", backend="eager",
                    precision="bf16")  # fmt: skip
    assert [str(row.run.pk) for row in board.rows] == [passing["run_id"]]
    response = api.get(
        "/api/v1/rankings/?workload=tabular-tiny&price_kind=cloud_on_demand&backend=eager&precision=bf16"
    )
    assert response.status_code == 200, response.data
    assert [str(row["run"]["id"]) for row in response.data["rows"]] == [passing["run_id"]]

    # The reason is shown where the run is read: its API record and its dashboard page.
    record = api.get(f"/api/v1/runs/{run.pk}/").data
    assert record["accuracy_passed"] is False and record["accuracy"] == failing["accuracy"]
    client.force_login(user)
    page = html.unescape(client.get(f"/runs/{run.pk}/").content.decode())
    assert f"Not ranked: {reason}." in page


def test_it_explains_exactly_the_runs_that_rankings_leave_out(make_accelerator, make_run):
    gpu = make_accelerator("Gamma")
    accuracy = {"reference_precision": "fp32", "max_abs_error": 0.3, "tolerance": 0.1, "top1_agreement": None,
                "passed": False}  # fmt: skip
    runs = [
        make_run(
            gpu,
            [{"throughput_per_s": 10, "latency_p99_ms": 5}],
            loadgen_valid=valid,
            accuracy_passed=passed,
            accuracy=accuracy if passed is False else None,
            backend=f"b{n}",
        )  # fmt: skip
        for n, (valid, passed) in enumerate([(v, p) for v in (True, False) for p in (True, False, None)])
    ]
    eligible = set(policy.eligible_runs(workload="resnet50").values_list("pk", flat=True))
    for run in runs:
        assert (run.pk in eligible) == (policy.why_not_ranked(run) == []), policy.why_not_ranked(run)
    assert policy.why_not_ranked(runs[4]) == [
        "LoadGen judged a point INVALID",
        "accuracy guard failed: max abs error 0.3 > tolerance 0.1 against fp32",
    ]
