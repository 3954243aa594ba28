"""Rounds: each point measured several times, a suite's length apart, reported as its median round."""

from pathlib import Path

import pytest

from harness.result import ResultValidationError, validate_result
from harness.runner import PreparedItem, Skip, SuiteItem, run_item, unsettled_points
from harness.scenarios import PointResult, RunSettings
from harness.stats import LATENCY_KEYS
from harness.suite import run_suite

from .conftest_helpers import FAST

THREE_ROUNDS = FAST.with_(rounds=3, offline_batch_sizes=(4,))


def test_a_point_is_the_median_of_its_rounds_with_an_interval_and_every_round_recorded(tmp_path):
    result = run_item(SuiteItem("tabular", "tiny", "offline", "eager", "fp32", "cpu", THREE_ROUNDS), tmp_path)
    validate_result(result)
    (point,) = result["points"]
    rounds = point["rounds"]
    assert rounds["count"] == 3 and rounds["chosen_by"] == "throughput_per_s" and len(rounds["values"]) == 3
    low, middle, high = sorted(rounds["values"])
    # Offline's figure is its throughput: the median of three rounds, and min..max at 1 - 2 * (1/2)**3 = 75%.
    assert point["throughput_per_s"] == pytest.approx(middle, rel=1e-5)
    interval = point["throughput_interval_per_s"]
    assert (interval["low"], interval["high"], interval["confidence"]) == (
        pytest.approx(low, rel=1e-5), pytest.approx(high, rel=1e-5), 0.75,
    )  # fmt: skip
    assert rounds["spread"] == pytest.approx((high - low) / middle, rel=1e-4)
    assert Path(point["loadgen"]["log_dir"]).name == f"round-{rounds['chosen_round']}"
    for number in (1, 2, 3):
        assert (tmp_path / "loadgen" / result_slug(result) / "batch-4" / f"round-{number}").is_dir()


def test_latency_scenarios_show_the_round_nearest_the_median_p50(tmp_path):
    result = run_item(SuiteItem("tabular", "tiny", "server", "eager", "fp32", "cpu", THREE_ROUNDS), tmp_path)
    (point,) = result["points"]
    rounds = point["rounds"]
    assert rounds["chosen_by"] == "latency_p50_ms"
    assert point["latency_ms"]["p50"] == pytest.approx(rounds["values"][rounds["chosen_round"] - 1], rel=1e-5)


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
    (point,) = first["points"]
    rounds = point["rounds"]
    assert (rounds["count"], rounds["chosen_round"], rounds["spread"]) == (1, 1, 0.0)
    assert rounds["values"] == [pytest.approx(point["latency_ms"]["p50"], rel=1e-5)]
    # One round has no interval: low = high = the figure, at a confidence of 0.
    assert rounds["interval"]["confidence"] == 0.0 and rounds["interval"]["low"] == rounds["interval"]["high"]
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


def _single_stream_runs(p50s_ms_and_valid):
    from harness.scenarios.loadgen_run import SutRecord
    from harness.telemetry import PointEnergy

    def parsed(p50_ms: float, ok: bool) -> dict:
        latency_ns = dict.fromkeys(LATENCY_KEYS, p50_ms * 1e6)
        return {"latency_ns": latency_ns, "result_valid": ok, "samples_per_second": 1000 / p50_ms}

    return [
        PointResult("single-stream", 1, 1, None, parsed(p50, ok), "summary", "", "", SutRecord(samples=16),
                    PointEnergy(None, None, 1.0))
        for p50, ok in p50s_ms_and_valid
    ]  # fmt: skip


def test_the_round_shown_is_the_valid_one_nearest_the_median():
    from harness.rounds import point_from_rounds
    from harness.scenarios import get_scenario

    # p50s 1.0 (LoadGen INVALID), 1.2, 1.1: median 1.1, the third round, which is VALID.
    runs = _single_stream_runs([(1.0, False), (1.2, True), (1.1, True)])
    point = point_from_rounds(get_scenario("single-stream", FAST), runs, FAST.with_(rounds_agreement=0.5))
    assert point["rounds"]["chosen_round"] == 3 and point["rounds"]["valid"] == [False, True, True]
    assert point["latency_ms"]["p50"] == pytest.approx(1.1)
    # Throughputs 1000/1.0, 1000/1.2, 1000/1.1 = 1000, 833.3, 909.1: median 909.1.
    assert point["throughput_per_s"] == pytest.approx(909.0909, rel=1e-6)
    assert point["validity"]["valid"] is True


def test_rounds_that_disagree_beyond_the_stated_spread_make_the_point_not_valid():
    from harness.rounds import point_from_rounds
    from harness.scenarios import get_scenario

    # Throughputs 292.9, 383.6, 348.5, 1234.3/s (the quick suite on a loaded host): median (348.5 + 383.6) / 2
    # = 366.05. The rounds' figure is p50 = 1000 / throughput ms: 3.414, 2.607, 2.869, 0.810, median 2.738,
    # spread (3.414 - 0.810) / 2.738 = 95%, far beyond 10%: not valid (and not the fastest round).
    runs = _single_stream_runs([(1000 / t, True) for t in (292.9, 383.6, 348.5, 1234.3)])
    point = point_from_rounds(get_scenario("single-stream", FAST), runs, FAST.with_(rounds_agreement=0.10))
    assert point["throughput_per_s"] == pytest.approx(366.05, rel=1e-6)
    assert point["validity"]["valid"] is False
    (reason,) = point["validity"]["reasons"]
    assert reason.startswith("not valid: rounds disagree: latency_p50_ms ") and "(allowed 10%)" in reason


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


def test_the_progress_bar_never_goes_back_when_extra_rounds_begin(tmp_path, monkeypatch):
    from harness import runner

    # Extra rounds used to report a fixed share (0.975) however far the rounds had taken the bar: with it set
    # below where two items' rounds end, the bar would jump back at the first extra round.
    monkeypatch.setattr(runner, "EXTRA_ROUNDS_SHARE", 0.1)
    always_disagree = FAST.with_(rounds=2, extra_rounds=1, rounds_agreement=0.0)
    items = [SuiteItem("tabular", "tiny", "single-stream", "eager", "fp32", "cpu", always_disagree)] * 2
    events = []
    list(run_suite(items, tmp_path, progress=events.append))
    assert any("extra round" in str(e.get("point")) for e in events)
    fractions = [e["fraction"] for e in events]
    assert fractions == sorted(fractions) and fractions[-1] == 1.0
