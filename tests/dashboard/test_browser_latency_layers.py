"""The run page's "Where the p99 goes" Pareto chart in headless Chromium, for a harness run (the real quick suite's
server run, as ingested on an H100 so that the catalog's bandwidth gives a memory layer) and a real vLLM endpoint
run (tests/fixtures/endpoint_runs). The chart is read as plotly drew it: its bars add up to the point's p99.
Screenshots: test-artifacts/screenshots/latency-layers-*.png."""

import copy

import pytest

from results.ingest import STORED, ingest_result

from ..results.test_latency_layers_api import SUM_TOLERANCE, vllm_payload

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

DRAWN = """() => document.getElementById('latency-layers-chart').data.map(trace => ({
  type: trace.type, x: Array.from(trace.x), y: Array.from(trace.y), name: trace.name}))"""


def _drawn_pareto(page) -> tuple[list[tuple[str, float]], list[float]]:
    traces = page.evaluate(DRAWN)
    bars = [(trace["x"][0], trace["y"][0]) for trace in traces if trace["type"] == "bar"]
    line = next(trace["y"] for trace in traces if trace["type"] == "scatter")
    return bars, line


def _check_chart(browser, point, *, screenshot: str) -> list[tuple[str, float]]:
    browser.visit(f"/runs/{point.run_id}/?point={point.index}", screenshot=screenshot, min_charts=3)
    bars, line = _drawn_pareto(browser.page)
    heights = [ms for _, ms in bars]
    assert sum(heights) == pytest.approx(point.latency_p99_ms, rel=SUM_TOLERANCE)
    assert heights == sorted(heights, reverse=True)  # a Pareto chart: largest cause first
    assert line[-1] == pytest.approx(1.0) and line == sorted(line)
    assert "the parts add up to it" in browser.page.inner_text("#latency-layers-method")
    assert browser.page.locator("#table-latency_layers tbody tr").count() == len(bars)
    return bars


def test_it_draws_where_a_harness_runs_p99_goes(dashboard_data, browser):
    run = next(run for run in dashboard_data["NVIDIA H100 80GB HBM3"] if run.scenario == "server")
    point = run.points.order_by("-index").first()
    bars = _check_chart(browser, point, screenshot="latency-layers-harness-run")
    names = [name for name, _ in bars]
    assert "queue wait" in names and "memory: weights read at catalog bandwidth" in names
    assert any(name.startswith("compute: aten::") for name in names)
    assert "memory-bound" in browser.page.inner_text("#latency-layers-method")


def test_it_draws_where_an_endpoint_runs_p99_goes(catalog, browser):
    outcome = ingest_result(copy.deepcopy(vllm_payload()), source="test")
    assert outcome.status == STORED, outcome.reason
    bars = _check_chart(browser, outcome.run.points.get(), screenshot="latency-layers-endpoint-run")
    assert {"server decode", "server prefill", "transport and serialisation"} <= {name for name, _ in bars}
