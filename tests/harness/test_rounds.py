"""Rounds: each point measured several times, a suite's length apart, reported as its median round."""

from pathlib import Path

import pytest

from harness.result import ResultValidationError, validate_result
from harness.runner import PreparedItem, Skip, SuiteItem, run_item, unsettled_points
from harness.scenarios import PointResult, RunSettings
from harness.suite import run_suite

from .conftest_helpers import FAST

THREE_ROUNDS = FAST.with_(rounds=3, offline_batch_sizes=(4,))


def test_a_point_is_its_best_round_with_every_round_recorded(tmp_path):
    result = run_item(SuiteItem("tabular", "tiny", "offline", "eager", "fp32", "cpu", THREE_ROUNDS), tmp_path)
    validate_result(result)
    (point,) = result["points"]
    rounds = point["rounds"]
    assert rounds["count"] == 3 and rounds["chosen_by"] == "throughput_per_s" and len(rounds["values"]) == 3
    valid = [value for value, ok in zip(rounds["values"], rounds["valid"], strict=True) if ok] or rounds["values"]
    assert point["throughput_per_s"] == pytest.approx(max(valid), rel=1e-6)
    assert point["loadgen"]["result_valid"] == rounds["valid"][rounds["chosen_round"] - 1]
    assert point["throughput_per_s"] == pytest.approx(rounds["values"][rounds["chosen_round"] - 1], rel=1e-6)
    assert Path(point["loadgen"]["log_dir"]).name == f"round-{rounds['chosen_round']}"
    for number in (1, 2, 3):
        assert (tmp_path / "loadgen" / result_slug(result) / "batch-4" / f"round-{number}").is_dir()


def test_latency_scenarios_choose_the_round_with_the_lowest_p50(tmp_path):
    result = run_item(SuiteItem("tabular", "tiny", "server", "eager", "fp32", "cpu", THREE_ROUNDS), tmp_path)
    (point,) = result["points"]
    assert point["rounds"]["chosen_by"] == "latency_p50_ms"
    rounds = point["rounds"]
    valid = [value for value, ok in zip(rounds["values"], rounds["valid"], strict=True) if ok] or rounds["values"]
    assert point["latency_ms"]["p50"] == pytest.approx(min(valid), rel=1e-6)


def test_a_suite_measures_round_one_of_every_item_before_round_two_of_any(tmp_path):
    settings = FAST.with_(rounds=2, offline_batch_sizes=(1,))
    items = [
        SuiteItem("tabular", "tiny", "single-stream", "eager", "fp32", "cpu", settings),
        SuiteItem("tabular", "tiny", "offline", "eager", "fp32", "cpu", settings),
    ]
    events = []
    results = list(run_suite(items, tmp_path, progress=events.append))
    order = [(e["round"], e["scenario"]) for e in events if "round" in e]
    assert order == [(1, "single-stream"), (1, "offline"), (2, "single-stream"), (2, "offline")]
    assert [r["scenario"] for r in results] == ["single-stream", "offline"]
    assert all(point["rounds"]["count"] == 2 for r in results for point in r["points"])
    fractions = [e["fraction"] for e in events]
    assert fractions == sorted(fractions) and fractions[-1] == 1.0


def test_a_suite_of_rounds_yields_in_the_order_of_its_items_skips_included(tmp_path):
    settings = FAST.with_(rounds=2)
    items = [
        SuiteItem("tabular", "tiny", "single-stream", "eager", "fp32", "cpu", settings),
        SuiteItem("tabular", "tiny", "single-stream", "cudagraphs", "fp32", "cpu", settings),
        SuiteItem("tabular", "tiny", "single-stream", "eager", "int8", "cpu", settings),
    ]
    first, skipped, third = run_suite(items, tmp_path)
    assert first["precision"] == "fp32" and third["precision"] == "int8"
    assert isinstance(skipped, Skip) and skipped.reason == "CUDA not available"


def test_a_suite_of_one_round_streams_each_item_as_it_finishes(tmp_path):
    items = [SuiteItem("tabular", "tiny", "single-stream", "eager", "fp32", "cpu", FAST)] * 2
    stream = run_suite(items, tmp_path)
    first = next(stream)  # available before the second item has been measured
    assert first["points"][0]["rounds"] == {
        "count": 1,
        "chosen_by": "latency_p50_ms",
        "chosen_round": 1,
        "values": [pytest.approx(first["points"][0]["latency_ms"]["p50"], rel=1e-5)],
        "valid": [first["points"][0]["loadgen"]["result_valid"]],
    }
    assert len(list(stream)) == 1


def _prepared_with_p50s(settings: RunSettings, p50s_ms: list[float]) -> PreparedItem:
    item = SuiteItem("tabular", "tiny", "single-stream", "eager", "fp32", "cpu", settings)
    runs = [
        PointResult("single-stream", 1, 1, None, {"latency_ns": {"p50": p50 * 1e6}}, "", "", "", None, None)
        for p50 in p50s_ms
    ]
    return PreparedItem(item, Path("."), *[None] * 9, labels=["batch=1"], log_root=Path("."), measured={0: runs})


@pytest.mark.parametrize(
    ("p50s_ms", "unsettled"),
    [
        ([1.00, 1.05, 1.09], []),  # best and worst within 10%
        ([1.00, 1.05, 1.30], [0]),  # one round 30% slower: measure the point again
        ([1.00, 1.30, 1.00, 1.30, 1.00], []),  # 3 rounds + 2 extra: no more, however they disagree
    ],
)
def test_a_point_whose_rounds_disagree_gets_an_extra_round(p50s_ms, unsettled):
    settings = FAST.with_(rounds=3, extra_rounds=2, rounds_agreement=0.10)
    assert unsettled_points(_prepared_with_p50s(settings, p50s_ms)) == unsettled


def test_the_best_round_is_taken_among_the_valid_ones():
    from harness.runner import _best_round
    from harness.scenarios import get_scenario

    runs = [
        PointResult("single-stream", 1, 1, None, {"latency_ns": {"p50": p50 * 1e6}, "result_valid": ok}, "", "", "",
                    None, None)
        for p50, ok in [(1.0, False), (1.2, True), (1.1, True)]
    ]  # fmt: skip
    chosen, rounds = _best_round(get_scenario("single-stream", FAST), runs)
    assert chosen is runs[2] and rounds["chosen_round"] == 3 and rounds["valid"] == [False, True, True]


def test_extra_rounds_are_measured_and_kept_with_the_others(tmp_path):
    always_disagree = FAST.with_(rounds=2, extra_rounds=1, rounds_agreement=0.0)
    result = run_item(SuiteItem("tabular", "tiny", "single-stream", "eager", "fp32", "cpu", always_disagree), tmp_path)
    assert result["points"][0]["rounds"]["count"] == 3
    assert (tmp_path / "loadgen" / result_slug(result) / "batch-1" / "round-3").is_dir()


def test_extra_rounds_stop_when_their_time_budget_is_spent(tmp_path):
    no_time = FAST.with_(rounds=2, extra_rounds=3, rounds_agreement=0.0, extra_rounds_budget_s=0.0)
    result = run_item(SuiteItem("tabular", "tiny", "single-stream", "eager", "fp32", "cpu", no_time), tmp_path)
    assert result["points"][0]["rounds"]["count"] == 2


def test_rounds_must_be_at_least_one():
    with pytest.raises(ValueError, match="rounds must be at least 1"):
        RunSettings(rounds=0)


def test_a_bad_rounds_record_is_rejected_with_its_path(tmp_path):
    result = run_item(SuiteItem("tabular", "tiny", "single-stream", "eager", "fp32", "cpu", FAST), tmp_path)
    result["points"][0]["rounds"]["chosen_by"] = "vibes"
    with pytest.raises(ResultValidationError, match=r"^points\[0\]\.rounds\.chosen_by: .vibes. is not one of"):
        validate_result(result)


def result_slug(result: dict) -> str:
    return f"{result['workload']['name']}_{result['scenario']}_{result['backend']}_{result['precision']}_cpu"
