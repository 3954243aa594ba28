"""The dashboard's pages rendered by the test client: content, CSV, empty states and bounded queries."""

import csv
import io
import re
from unittest import mock

import pytest
from django.contrib.staticfiles import finders
from django.urls import set_script_prefix

from agents.models import Agent, Job, JobState
from dashboard.context_processors import site_links

pytestmark = pytest.mark.django_db

PAGES_MAX_QUERIES = 20  # session + user + the page's own reads; independent of how many rows there are


def _rows(response) -> list[list[str]]:
    assert response["Content-Type"].startswith("text/csv")
    assert response.content.startswith(b"\xef\xbb\xbf")  # UTF-8 BOM: Excel reads the file as UTF-8
    return list(csv.reader(io.StringIO(response.content.decode("utf-8-sig"))))


@pytest.mark.parametrize("path", ["/", "/trends/", "/compare/", "/jobs/", "/hardware/1/"])
def test_it_sends_anonymous_visitors_to_the_login_page(client, path):
    response = client.get(path)
    assert response.status_code == 302
    assert response["Location"].startswith("/accounts/login/?next=")


def test_it_serves_plotly_js_from_the_installed_package_not_a_cdn():
    found = finders.find("plotly/plotly.min.js")
    assert found and found.endswith("plotly/package_data/plotly.min.js")
    assert [path for path, _ in finders.get_finder("dashboard.staticfiles.PlotlyJsFinder").list([])] == [
        "plotly.min.js"
    ]


def test_it_ranks_hardware_on_the_overview_with_a_bounded_number_of_queries(
    dashboard_data, logged_in, django_assert_max_num_queries, loose_sla_ms
):
    with django_assert_max_num_queries(PAGES_MAX_QUERIES):
        response = logged_in.get(
            f"/?workload=tabular-tiny&sla_p99_ms={loose_sla_ms}&price_kind=cloud_on_demand&utilization=0.5"
        )
    text = response.content.decode()
    assert response.status_code == 200
    assert 'src="/static/plotly/plotly.min.js"' in text and "cdn" not in text.lower()
    assert "Cost per 1M inferences (USD)" in text and "is cheapest at <strong>$" in text
    assert text.count('<tr class="muted">') == 0


def test_it_greys_out_hardware_that_cannot_meet_a_tight_sla(dashboard_data, logged_in):
    response = logged_in.get("/?workload=tabular-tiny&sla_p99_ms=0.001")
    text = response.content.decode()
    assert text.count('<tr class="muted">') == 4
    assert "no operating point meets p99 &lt;= 0.001 ms" in text
    # The empty chart says why (accounting.empty_answers): the 4 rows above, each above the bound.
    assert (
        "Nothing to rank: all 4 accelerators with results and a cloud_on_demand price in force miss the SLA "
        "p99 &lt;= 0.001 ms: p99 &lt;= 0.001 ms excludes 4" in text
    )


def test_it_downloads_the_ranking_as_csv_with_units_in_the_headers(dashboard_data, logged_in, loose_sla_ms):
    rows = _rows(logged_in.get(f"/?workload=tabular-tiny&sla_p99_ms={loose_sla_ms}&export=ranking"))
    assert rows[0][:6] == ["Rank", "Accelerator", "Cost per 1M inferences (USD)", "Origin", "Source",
                           "Accelerators (count)"]  # fmt: skip
    assert "Throughput (inferences/s per accelerator)" in rows[0]
    assert {row[3] for row in rows[1:]} == {"measured"}
    assert "Cost per 1M inferences (USD)" in rows[0]
    assert [row[0] for row in rows[1:]] == ["1", "2", "3", "4"]
    costs = [float(row[rows[0].index("Cost per 1M inferences (USD)")]) for row in rows[1:]]
    assert costs == sorted(costs)


def test_it_answers_an_unknown_csv_table_with_404(dashboard_data, logged_in):
    assert logged_in.get("/?export=nope").status_code == 404


def test_it_shows_a_server_run_with_its_pareto_cdf_and_latency_budget(
    dashboard_data, logged_in, django_assert_max_num_queries
):
    run = next(run for run in dashboard_data["cpu"] if run.scenario == "server")
    with django_assert_max_num_queries(PAGES_MAX_QUERIES):
        response = logged_in.get(f"/runs/{run.pk}/?sla=1000")
    text = response.content.decode()
    for chart in ("pareto-chart", "cdf-chart", "budget-chart"):
        assert f'id="{chart}"' in text
    assert "Chosen under the SLA: point" in text
    assert "no GPU telemetry: nvml unavailable (" in text
    points = _rows(logged_in.get(f"/runs/{run.pk}/?export=points"))
    assert len(points) == 1 + run.points.count()
    environment = {row[0]: row[1] for row in _rows(logged_in.get(f"/runs/{run.pk}/?export=environment"))[1:]}
    assert environment["torch"] == run.environment["torch"]


def test_it_shows_no_latency_budget_for_a_single_stream_run(dashboard_data, logged_in):
    run = next(run for run in dashboard_data["cpu"] if run.scenario == "single-stream")
    text = logged_in.get(f"/runs/{run.pk}/").content.decode()
    assert 'id="pareto-chart"' in text and 'id="budget-chart"' not in text


def test_it_shows_an_accelerator_with_prices_cost_trend_and_runs(
    dashboard_data, price_rise, logged_in, django_assert_max_num_queries
):
    accelerator = price_rise.accelerator
    with django_assert_max_num_queries(PAGES_MAX_QUERIES):
        response = logged_in.get(f"/hardware/{accelerator.pk}/")
    text = response.content.decode()
    assert 'id="cloud-price-chart"' in text and 'id="cost-trend-chart-inferences"' in text
    assert "test: a price rise" in text
    runs = _rows(logged_in.get(f"/hardware/{accelerator.pk}/?export=runs"))
    assert len(runs) == 1 + len(dashboard_data["NVIDIA H100 80GB HBM3"])


def test_it_marks_alarms_on_the_trend_with_their_attribution(
    dashboard_data, price_rise, logged_in, django_assert_max_num_queries
):
    with django_assert_max_num_queries(PAGES_MAX_QUERIES):
        response = logged_in.get("/trends/?workload=tabular-tiny&price_kind=cloud_on_demand")
    text = response.content.decode()
    assert 'id="trend-chart-inferences"' in text
    assert "vs trailing median" in text and "price: +" in text  # the alarm's hover text
    overview = logged_in.get("/").content.decode()
    assert "Cost per million rose" in overview  # open alarms listed on the overview
    # One alarm per (workload, accelerator, basis), its SLA and basis as columns, its causes in real money.
    header, *alarms = _rows(logged_in.get("/?export=alarms"))
    assert len(alarms) == 1
    alarm = dict(zip(header, alarms[0], strict=True))
    assert alarm["SLA"] == "no SLA (best throughput)"
    assert alarm["Cost basis"] == "cloud_on_demand at 100% utilization"
    assert (
        alarm["Change by cause (USD per 1M)"].startswith("price +$0.")
        and "(100%)" in alarm["Change by cause (USD per 1M)"]
    )
    assert "0.0000 " not in alarm["Why"] and "+$0.00 " not in alarm["Why"]


def test_it_compares_two_run_sets_with_annual_savings(
    dashboard_data, logged_in, django_assert_max_num_queries, loose_sla_ms
):
    query = "workload=tabular-tiny&before_precision=fp32&after_precision=fp32&before_backend=eager&after_backend=eager"
    with django_assert_max_num_queries(PAGES_MAX_QUERIES):
        response = logged_in.get(f"/compare/?{query}&sla_p99_ms={loose_sla_ms}&annual_volume=1000000000")
    text = response.content.decode()
    assert 'id="compare-chart"' in text and "saves <strong>$0.00</strong> per year" in text
    assert 'id="verdict"' in text and "no benefit" in text  # the same runs on both sides cannot help
    missing = logged_in.get(
        f"/compare/?{query.replace('after_precision=fp32', 'after_precision=fp16')}"
    ).content.decode()
    assert "cannot compare" in missing and "no eligible runs" in missing


def test_it_explains_empty_pages(db, logged_in):
    # The overview says why it ranks nothing (accounting.empty_answers): nothing of its workload is stored.
    assert "Nothing to rank: no run or published result of " in logged_in.get("/").content.decode()
    assert "No cost snapshots yet" in logged_in.get("/trends/").content.decode()
    jobs = logged_in.get("/jobs/").content.decode()
    assert "Nothing queued or running" in jobs and "Enqueue a suite" not in jobs  # not staff


def _header_links(page: str) -> list[tuple[str, bool, str]]:
    header = page[page.index('<header class="top">') : page.index("</header>")]
    return [(href, bool(current), label) for href, current, label in
            re.findall(r'<a (?:class="brand" )?href="([^"]*)"( aria-current="page")?>([^<]+)</a>', header)]  # fmt: skip


def test_the_header_links_every_page_and_marks_the_one_shown(db, logged_in):
    assert _header_links(logged_in.get("/trends/").content.decode()) == [
        ("/", False, "InferLedger"), ("/", False, "Overview"), ("/trends/", True, "Trends"),
        ("/compare/", False, "Compare"), ("/serving/", False, "LLM serving"), ("/jobs/", False, "Jobs"),
        ("/api/docs/", False, "API"),
    ]  # fmt: skip
    assert 'action="/accounts/logout/"' in logged_in.get("/jobs/").content.decode()


def test_the_header_links_carry_the_path_a_deployment_is_served_under(db):
    """Links are worked out once per process and path prefix (dashboard.context_processors): a deployment served
    under /ledger/ (SCRIPT_NAME) links under /ledger/, and one at the root still at the root."""
    try:
        set_script_prefix("/ledger/")
        assert site_links(None)["site_links"]["jobs"] == "/ledger/jobs/"
        assert site_links(None)["site_links"]["logout"] == "/ledger/accounts/logout/"
    finally:
        set_script_prefix("/")
    assert site_links(None)["site_links"]["jobs"] == "/jobs/"


@pytest.fixture
def agent(db):
    return Agent.objects.create(name="gpu-host-1", hostname="gpu1", queue="agent.gpu-host-1")


def test_it_lists_running_jobs_and_reports_their_progress_as_json(agent, logged_in, django_assert_max_num_queries):
    job = Job.objects.create(agent=agent, state=JobState.RUNNING, progress_pct=42.5, current_point="tabular offline b8")
    with django_assert_max_num_queries(PAGES_MAX_QUERIES):
        text = logged_in.get("/jobs/").content.decode()
    assert f'data-job="{job.pk}"' in text and "tabular offline b8" in text
    data = logged_in.get(f"/jobs/progress.json?id={job.pk}&id=not-a-uuid").json()
    assert data["jobs"] == [
        {
            "id": str(job.pk),
            "state": "running",
            "progress_pct": 42.5,
            "current_point": "tabular offline b8",
            "error": "",
        }
    ]


def test_it_lets_staff_enqueue_a_suite_on_an_agent(agent, client, staff):
    client.force_login(staff)
    with (
        mock.patch("agents.jobs.job_dispatch") as dispatch,
        mock.patch("django.db.transaction.on_commit", lambda f: f()),
    ):
        response = client.post(
            "/jobs/", {"agent": agent.pk, "suite": "quick", "workloads": ["tabular"], "time_limit_s": 600}
        )
    assert response.status_code == 302
    job = Job.objects.get()
    assert (job.agent, job.suite, job.workloads, job.created_by) == (agent, "quick", ["tabular"], staff)
    dispatch.assert_called_once()


def test_it_refuses_enqueue_from_non_staff(agent, logged_in):
    response = logged_in.post("/jobs/", {"agent": agent.pk, "suite": "quick", "time_limit_s": 600})
    assert response.status_code == 403
    assert not Job.objects.exists()


def test_a_run_page_says_why_a_point_is_invalid_and_links_loadgens_logs(dashboard_data, logged_in):
    from results.models import OperatingPoint

    run = next(run for run in dashboard_data["cpu"] if run.scenario == "server")
    point = run.points.order_by("index").first()
    OperatingPoint.objects.filter(pk=point.pk).update(
        loadgen_valid=False, loadgen_reasons=["99th percentile latency exceeds the target latency"]
    )
    text = logged_in.get(f"/runs/{run.pk}/").content.decode()
    assert "INVALID: 99th percentile latency exceeds the target latency" in text
    summary_url = f"/runs/{run.pk}/points/{point.index}/loadgen-summary.txt"
    assert point.loadgen_summary_log and summary_url in text
    download = logged_in.get(summary_url)
    assert download.status_code == 200 and download.content.decode() == point.loadgen_summary_log
    assert "attachment" in download["Content-Disposition"]
    assert logged_in.get(f"/runs/{run.pk}/points/{point.index}/loadgen-nope.txt").status_code == 404


def _input_value(html: str, name: str) -> str:
    tag = re.search(rf'<input[^>]*name="{name}"[^>]*>', html).group(0)
    value = re.search(r'value="([^"]*)"', tag)
    return value.group(1) if value else ""


def _selected(html: str, name: str) -> str:
    select = re.search(rf'<select name="{name}".*?</select>', html, re.S).group(0)
    return re.search(r'<option value="([^"]*)"[^>]* selected', select).group(1)


def test_the_sla_boxes_show_the_applied_default_and_pressing_the_button_keeps_the_answer(dashboard_data, logged_in):
    from accounting import policy

    applied = policy.reference_sla(policy.resolve_workload(workload="tabular-tiny")).p99_ms
    overview = logged_in.get("/?workload=tabular-tiny").content.decode()
    assert _input_value(overview, "sla_p99_ms") == f"{applied.normalize():f}"
    compare_query = "workload=tabular-tiny&before_precision=fp32&after_precision=int8"
    compare = logged_in.get(f"/compare/?{compare_query}").content.decode()
    assert _input_value(compare, "sla_p99_ms") == f"{applied.normalize():f}"
    assert f"under p99 &lt;= {applied} ms" in compare
    # Pressing Compare untouched submits what the boxes show: the same answer.
    resubmitted = logged_in.get(f"/compare/?{compare_query}&sla_p99_ms={_input_value(compare, 'sla_p99_ms')}")
    summary = re.search(r'<p class="summary">.*?</p>', compare, re.S).group(0)
    assert summary in resubmitted.content.decode()


def test_the_trends_price_kind_box_shows_the_price_kind_the_chart_uses(dashboard_data, logged_in):
    trends = logged_in.get("/trends/?workload=tabular-tiny").content.decode()
    assert _selected(trends, "price_kind") == "cloud_on_demand"
    purchase = logged_in.get("/trends/?workload=tabular-tiny&price_kind=purchase").content.decode()
    assert _selected(purchase, "price_kind") == "purchase"
