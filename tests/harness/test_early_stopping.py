"""The Server scenario's query minimum comes from LoadGen's early stopping, checked against LoadGen itself: with
no query over latency, the computed count is VALID and one fewer is not."""

import mlperf_loadgen as lg
import pytest

from harness.host.plan import plan_endpoint_items
from harness.stats import early_stopping_min_queries


def _server_result(min_query_count: int, log_dir) -> str:
    def issue(queries):  # every query answered at once: none is over latency
        lg.QuerySamplesComplete([lg.QuerySampleResponse(q.id, 0, 0) for q in queries])

    settings = lg.TestSettings()
    settings.scenario, settings.mode = lg.TestScenario.Server, lg.TestMode.PerformanceOnly
    # 2,000 queries/s: the minimum count takes ~0.23 s, past the 100 ms minimum duration, so LoadGen stops at it.
    settings.min_duration_ms, settings.min_query_count = 100, min_query_count
    settings.server_target_qps, settings.server_target_latency_ns = 2000.0, 100_000_000
    log_settings = lg.LogSettings()
    log_settings.log_output.outdir, log_settings.log_output.copy_summary_to_stdout = str(log_dir), False
    sut, qsl = lg.ConstructSUT(issue, lambda: None), lg.ConstructQSL(16, 16, lambda _: None, lambda _: None)
    try:
        lg.StartTestWithLogSettings(sut, qsl, settings, log_settings)
    finally:
        lg.DestroyQSL(qsl)
        lg.DestroySUT(sut)
    summary = (log_dir / "mlperf_log_summary.txt").read_text()
    return next(line.split(":")[1].strip() for line in summary.splitlines() if line.startswith("Result is"))


def test_the_p99_minimum_is_459_queries_as_loadgen_counts_them(tmp_path):
    # 0.99 ** 459 = 0.00995 <= 0.01 < 0.99 ** 458 = 0.01005: ceil(ln 0.01 / ln 0.99) = ceil(458.21) = 459.
    minimum = early_stopping_min_queries(0.99)
    assert minimum == 459
    (tmp_path / "enough").mkdir(), (tmp_path / "short").mkdir()
    assert _server_result(minimum, tmp_path / "enough") == "VALID"
    assert _server_result(minimum - 1, tmp_path / "short") == "INVALID"


@pytest.mark.parametrize(("named", "expected"), [(None, 459), (12, 12), (1000, 1000)])
def test_an_endpoint_server_point_asks_for_that_minimum_unless_the_spec_names_one(named, expected):
    endpoint = {"name": "noop", "protocol": "openai-completions", "url": "http://127.0.0.1:1", "model": "noop",
                "prompt_tokens": 8, "output_tokens": 2}  # fmt: skip
    spec = {"endpoint": endpoint, "scenarios": ["server", "concurrency-sweep"], "server_rates_qps": [20.0],
            "min_query_count": named}  # fmt: skip
    server, sweep = plan_endpoint_items(spec)
    assert server.settings.min_query_count == expected
    assert sweep.settings.min_query_count == (named or 64)  # the sweep is LoadGen's Offline: no early stopping
