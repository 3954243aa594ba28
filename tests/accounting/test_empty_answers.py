"""An answer with nothing to show says why (issues #24 item 7, #28 item 3): one worked example per reason.

Each reason is the first rule of the question that left nothing (accounting.empty_answers), in the body of the
rankings and the serving ranking (`empty_reason`) and in the X-Empty-Reason header (the fronts' list too).
"""

from datetime import UTC, datetime

import pytest

from tests.accounting.serving.data import llm_point, make_sweep

pytestmark = pytest.mark.django_db

RANKING = {"workload": "resnet50", "price_kind": "cloud_on_demand"}
MARCH = datetime(2025, 3, 1, tzinfo=UTC)  # make_run's default start


def _empty(response) -> str:
    """The reason of an empty answer, checked to be the same in the body and the header."""
    assert response.status_code == 200, response.content
    assert response.data["rows"] == []
    reason = response.data["empty_reason"]
    assert reason and response["X-Empty-Reason"] == reason
    return reason


@pytest.fixture
def fast(make_accelerator):
    return make_accelerator("Fast")


def test_it_says_nothing_is_stored_for_the_workload(api):
    reason = _empty(api.get("/api/v1/rankings/", RANKING))
    assert reason.startswith("no run or published result of resnet50 is stored")


def test_it_counts_the_stored_runs_that_do_not_count_and_why(api, fast, make_price, make_run):
    make_price(fast, "2.00")
    make_run(fast, [{"throughput_per_s": 400, "latency_p99_ms": 9.0}], loadgen_valid=False)
    make_run(fast, [{"throughput_per_s": 400, "latency_p99_ms": 9.0}], accuracy_passed=False, precision="int8")
    reason = _empty(api.get("/api/v1/rankings/", RANKING))
    assert reason == (
        "none of the 2 stored runs of resnet50 counts (1 with LoadGen judged a point INVALID; 1 with the accuracy "
        "guard failed): each run's page says why"
    )


def test_an_as_of_before_every_run_names_the_earliest(api, fast, make_price, make_run):
    make_price(fast, "2.00")
    make_run(fast, [{"throughput_per_s": 400, "latency_p99_ms": 9.0}], started_at=MARCH)
    make_run(fast, [{"throughput_per_s": 500, "latency_p99_ms": 9.0}], started_at=datetime(2025, 5, 1, tzinfo=UTC))
    reason = _empty(api.get("/api/v1/rankings/", RANKING | {"as_of": "2023-01-01"}))
    assert reason == (
        "no result of resnet50 that counts started on or before 2023-01-01: the earliest started on 2025-03-01"
    )
    # The day of the first run answers it (as_of is the end of that day).
    assert api.get("/api/v1/rankings/", RANKING | {"as_of": "2025-03-01"}).data["empty_reason"] is None


def test_a_precision_or_backend_no_run_has_names_those_there_are(api, fast, make_price, make_run):
    make_price(fast, "2.00")
    make_run(fast, [{"throughput_per_s": 400, "latency_p99_ms": 9.0}], precision="fp16", backend="eager")
    reason = _empty(api.get("/api/v1/rankings/", RANKING | {"precision": "int8", "backend": "onnxruntime"}))
    assert reason == (
        "no result of resnet50 at precision int8 on backend onnxruntime: those that count are at precision fp16 "
        "on backend eager"
    )


def test_published_none_with_only_published_results_says_so(api, fast, make_price, make_run):
    make_price(fast, "2.00")
    make_run(fast, [{"throughput_per_s": 400, "latency_p99_ms": 9.0}], origin="external",
             external_source="MLPerf Inference v5.0, Test")  # fmt: skip
    reason = _empty(api.get("/api/v1/rankings/", RANKING | {"published": "none"}))
    assert reason == (
        "only published results of resnet50 count (1), and published=none counts measured runs only: ask "
        "published=fill or all"
    )
    assert api.get("/api/v1/rankings/", RANKING).data["rows"]  # the default (fill) ranks it


def test_a_run_older_than_every_price_names_the_earliest_price(api, fast, make_price, make_run):
    # The run is from 2025-03-01; the only price takes effect on 2025-06-01: as of 2025-04-01 nothing is priced.
    price = make_price(fast, "2.00", effective_from=datetime(2025, 6, 1, tzinfo=UTC))
    make_run(fast, [{"throughput_per_s": 400, "latency_p99_ms": 9.0}])
    response = api.get("/api/v1/rankings/", RANKING | {"as_of": "2025-04-01"})
    assert _empty(response) == (
        "none of the 1 accelerators with results (NVIDIA Fast) has a cloud_on_demand price in force on 2025-04-01: "
        f"the earliest takes effect on 2025-06-01 (NVIDIA Fast, TestCloud t.1, price row {price.pk})"
    )
    assert response.data["infeasible"][0]["reason"] == "no cloud_on_demand price in force at 2025-04-01"


def test_a_price_kind_nobody_has_says_there_is_none_at_all(api, fast, make_price, make_run):
    make_price(fast, "2.00")
    make_run(fast, [{"throughput_per_s": 400, "latency_p99_ms": 9.0}])
    query = RANKING | {"price_kind": "cloud_spot", "region": "eu-west-1", "as_of": "2025-07-01"}
    assert _empty(api.get("/api/v1/rankings/", query)) == (
        "none of the 1 accelerators with results (NVIDIA Fast) has a cloud_spot price in region eu-west-1 in force "
        "on 2025-07-01, nor any cloud_spot price in region eu-west-1 at all"
    )


def test_an_sla_every_accelerator_misses_says_how_many_and_the_best(api, fast, make_accelerator, make_price, make_run):
    slow = make_accelerator("Slow")
    make_price(fast, "2.00")
    make_price(slow, "1.00")
    make_run(fast, [{"throughput_per_s": 400, "latency_p99_ms": 9.0}, {"throughput_per_s": 100, "latency_p99_ms": 6}])
    make_run(slow, [{"throughput_per_s": 400, "latency_p99_ms": 30.0}])
    # Best p99 per accelerator: Fast 6 ms (its second point), Slow 30 ms; both above 5 ms, so 2 excluded, best 6.
    reason = _empty(api.get("/api/v1/rankings/", RANKING | {"sla_p99_ms": "5"}))
    assert reason == (
        "all 2 accelerators with results and a cloud_on_demand price in force miss the SLA p99 <= 5.000 ms: "
        "p99 <= 5.000 ms excludes 2 (the best is 6.000 ms)"
    )


def test_a_ranking_with_rows_gives_no_reason(api, fast, make_price, make_run):
    make_price(fast, "2.00")
    make_run(fast, [{"throughput_per_s": 400, "latency_p99_ms": 9.0}])
    response = api.get("/api/v1/rankings/", RANKING | {"utilization": "0.5"})
    assert response.data["rows"] and response.data["empty_reason"] is None
    assert "X-Empty-Reason" not in response


def test_the_csv_of_an_empty_ranking_has_one_line_saying_why(api):
    response = api.get("/api/v1/rankings/", RANKING | {"format": "csv"})
    lines = response.content.decode("utf-8-sig").strip().splitlines()
    assert len(lines) == 2 and lines[1].startswith(",empty,") and "no run or published result of resnet50" in lines[1]


@pytest.fixture
def sweep(make_accelerator, make_price, make_run):
    return make_sweep(make_accelerator, make_price, make_run)


SERVING = {"workload": "llama3.1-8b", "price_kind": "cloud_on_demand"}


def test_the_serving_ranking_says_which_bound_left_nothing(api, sweep):
    # TPOT p99 <= 10 ms is 100 tokens/s per user; the fastest point measured has a TPOT of 25 ms (Alpha's third),
    # so TPOT excludes both accelerators; every TTFT is 300 ms, within 2000: TTFT excludes none.
    response = api.get("/api/v1/serving/ranking/", SERVING | {"ttft_p99_ms": "2000", "tpot_p99_ms": "10"})
    assert _empty(response) == (
        "all 2 accelerators with results and a cloud_on_demand price in force miss the SLA TTFT p99 <= 2000.000 ms "
        "and TPOT p99 <= 10.000 ms: TTFT p99 <= 2000.000 ms excludes 0 (the best is 300.000 ms); TPOT p99 <= "
        "10.000 ms excludes 2 (the best is 25.000 ms)"
    )


def test_the_serving_ranking_says_no_front_reaches_the_speed(api, sweep):
    # Alpha is measured up to 40 tokens/s per user, Beta up to 20: neither front reaches 80.
    response = api.get("/api/v1/serving/ranking/", SERVING | {"interactivity_tps_per_user": "80"})
    reason = _empty(response)
    refusals = {row["reason"] for row in response.data["refused"]}
    assert reason.startswith("all 2 results with a cloud_on_demand price in force are left out: ")
    assert all(refusal in reason for refusal in refusals)


def test_the_serving_ranking_as_of_before_every_run(api, sweep):
    response = api.get(
        "/api/v1/serving/ranking/", SERVING | {"interactivity_tps_per_user": "10", "as_of": "2024-01-01"}
    )
    assert _empty(response) == (
        "no result of llama3.1-8b that counts started on or before 2024-01-01: the earliest started on 2025-03-01"
    )


def test_an_empty_list_of_fronts_says_why_in_a_header(api, sweep, make_accelerator, make_run):
    assert "X-Empty-Reason" not in api.get("/api/v1/serving/fronts/", {"workload": "llama3.1-8b"})
    response = api.get("/api/v1/serving/fronts/", {"workload": "llama3.1-8b", "as_of": "2024-01-01"})
    assert response.status_code == 200 and response.data == []
    assert response["X-Empty-Reason"] == (
        "no result of llama3.1-8b that counts started on or before 2024-01-01: the earliest started on 2025-03-01"
    )
    nothing = api.get("/api/v1/serving/fronts/", {"workload": "llama2-70b-99"})
    assert nothing.data == [] and nothing["X-Empty-Reason"].startswith("no run or published result of llama2-70b-99")
    # A run whose points state no output tokens/s is stored and counts, but draws no front.
    gamma = make_accelerator("Gamma")
    no_tokens = llm_point(50, 100) | {"output_tokens_per_s": None, "throughput_unit": "samples"}
    make_run(gamma, [no_tokens], model_class="llm-decoder", workload_name="llama2-70b-99")
    response = api.get("/api/v1/serving/fronts/", {"workload": "llama2-70b-99"})
    assert response.data == [] and response["X-Empty-Reason"] == (
        "no operating point of the 1 results of llama2-70b-99 that count states output tokens/s, so none can be "
        "drawn on a front"
    )


def test_the_header_is_one_line_whatever_the_question_echoes(api, fast, make_price, make_run):
    make_price(fast, "2.00")
    make_run(fast, [{"throughput_per_s": 400, "latency_p99_ms": 9.0}])
    response = api.get("/api/v1/rankings/", RANKING | {"region": "eu\nwest\u00e9\u4e00", "as_of": "2025-07-01"})
    assert "in region eu\nwest\u00e9\u4e00 in force" in response.data["empty_reason"]  # the body: as asked
    assert "in region eu west\u00e9? in force" in response["X-Empty-Reason"]  # the header: one Latin-1 line


def test_an_empty_answer_spells_out_its_three_commonest_reasons_and_counts_the_rest():
    """228 fronts each below its own slowest speed made a 57,000-character reason (in a header too)."""
    from types import SimpleNamespace

    from accounting.empty_answers import _left_out

    left_out = [(None, "too slow")] * 3 + [(None, "no price")] * 2 + [(None, f"below {n} tokens/s") for n in (7, 8, 9)]
    reason = _left_out(SimpleNamespace(price_kind="cloud_spot"), left_out, priced=8)
    # 8 left out: "too slow" 3, "no price" 2, then three reasons of 1 each; the first of those is said (3 in all),
    # the other two counted: 2 results, 2 reasons.
    assert reason == (
        "all 8 results with a cloud_spot price in force are left out: too slow (3); no price (2); below 7 tokens/s "
        "(1); and 2 more, for 2 other reasons (each listed in the answer)"
    )


def test_a_long_reason_is_cut_in_the_header_and_kept_whole_in_the_body():
    from django.http import HttpResponse

    from accounting.api.empty import HEADER_MAX_CHARS, with_empty_reason

    reason = "why " * 2000  # 8,000 characters: past the 8 KB that proxies accept in a header
    header = with_empty_reason(HttpResponse(), reason)["X-Empty-Reason"]
    assert len(header) == HEADER_MAX_CHARS and header.endswith(" ... (cut)") and header.startswith("why why")
