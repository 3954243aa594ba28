"""The overview's open alarms include production's: a metered deployment whose cost per 1M rose is listed beside the
alarms of measured and published figures, with the figures the change is computed from, and leaves the list when
staff acknowledge it. Before, the overview said "No open alarms" while a metered deployment had one.

The worked deployment is tests/metering's: 1 x H100 at $2.29 per hour serving llama3.1-8b, 30-day periods (720 h,
2.29 x 720 = $1,648.80 each, whatever they serve)."""

import csv
import html
import io
import re

import pytest
from django.utils.html import escape

from accounting.rankings import cache
from metering.models import MeteredAlarm

# The worked deployment of tests/metering and its stand-in Prometheus: fixtures, imported to be found, so each
# test's parameters of the same names are flagged F811 by ruff.
from tests.metering.conftest import (  # noqa: F401
    benchmark,
    deployment,
    h100,
    make_run,
    meter_days,
    meter_months,
    prometheus,
    weekly_traffic,
)

pytestmark = [pytest.mark.django_db, pytest.mark.usefixtures("empty_cache")]

# Month 1: 400M output tokens, 1,648.80 / 400 = $4.122 per 1M; month 2: 250M, 1,648.80 / 250 = $6.5952 per 1M.
# 6.5952 / 4.122 - 1 = +60 % against the trailing median (the one earlier month), above the 10 % threshold.
SERVED = [(800_000, 400_000_000), (500_000, 250_000_000)]


def _table(page: str, name: str) -> str:
    section = re.search(rf'<section class="table" id="table-{name}">(.*?)</section>', page, re.S)
    assert section, f"no table {name} on the page"
    return section.group(1)


def _rows(section: str) -> list[dict[str, str]]:
    headers = [html.unescape(h) for h in re.findall(r'<th scope="col">(.*?)</th>', section)]
    rows = []
    for row in re.findall(r"<tr[^>]*>\s*(<td.*?)\s*</tr>", section, re.S):
        cells = [html.unescape(re.sub(r"<[^>]+>", "", cell)) for cell in re.findall(r"<td[^>]*>(.*?)</td>", row)]
        rows.append(dict(zip(headers, cells, strict=True)))
    return rows


def test_a_metered_alarm_is_listed_with_the_figures_its_change_is_computed_from(
    deployment,  # noqa: F811
    prometheus,  # noqa: F811
    benchmark,  # noqa: F811
    logged_in,
):
    first, second = meter_months(deployment, prometheus, SERVED)
    alarm = MeteredAlarm.objects.get()

    page = logged_in.get("/").content.decode()

    (row,) = _rows(_table(page, "metered_alarms"))
    assert row["Deployment"] == "chat-prod"
    assert row["Workload"] == "llama3.1-8b"
    assert row["Hardware"] == "1 x NVIDIA H100"
    assert row["Cost basis"] == "cloud_on_demand"
    assert row["SLA"] == "none (as served in production)"
    assert row["Period (UTC)"] == "2026-10-01 00:00..2026-10-31 00:00"
    assert row["Unit"] == "output tokens"
    # A reader checks the change from the two costs beside it: 6.60 / 4.12 - 1 = +60 %.
    assert (row["Metered cost per 1M (USD)"], row["Trailing median per 1M (USD)"]) == ("$6.60", "$4.12")
    assert row["Change (%)"] == "60.0%"
    # The whole rise, 6.5952 - 4.122 = $2.4732, is utilization (the benchmark's capacity did not move).
    assert row["Change by cause (USD per 1M)"] == "utilization +$2.47 (100%)"
    section = _table(page, "metered_alarms")
    # The cause in words, shortened in the cell and whole on hover.
    assert alarm.explanation.startswith(row["Why"].rstrip("…")) and f'title="{escape(alarm.explanation)}"' in section
    assert "traffic fell -37.5%" in alarm.explanation
    link = re.search(r'<td><a href="([^"]+)">chat-prod</a></td>', section).group(1)
    assert html.unescape(link) == "/trends/?deployment=chat-prod#metered-trend"
    assert "No open cost alarm: every measured or published cost is within its trailing median." in page


def test_acknowledging_it_takes_it_off_the_overview_at_once(
    deployment,  # noqa: F811
    prometheus,  # noqa: F811
    benchmark,  # noqa: F811
    logged_in,
    staff_api,
):
    meter_months(deployment, prometheus, SERVED)
    alarm = MeteredAlarm.objects.get()
    assert len(_rows(_table(logged_in.get("/").content.decode(), "metered_alarms"))) == 1  # kept per data version

    assert staff_api.post(f"/api/v1/metered-alarms/{alarm.pk}/ack/").status_code == 200

    section = _table(logged_in.get("/").content.decode(), "metered_alarms")
    assert _rows(section) == []
    assert "No open alarm on a metered deployment." in section


def test_the_data_version_moves_with_metered_alarms_that_send_no_signal(
    deployment,  # noqa: F811
    prometheus,  # noqa: F811
    benchmark,  # noqa: F811
):
    """Another process's write is seen through the database part of the data version (re-read every
    DATA_VERSION_SECONDS), also a bulk update() that sends no signal."""
    from django.utils import timezone

    before = cache.read_data_version(timezone.now())
    meter_months(deployment, prometheus, SERVED)
    raised = cache.read_data_version(timezone.now())
    MeteredAlarm.objects.update(acknowledged_at=timezone.now())  # no signal, no generation bump
    acknowledged = cache.read_data_version(timezone.now())

    assert len({before, raised, acknowledged}) == 3
    # The metered part names the newest alarm and how many are open.
    newest = MeteredAlarm.objects.get().pk
    assert raised.endswith(f":metered-alarms={newest}:1")
    assert acknowledged.endswith(f":metered-alarms={newest}:0")


def test_the_csv_rows_state_their_deployment_not_the_pages_question(
    deployment,  # noqa: F811
    prometheus,  # noqa: F811
    benchmark,  # noqa: F811
    logged_in,
):
    meter_months(deployment, prometheus, SERVED)

    response = logged_in.get("/?workload=resnet50&sla_p99_ms=50&export=metered_alarms")

    header, row = list(csv.reader(io.StringIO(response.content.decode("utf-8-sig"))))
    cells = dict(zip(header, row, strict=True))
    assert (cells["Workload"], cells["SLA"], cells["Cost basis"]) == (
        "llama3.1-8b",
        "none (as served in production)",
        "cloud_on_demand",
    )
    assert cells["Metered cost per 1M (USD)"] == "6.595200000000"
    assert cells["Trailing median per 1M (USD)"] == "4.122000000000"
    assert cells["Change (%)"] == "0.600000"
    assert "sla_p99_ms" not in response.content.decode() and "p99 <= 50 ms" not in response.content.decode()


@pytest.mark.browser
@pytest.mark.django_db(transaction=True)
def test_the_overview_stays_readable_with_a_metered_alarm(shipped_data, deployment, prometheus, benchmark, browser):  # noqa: F811
    """test_browser_readable's rules on the overview of the shipped results with a metered alarm open: at 1,400 px
    wide no taller than 6,000 px, no legend taller than its plot (screenshot readable-overview-metered-alarm.png)."""
    from tests.dashboard import test_browser_readable as readable

    meter_months(deployment, prometheus, SERVED)

    page = readable._visit(browser, "/?workload=llama2-70b-99", "overview-metered-alarm", min_charts=1)

    assert page.locator("#table-metered_alarms tbody tr").count() == 1
    assert page.locator("#table-metered_alarms tbody tr td").nth(1).inner_text() == "chat-prod"


def test_the_table_says_when_it_shows_only_the_newest_of_the_open_alarms(
    deployment,  # noqa: F811
    prometheus,  # noqa: F811
    logged_in,
):
    from decimal import Decimal

    days = meter_days(deployment, prometheus, weekly_traffic(13))
    assert not MeteredAlarm.objects.exists()  # none raised by the rules: the 12 below are stored as rows
    for day in days[1:]:
        MeteredAlarm.objects.create(
            period=day, baseline=days[0], window_size=5, threshold_fraction=Decimal("0.10"),
            change_fraction=Decimal("0.500000"), attribution={}, explanation=f"stored for {day.start:%m-%d}",
        )  # fmt: skip

    page = logged_in.get("/").content.decode()

    section = _table(page, "metered_alarms")
    # 12 open, the page lists 10: its title says so and where all of them are.
    assert (
        "<h2>Open cost alarms: metered production deployments: the 10 newest of 12 open "
        "(all: GET /api/v1/metered-alarms/?acknowledged=false)</h2>"
    ) in section
    assert len(_rows(section)) == 10
    assert "<h2>Open cost alarms: measured and published figures</h2>" in page  # none open: no count to state
