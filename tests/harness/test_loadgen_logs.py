"""One parser for LoadGen logs: ours and published MLPerf submissions."""

from pathlib import Path

import pytest

from harness.loadgen_logs import parse_detail, parse_summary, percentile_key, read_run_dir
from harness.runner import SuiteItem, run_item
from tests.fixtures import MLPERF_SAMPLE

from .conftest_helpers import FAST

SAMPLE = MLPERF_SAMPLE
SAMPLE_FILES = sorted(SAMPLE.rglob("mlperf_log_summary.txt"))
RESULTS = SAMPLE / "closed/Dell/results"


@pytest.mark.parametrize("path", SAMPLE_FILES, ids=lambda p: "/".join(p.parts[-6:-3]))
def test_it_reads_published_mlperf_summaries(path):
    parsed = parse_summary(path.read_text())
    assert parsed["verdict"] == "VALID" and parsed["result_valid"] is True
    assert parsed["scenario"] in ("Offline", "Server")
    assert parsed["samples_per_second"] > 0
    assert set(parsed["latency_ns"]) >= {"min", "mean", "p50", "p90", "p99", "p99_9", "max"}
    assert parsed["test_parameters"]["min_duration (ms)"] >= 600000


def test_it_reads_llm_token_metrics_from_a_published_server_run():
    run = read_run_dir(RESULTS / "XE9680_H100_SXM_80GBx8_TRT/llama2-70b-99/Server/performance/run_1")
    assert run["tokens_per_second"] == 21589.17 and run["samples_per_second"] == 74.42
    assert run["first_token_latency_ns"]["p99"] == 473977293
    assert run["time_per_output_token_ns"]["p99"] == 179798757
    assert run["early_stopping"]["met"] is True and run["detail_text"] is None


def test_it_reads_our_own_logs_both_ways(tmp_path):
    result = run_item(SuiteItem("llm-decoder", "tiny", "single-stream", "eager", "fp32", "cpu", FAST), tmp_path)
    log_dir = Path(result["points"][0]["loadgen"]["log_dir"])
    summary = parse_summary((log_dir / "mlperf_log_summary.txt").read_text())
    detail = parse_detail((log_dir / "mlperf_log_detail.txt").read_text())
    assert summary["scenario"] == detail["scenario"] == "SingleStream"
    assert summary["verdict"] == detail["verdict"]
    assert summary["latency_ns"]["p50"] == detail["latency_ns"]["p50"]
    assert summary["first_token_latency_ns"]["p99"] == detail["first_token_latency_ns"]["p99"]
    assert detail["query_count"] >= FAST.min_query_count
    assert summary["early_stopping"] is not None and detail["early_stopping"] is not None


def test_it_explains_an_invalid_run():
    text = (
        "Scenario : Server\nMode     : PerformanceOnly\nCompleted samples per second    : 10.0\n"
        "Result is : INVALID\n  Performance constraints satisfied : NO\n  Min duration satisfied : Yes\n"
        "  Min queries satisfied : Yes\n  Early stopping satisfied: NO\nRecommendations:\n"
        " * Reduce target QPS to improve latency.\nEarly Stopping Result:\n * Run unsuccessful.\n"
    )
    parsed = parse_summary(text)
    assert parsed["result_valid"] is False
    assert "Reduce target QPS to improve latency." in parsed["reasons"]
    assert "early stopping not satisfied" in parsed["reasons"]


def test_it_names_percentiles_like_the_payload():
    assert percentile_key("99.90") == "p99_9" and percentile_key("50.00") == "p50"
