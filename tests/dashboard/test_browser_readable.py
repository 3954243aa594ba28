"""Issue 28 in headless Chromium on the shipped published results: pages a person can read.

At 1,400 px wide no page is taller than 6,000 px (long tables scroll inside their own box); the overview draws
one bar per accelerator; no chart's legend is taller than its plot; a published run's page says where it was
published. Screenshots in test-artifacts/screenshots/readable-*.png.
"""

import re

import pytest

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

MAX_PAGE_HEIGHT_PX = 6000
WIDTH_PX = 1400

LEGENDS_AND_PLOTS = """() => [...document.querySelectorAll('.plotly-graph-div')].map(el => {
  const legend = el.querySelector('.legend');
  const box = legend ? legend.getBoundingClientRect() : {height: 0};
  return {id: el.id, legend_px: box.height, plot_px: el._fullLayout._size.h};
})"""


def _height(page) -> int:
    return page.evaluate("() => document.documentElement.scrollHeight")


def _visit(browser, path: str, name: str, min_charts: int = 0):
    browser.page.set_viewport_size({"width": WIDTH_PX, "height": 1000})
    browser.visit(path, screenshot=f"readable-{name}", min_charts=min_charts)
    page = browser.page
    height = _height(page)
    assert height <= MAX_PAGE_HEIGHT_PX, f"{path}: {height} px tall at {WIDTH_PX} px wide"
    for chart in page.evaluate(LEGENDS_AND_PLOTS):
        assert chart["legend_px"] <= chart["plot_px"], f"{path} #{chart['id']}: legend taller than its plot {chart}"
    return page


def _bar_accelerators(page) -> list[str]:
    """The accelerator of each bar of the overview chart ('3. NVIDIA H100 · published' -> 'NVIDIA H100')."""
    labels = page.evaluate(
        "() => { const el = document.getElementById('ranking-chart'); return el ? el.data[0].x : []; }"
    )
    return [re.sub(r"^\d+\. ", "", label).rsplit(" · ", 1)[0] for label in labels]


def test_the_shipped_results_read_on_pages_a_person_can_scroll(shipped_data, browser):
    from django.db.models import Count

    from results.models import BenchmarkRun, PublishedResult

    for workload in ("llama2-70b-99", "resnet50"):
        page = _visit(browser, f"/?workload={workload}", f"overview-{workload}", min_charts=1)
        bars = _bar_accelerators(page)
        assert bars and len(bars) == len(set(bars)), f"{workload}: one bar per accelerator, got {bars}"
    busiest = (
        BenchmarkRun.objects.values("accelerator_id").annotate(runs=Count("id")).order_by("-runs").first()
    )  # the accelerator with the most results: the tallest hardware page
    _visit(browser, f"/hardware/{busiest['accelerator_id']}/", "hardware-busiest", min_charts=1)
    _visit(browser, "/trends/", "trends", min_charts=1)
    _visit(browser, "/trends/?workload=llama2-70b-99", "trends-llama2-70b")
    _visit(browser, "/serving/?workload=llama2-70b-99", "serving-llama2-70b")
    record = PublishedResult.objects.filter(benchmark="llama2-70b-99").select_related("run").first()
    page = _visit(browser, f"/runs/{record.run_id}/", "published-run")
    source = page.inner_text("#published-source")
    assert record.round in source and record.submitter in source and record.source_path in source


def test_an_as_of_in_the_past_changes_the_answer_or_says_why_it_is_empty(shipped_data, browser):
    # MLPerf Inference v4.0 (the oldest round shipped) was published on 2024-03-27: on 2024-01-01 nothing had been.
    now = _visit(browser, "/?workload=resnet50", "as-of-now", min_charts=1)
    bars_now = _bar_accelerators(now)
    assert bars_now and "as of now" in now.inner_text("#as-of")
    page = _visit(browser, "/?workload=resnet50&as_of=2024-01-01", "as-of-2024-01-01")
    assert "as of 2024-01-01" in page.inner_text("#as-of")
    assert page.locator("#ranking-chart").count() == 0
    reason = page.inner_text("#empty-reason")
    assert "no result of resnet50 that counts started on or before 2024-01-01: the earliest started on" in reason
    # Between two rounds: fewer results, or prices not yet in force. Either the bars change or the page says why.
    page = _visit(browser, "/?workload=resnet50&as_of=2024-09-01", "as-of-2024-09-01")
    assert "as of 2024-09-01" in page.inner_text("#as-of")
    if page.locator("#ranking-chart").count():
        assert _bar_accelerators(page) != bars_now
    else:
        assert page.inner_text("#empty-reason").startswith("Nothing to rank: ")
    serving = _visit(browser, "/serving/?workload=llama2-70b-99&as_of=2024-01-01", "as-of-serving-2024-01-01")
    assert "on or before 2024-01-01" in serving.inner_text("#empty-reason")


def test_an_llm_alarm_reads_on_the_trend_of_its_own_sla(llm_alarm, browser):
    # The alarm the price rise raised is on the Server-bound series (tests/dashboard/test_trends_sla.py); the
    # trend under that SLA shows it, within a page and a legend of readable size.
    path = "/trends/?workload=llama2-70b-99&price_kind=cloud_on_demand&ttft_p99_ms=2000&tpot_p99_ms=200"
    page = _visit(browser, path, "trends-llama2-70b-server", min_charts=1)
    assert (page.input_value("input[name=ttft_p99_ms]"), page.input_value("input[name=tpot_p99_ms]")) == (
        "2000", "200",
    )  # fmt: skip
    traces = page.evaluate(
        "() => document.getElementById('trend-chart-output_tokens').data.map(t => [t.name, t.showlegend !== false])"
    )
    assert ["alarm", True] in traces  # drawn, and named in the (capped) legend
    assert "TTFT p99 <= 2000 ms and TPOT p99 <= 200 ms" in page.inner_text("#trend-sla")
