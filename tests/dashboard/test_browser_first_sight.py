"""Issue 16 in headless Chromium: what a finance analyst would stop trusting, on the data a fresh `make run`
produces (catalog, the shipped published results, and this CPU's quick runs, all measured minutes apart)
and on the shipped published results alone. Charts are read as plotly laid them out (figure JSON).

Screenshots of every page go to test-artifacts/screenshots/first-sight-*.png.
"""

import copy
import re
import uuid
from decimal import Decimal

import pytest

from .browser import assert_charts_hold_up, overlapping_chart_parts, overlapping_labels
from .conftest import raise_price

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

INVALID_REASON = "99th percentile latency exceeds the target latency"


@pytest.fixture
def shipped_data_and_quick_cpu_runs(shipped_data, quick_suite_payloads, quick_llm_payload):
    """A fresh `make run`: the shipped data, then this CPU's quick tiny runs ingested as the local agent delivers
    them; one point of the server run made INVALID with LoadGen's reason; the CPU's price then rises."""
    from results.ingest import STORED, ingest_result
    from results.models import OperatingPoint

    runs = {}
    for payload in [*quick_suite_payloads, quick_llm_payload]:
        outcome = ingest_result(copy.deepcopy(payload) | {"run_id": str(uuid.uuid4())}, source="test")
        assert outcome.status == STORED, outcome.reason
        runs[(outcome.run.workload_name, outcome.run.scenario, outcome.run.precision)] = outcome.run
    server = runs[("tabular-tiny", "server", "fp32")]
    OperatingPoint.objects.filter(run=server, index=0).update(loadgen_valid=False, loadgen_reasons=[INVALID_REASON])
    raise_price(server.accelerator)
    return runs


def _summary(browser) -> str:
    return browser.page.inner_text("p.summary").strip()


def _sla_box_holds_the_applied_sla(browser, button: str) -> None:
    """The SLA box shows the SLA the answer is under, and pressing the button untouched keeps the answer."""
    box = browser.page.input_value("input[name=sla_p99_ms]")
    applied = re.search(r"under p99 <= ([0-9.]+) ms", _summary(browser))
    assert applied, f"{browser.page.url}: no p99 SLA in {_summary(browser)!r}"
    assert Decimal(box) == Decimal(applied.group(1)), (box, applied.group(1))
    before = _summary(browser)
    browser.page.click(f"form.controls button:has-text('{button}')")
    browser.page.wait_for_url(re.compile(r"sla_p99_ms="))
    browser.page.wait_for_load_state("load")
    assert _summary(browser) == before


def _price_kind_box_matches_the_chart(browser) -> None:
    shown = browser.page.eval_on_selector("select[name=price_kind]", "select => select.value")
    titles = [chart["title"] for chart in assert_charts_hold_up(browser.page)]
    assert titles and all(f"{shown} prices" in title for title in titles), (shown, titles)


def _alarm_rows_are_actionable(browser) -> None:
    table = browser.page.locator("#table-alarms")
    headers = table.locator("thead th").all_inner_texts()
    rows = table.locator("tbody tr")
    assert rows.count() >= 1, "no alarm after the price rise"
    for index in range(rows.count()):
        cells = dict(zip(headers, rows.nth(index).locator("td").all_inner_texts(), strict=True))
        assert cells["SLA"] and cells["Cost basis"].endswith("utilization"), cells
        causes = cells["Change by cause (USD per 1M)"]
        assert re.search(r"\$0*\.?0*[1-9]", causes), causes  # a non-zero amount, at its own magnitude
        assert "0.0000 " not in cells["Why"] and "+$0.00 " not in causes, cells


def _visit(browser, path: str, screenshot: str, min_charts: int = 0) -> list[dict]:
    browser.visit(path, screenshot=f"first-sight-{screenshot}", min_charts=min_charts)
    return assert_charts_hold_up(browser.page)


def test_a_fresh_make_run_data_set_reads_right_on_every_page(shipped_data_and_quick_cpu_runs, browser):
    runs = shipped_data_and_quick_cpu_runs
    server, llm = runs[("tabular-tiny", "server", "fp32")], runs[("llm-decoder-tiny", "single-stream", "fp32")]
    cpu = server.accelerator

    _visit(browser, "/?workload=tabular-tiny", "measured-overview")
    _sla_box_holds_the_applied_sla(browser, "Rank")
    _alarm_rows_are_actionable(browser)
    browser.check(screenshot="first-sight-measured-overview-ranked-again")

    charts = _visit(browser, f"/hardware/{cpu.pk}/", "measured-hardware", min_charts=2)
    cost_charts = [chart for chart in charts if chart["id"].startswith("cost-trend-chart-")]
    # One chart per unit of work (the LLM run, if LoadGen judged it VALID, has its own in output tokens).
    assert cost_charts and all(len(chart["units"]) == 1 for chart in cost_charts), cost_charts
    assert len({chart["units"][0] for chart in cost_charts}) == len(cost_charts)

    _visit(browser, "/trends/?workload=tabular-tiny", "measured-trends", min_charts=1)
    _price_kind_box_matches_the_chart(browser)

    _visit(browser, f"/compare/?workload=tabular-tiny&accelerator={cpu.pk}&after_precision=int8", "measured-compare")
    _sla_box_holds_the_applied_sla(browser, "Compare")

    _visit(browser, f"/runs/{server.pk}/", "measured-run-invalid", min_charts=2)
    assert f"INVALID: {INVALID_REASON}" in browser.page.inner_text("#table-points")
    assert "INVALID at point 0" in browser.page.inner_text("p.summary >> nth=0")
    for point in range(server.points.count()):  # the CDF's percentile labels never overlap
        _visit(browser, f"/runs/{server.pk}/?point={point}", f"measured-run-cdf-{point}", min_charts=2)
        assert not overlapping_labels(browser.page, "cdf-chart"), overlapping_labels(browser.page, "cdf-chart")
    assert browser.page.locator("#table-points a[href$='loadgen-summary.txt']").count() >= 1

    _visit(browser, f"/runs/{llm.pk}/", "measured-run-llm", min_charts=1)
    points = browser.page.locator("#table-points")
    headers = points.locator("thead th").all_inner_texts()
    first = dict(zip(headers, points.locator("tbody tr").first.locator("td").all_inner_texts(), strict=True))
    for column in ("TTFT p99 (ms)", "TPOT p99 (ms)", "Interactivity p99 (tokens/s per user)"):
        assert first[column] not in ("", "—"), (column, first)

    _visit(browser, "/jobs/", "measured-jobs")


def test_the_shipped_published_results_read_right_on_every_page(shipped_data, browser):
    from results.models import BenchmarkRun

    llm_run = BenchmarkRun.objects.filter(workload_name="llama2-70b-99", scenario="server").first()
    assert llm_run is not None

    _visit(browser, "/", "published-overview")
    _visit(browser, "/?workload=llama2-70b-99", "published-overview-llama2-70b")
    _visit(browser, "/?workload=resnet50", "published-overview-resnet50")
    _sla_box_holds_the_applied_sla(browser, "Rank")
    charts = _visit(browser, f"/hardware/{llm_run.accelerator_id}/", "published-hardware", min_charts=2)
    # The price chart's legend sits below its axis title, clear of the y-axis title and the chart's title.
    assert not overlapping_chart_parts(browser.page, "cloud-price-chart"), overlapping_chart_parts(
        browser.page, "cloud-price-chart"
    )
    # Published results are priced when they are loaded: the hardware page draws their cost over time.
    assert any(chart["id"].startswith("cost-trend-chart-") for chart in charts), [c["id"] for c in charts]
    assert "published" in browser.page.inner_text("#table-snapshots")
    charts = _visit(browser, "/trends/", "published-trends", min_charts=1)
    assert "published" in browser.page.inner_text("#table-snapshots")
    if browser.page.locator("select[name=price_kind]").count():
        _price_kind_box_matches_the_chart(browser)
    _visit(browser, "/compare/?workload=resnet50", "published-compare")
    assert browser.page.input_value("input[name=sla_p99_ms]")  # the applied default, even with nothing to compare
    _visit(browser, f"/runs/{llm_run.pk}/", "published-run-llm", min_charts=1)
    assert not overlapping_labels(browser.page, "cdf-chart")
    assert "TTFT p99 (ms)" in browser.page.locator("#table-points thead").inner_text()
    _visit(browser, "/serving/?workload=llama2-70b-99", "published-serving", min_charts=1)
