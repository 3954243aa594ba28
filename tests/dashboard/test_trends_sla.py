"""The Trends page takes the LLM SLA (TTFT and TPOT bounds) and asks it as the overview does (accounting.question),
so an LLM series and its alarm are seen under their own SLA (issue #28, Build 2)."""

import csv
import io
import re
from decimal import Decimal

import pytest

from accounting.sla import Sla

pytestmark = pytest.mark.django_db

WORKLOAD = "llama2-70b-99"
SERVER = {"ttft_p99_ms": Decimal("2000"), "tpot_p99_ms": Decimal("200")}  # MLPerf's llama2-70b Server bound


def _export(response) -> list[dict]:
    rows = list(csv.reader(io.StringIO(response.content.decode("utf-8-sig"))))
    header = next(index for index, row in enumerate(rows) if "SLA TTFT p99 (ms)" in row)
    return [dict(zip(rows[header], row, strict=True)) for row in rows[header + 1 :]]


def _chart_text(page: str) -> str:
    """The page with the charts' JSON-escaped angle brackets read back (plotly writes '<' as \\u003C)."""
    return page.replace("\\u003C", "<").replace("\\u003E", ">")


def _llm_alarm_of(accelerator):
    """The one alarm the price rise raised on llama2-70b: one per change per (workload, accelerator, cost basis),
    on the series of one SLA (accounting.history.alarms)."""
    from accounting.models import CostAlarm

    (alarm,) = CostAlarm.objects.filter(
        snapshot__accelerator=accelerator, snapshot__workload_name=WORKLOAD, snapshot__price_kind="cloud_on_demand"
    ).select_related("snapshot")
    return alarm


def test_it_draws_an_llm_trend_under_its_ttft_and_tpot_bounds_with_its_own_alarm(llm_alarm, logged_in):
    from accounting.models import CostSnapshot

    alarm = _llm_alarm_of(llm_alarm)
    assert alarm.snapshot.sla == Sla(**SERVER)  # raised on the Server-bound series, not the no-SLA one
    query = f"/trends/?workload={WORKLOAD}&price_kind=cloud_on_demand&ttft_p99_ms=2000&tpot_p99_ms=200"
    page = logged_in.get(query).content.decode()
    assert 'id="trend-chart-output_tokens"' in page
    assert "under <strong>TTFT p99 &lt;= 2000 ms and TPOT p99 &lt;= 200 ms</strong>" in page  # the SLA answered
    # The alarm is on the chart, its hover naming its series' SLA and basis (selectors.alarm_hover).
    assert f"+60.0% vs trailing median<br>{alarm.snapshot.sla_label}, cloud_on_demand" in _chart_text(page)

    # Every row of the page is under that SLA, and every such snapshot is there (the shipped data is far below
    # the page's 5,000-row cap).
    rows = _export(logged_in.get(f"{query}&export=snapshots"))
    expected = CostSnapshot.objects.filter(
        workload_name=WORKLOAD, price_kind="cloud_on_demand", sla_p99_ms=None,
        sla_ttft_p99_ms=SERVER["ttft_p99_ms"], sla_tpot_p99_ms=SERVER["tpot_p99_ms"],
    ).count()  # fmt: skip
    assert len(rows) == expected > 0
    bounds = {
        (row["SLA p99 (ms)"], Decimal(row["SLA TTFT p99 (ms)"]), Decimal(row["SLA TPOT p99 (ms)"])) for row in rows
    }
    assert bounds == {("", SERVER["ttft_p99_ms"], SERVER["tpot_p99_ms"])}


def test_it_keeps_no_sla_as_the_default_and_puts_the_llm_slas_one_click_away(llm_alarm, logged_in):
    alarm = _llm_alarm_of(llm_alarm)
    page = logged_in.get(f"/trends/?workload={WORKLOAD}&price_kind=cloud_on_demand").content.decode()
    assert "under <strong>no SLA (best throughput)</strong>" in page
    assert "vs trailing median" not in page  # the alarm is on the Server-bound series, not this one
    # The standard SLAs are links to this page under each; MLPerf Server's shows the alarm.
    link = re.search(r'<a href="([^"]+)">MLPerf Server</a>', page).group(1).replace("&amp;", "&")
    server = logged_in.get(f"/trends/{link}").content.decode()
    assert "under <strong>TTFT p99 &lt;= 2000 ms and TPOT p99 &lt;= 200 ms</strong>" in server
    assert f"vs trailing median<br>{alarm.snapshot.sla_label}" in _chart_text(server)


def test_it_names_a_bound_that_does_not_fit_the_workload(llm_alarm, logged_in):
    # A whole-request p99 for an LLM is refused by the cost question's rule (policy.requested_sla), named on the
    # form; the trend is drawn with no SLA and says so.
    page = logged_in.get(f"/trends/?workload={WORKLOAD}&sla_p99_ms=500").content.decode()
    assert "sla_p99_ms: llama2-70b-99 is served under TTFT and TPOT bounds" in page
    assert "under <strong>no SLA (best throughput)</strong>" in page
    resnet = logged_in.get("/trends/?workload=resnet50&ttft_p99_ms=2000").content.decode()
    assert "ttft_p99_ms: resnet50 is not an LLM workload" in resnet
