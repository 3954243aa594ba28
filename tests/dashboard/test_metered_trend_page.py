"""The Trends page's production section: a chosen deployment's metered cost per 1M month by month, the benchmark's
prediction beside it, drawn from the same series the metering API's trend answers."""

import json
import re

import pytest

from metering.services import deployment_declare

# The worked deployment of tests/metering (1 x H100 at $2.29/h serving llama3.1-8b) and its stand-in Prometheus:
# fixtures, imported to be found, so each test's parameters of the same names are flagged F811 by ruff.
from tests.metering.conftest import benchmark, deployment, h100, make_run, prometheus  # noqa: F401
from tests.metering.test_trend import meter_september_and_october

pytestmark = pytest.mark.django_db


def _figure(html: str, div_id: str) -> dict:
    block = re.search(rf'<script id="{div_id}-figure" type="application/json">(.*?)</script>', html, re.S)
    assert block, f"no figure {div_id} on the page"
    return json.loads(block.group(1))


def test_it_draws_the_chosen_deployments_months_beside_the_prediction(
    deployment,  # noqa: F811
    prometheus,  # noqa: F811
    benchmark,  # noqa: F811
    logged_in,
    api,
    h100,  # noqa: F811
):
    meter_september_and_october(deployment, prometheus)
    # A second deployment, first by name: the page shows the one asked for, not the first.
    deployment_declare(
        name="a-batch-prod", prometheus_url="http://prometheus.test:9090", engine="vllm", workload_name="llama3.1-8b",
        accelerator=h100, accelerator_count=2, price_kind="cloud_on_demand",
    )  # fmt: skip

    html = logged_in.get("/trends/?deployment=chat-prod").content.decode()

    figure = _figure(html, "metered-trend-chart")
    traces = {trace["name"]: trace for trace in figure["data"]}
    api_months = api.get("/api/v1/deployments/chat-prod/trend/").json()
    # September $4.122 (1,648.80 / 400M), October $6.5952 (1,648.80 / 250M); the benchmark's $0.636111 both months.
    assert traces["metered (actual)"]["x"] == [month["month"] for month in api_months] == ["2026-09", "2026-10"]
    assert traces["metered (actual)"]["y"] == [float(m["cost_per_million_units_usd"]) for m in api_months]
    assert traces["metered (actual)"]["y"] == [4.122, 6.5952]
    assert traces["predicted by the benchmark"]["y"] == [0.636111111111, 0.636111111111]
    # October's alarm is marked on its month, its explanation on hover.
    assert traces["alarm"]["x"] == ["2026-10"]
    assert "Deployment chat-prod: cost per 1M output tokens rose 76.0%" in traces["alarm"]["text"][0]
    assert '<option value="chat-prod" selected>' in html
    assert "Metered cost month by month" in html and "$4.12" in html and "$6.60" in html


def test_it_shows_the_first_deployment_by_name_when_none_is_asked(deployment, logged_in):  # noqa: F811  # noqa: F811
    html = logged_in.get("/trends/").content.decode()

    assert '<option value="chat-prod" selected>' in html
    assert "No metered period for this deployment yet" in html
    assert "metered-trend-chart" not in html


def test_it_says_when_no_deployment_is_metered(db, logged_in):
    assert "No production deployment is metered yet" in logged_in.get("/trends/").content.decode()


def test_the_months_export_as_csv(deployment, prometheus, benchmark, logged_in):  # noqa: F811  # noqa: F811
    meter_september_and_october(deployment, prometheus)

    response = logged_in.get("/trends/?deployment=chat-prod&export=metered_months")

    rows = response.content.decode("utf-8-sig").splitlines()
    assert rows[0].startswith("Deployment,Workload,Hardware,Cost basis,Month (UTC),Unit,Periods,Hours metered,")
    # The rows state their own deployment, workload and cost basis: not the snapshot chart's SLA.
    assert rows[1].split(",")[:13] == [
        "chat-prod", "llama3.1-8b", "1 x NVIDIA H100", "cloud_on_demand", "2026-09", "output tokens", "2", "720.000000",
        "400000000.000", "1648.800000", "4.122000000000", "0.636111111111", "",
    ]  # fmt: skip
    assert "SLA" not in rows[0] and len(rows[1].split(",")) == 15  # 14 columns and the as-of time


@pytest.mark.browser
@pytest.mark.django_db(transaction=True)
def test_the_section_keeps_the_trends_page_readable(shipped_data, deployment, prometheus, benchmark, browser):  # noqa: F811
    """test_browser_readable's rules on the Trends page with the shipped results and a metered deployment: at 1,400 px
    wide no taller than 6,000 px, no legend taller than its plot (screenshot readable-trends-metered.png)."""
    from tests.dashboard import test_browser_readable as readable

    meter_september_and_october(deployment, prometheus)

    page = readable._visit(browser, "/trends/?deployment=chat-prod", "trends-metered", min_charts=2)

    assert page.evaluate("() => document.getElementById('metered-trend-chart').data.length") == 3
