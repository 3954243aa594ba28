"""The LLM ranking at a target interactivity over the shipped published MLPerf results (issue #15's Must show).

MLPerf publishes one Server (and, from v5.0, one Interactive) point per system: the points of one
accelerator's front are the Server and Interactive results of every system and submitter with that
accelerator, engine and precision. Offline results have no per-user token latency and stay off.
"""

import csv
import io

import pytest

from results.models import BenchmarkRun, OperatingPoint, RunOrigin

pytestmark = pytest.mark.django_db

TARGET_TPS_PER_USER = 10  # between Llama-2-70B's Server (~5-8) and Interactive (~25-30) points
# MLPerf publishes no mean input length for llama2-70b: total-token costs need one stated by the user.
STATED_INPUT_TOKENS = 1000


@pytest.fixture
def published(shipped_data):
    """The catalog and the shipped published results, as `make run` loads them (tests/conftest.py)."""


def _ranking(api, **extra):
    query = {
        "workload": "llama2-70b-99", "price_kind": "cloud_on_demand", "interactivity_tps_per_user": TARGET_TPS_PER_USER,
        "input_tokens_per_request": STATED_INPUT_TOKENS, **extra,
    }  # fmt: skip
    return api.get("/api/v1/rankings/", query)


def test_it_ranks_at_least_four_accelerators_by_cost_per_million_output_and_total_tokens(api, published):
    body = _ranking(api)

    assert body.status_code == 200, body.content
    rows = body.json()["rows"]
    assert len({row["accelerator"]["id"] for row in rows}) >= 4
    for row in rows:
        assert row["costs"]["cost_per_million_output_tokens_usd"] is not None
        assert row["costs"]["cost_per_million_total_tokens_usd"] is not None
        # Total tokens are output + input: the same hour over more tokens is cheaper per token.
        assert float(row["costs"]["cost_per_million_total_tokens_usd"]) < float(
            row["costs"]["cost_per_million_output_tokens_usd"]
        )
        _assert_read_between_two_published_points(row)
    # The same ranking as CSV, for finance.
    lines = list(csv.DictReader(io.StringIO(_ranking(api, format="csv").content.decode("utf-8-sig"))))
    read = [line for line in lines if line["status"] == "read"]
    assert len({line["accelerator"] for line in read}) >= 4
    assert all(line["from_run"] and line["to_run"] and line["cost_per_million_total_tokens_usd"] for line in read)


def _assert_read_between_two_published_points(row):
    low, high = row["interpolated_from"], row["interpolated_to"]
    assert low["interactivity_tps_per_user"] <= TARGET_TPS_PER_USER <= high["interactivity_tps_per_user"]
    assert low["output_tokens_per_s_per_accelerator"] >= row["output_tokens_per_s_per_accelerator"]
    assert row["output_tokens_per_s_per_accelerator"] >= high["output_tokens_per_s_per_accelerator"]
    for named in (low, high):
        assert named["interactivity_source"] == "measured TPOT p99"
        assert named["label"].startswith("published: MLPerf v")
        # The named point is a stored published result of this workload on this accelerator, and its
        # interactivity is 1000 / its stored TPOT p99 (or the median of a system's runs: see docs).
        point = OperatingPoint.objects.select_related("run").get(pk=named["point"])
        assert str(point.run_id) == named["run"] and named["run"] in named["runs"]
        assert point.run.origin == RunOrigin.EXTERNAL and point.run.workload_name == "llama2-70b-99"
        assert point.run.accelerator_id == row["accelerator"]["id"]
        assert point.run.scenario in ("server", "interactive")
        if len(named["runs"]) == 1:
            assert named["interactivity_tps_per_user"] == pytest.approx(1000 / point.tpot_p99_ms)
        else:  # several submitters' runs of one system: the median of their TPOT p99s
            tpots = sorted(
                OperatingPoint.objects.filter(run_id__in=named["runs"]).values_list("tpot_p99_ms", flat=True)
            )
            assert 1000 / tpots[-1] <= named["interactivity_tps_per_user"] <= 1000 / tpots[0]


def test_it_keeps_offline_results_off_the_fronts_and_refuses_fronts_out_of_reach(api, published):
    fronts = api.get("/api/v1/serving/fronts/", {"workload": "llama2-70b-99"}).json()

    offline = [e for f in fronts for e in f["excluded"] if e["point"]["scenario"] == "offline"]
    assert offline and all(e["reason"].startswith("no TPOT measured or bounded (offline)") for e in offline)
    assert BenchmarkRun.objects.filter(workload_name="llama2-70b-99", scenario="offline").count() == len(offline)
    assert all(p["scenario"] != "offline" for f in fronts for p in f["points"])
    refused = _ranking(api).json()["refused"]
    reasons = [r["reason"] for r in refused]
    assert any("refusing to extrapolate" in reason for reason in reasons)
    assert all(r["interactivity_range"] is None or len(r["interactivity_range"]) == 2 for r in refused)


def test_fronts_are_read_in_a_fixed_number_of_queries_whatever_the_number_of_runs(
    published, django_assert_max_num_queries
):
    """Which names mean the workload (1), the runs (1), measured runs' rounds (1 at most), the points (1): no
    query per run or per point, and no run's payload is read for a published result."""
    from accounting.serving.points import fronts

    runs = BenchmarkRun.objects.filter(workload_name="llama2-70b-99").count()
    assert runs > 30
    with django_assert_max_num_queries(4):
        groups = fronts(workload="llama2-70b-99")
    assert groups and all(group.front.points for group in groups)
    with django_assert_max_num_queries(0):  # labels and combined published points need no further read
        labels = [point.label for group in groups for point in group.front.points]
    assert all(label.startswith("published: MLPerf v") for label in labels)
