"""Every CSV a page offers says what its figures were computed under: workload, SLA, cost basis, as of.

The exports are found the way a person finds them, from the CSV links on each page, so a table added to a
page later is checked too.
"""

import csv
import html
import io
import re
from datetime import UTC, datetime, timedelta

import pytest

from tests.accounting.conftest import make_run  # noqa: F401 - the fixture that stores runs
from tests.accounting.serving.data import make_sweep

pytestmark = pytest.mark.django_db

# A table whose rows state their own (alarms, metered alarms: "Workload", "SLA", "Cost basis") carries them as its
# columns.
CONTEXT_COLUMNS = ("workload", "sla", "cost basis", "as of (UTC)")
ROWS_STATE_CONTEXT = {"alarms", "metered_alarms"}


def _exports(client, path: str) -> dict[str, list[list[str]]]:
    """{table name: CSV rows} for every CSV link on the page."""
    page = client.get(path)
    assert page.status_code == 200, path
    links = [html.unescape(link) for link in re.findall(r'<a class="csv" href="([^"]+)"', page.content.decode())]
    assert links, f"{path}: no CSV links"
    exports = {}
    for link in links:
        response = client.get(path.split("?")[0] + link)
        assert response.status_code == 200 and response["Content-Type"].startswith("text/csv"), link
        text = response.content.decode("utf-8-sig")
        exports[re.search(r"export=([\w-]+)", link).group(1)] = list(csv.reader(io.StringIO(text)))
    return exports


def _assert_context(path: str, exports: dict, *, expect: dict) -> None:
    for name, (header, *rows) in exports.items():
        header = [column.lower() if column.lower() in CONTEXT_COLUMNS[:3] else column for column in header]
        missing = [column for column in CONTEXT_COLUMNS if column not in header]
        assert not missing, f"{path} export={name}: no {missing} column in {header}"
        for row in rows:
            cells = dict(zip(header, row, strict=True))
            as_of = datetime.strptime(cells["as of (UTC)"], "%Y-%m-%dT%H:%M:%SZ").replace(tzinfo=UTC)
            assert abs(datetime.now(UTC) - as_of) < timedelta(minutes=5)
            for column, value in ({} if name in ROWS_STATE_CONTEXT else expect).items():
                assert cells[column] == value, f"{path} export={name}: {column} {cells[column]!r}, not {value!r}"


def test_every_measured_data_page_csv_states_its_context(dashboard_data, price_rise, logged_in, loose_sla_ms):
    cpu_server = next(run for run in dashboard_data["cpu"] if run.scenario == "server")
    h100 = price_rise.accelerator
    compare = f"workload=tabular-tiny&before_precision=fp32&after_precision=int8&sla_p99_ms={loose_sla_ms}"
    pages = {
        f"/?workload=tabular-tiny&sla_p99_ms={loose_sla_ms}&price_kind=cloud_on_demand&utilization=0.5": {
            "workload": "tabular-tiny", "sla": f"p99 <= {loose_sla_ms} ms",
            "cost basis": "cloud_on_demand at 50% utilization",
        },
        f"/hardware/{h100.pk}/": {
            "sla": "no SLA (best throughput)", "cost basis": "cloud_on_demand at 100% utilization",
        },
        f"/runs/{cpu_server.pk}/?sla=1000": {"workload": "tabular-tiny", "sla": "p99 <= 1000 ms (chooses the point)"},
        "/trends/?workload=tabular-tiny&price_kind=purchase": {
            "workload": "tabular-tiny", "sla": "no SLA (best throughput)", "cost basis": "purchase at 100% utilization",
        },
        f"/compare/?{compare}": {
            "workload": "tabular-tiny", "sla": f"p99 <= {loose_sla_ms} ms",
            "cost basis": "cloud_on_demand at 100% utilization",
        },
    }  # fmt: skip
    for path, expect in pages.items():
        _assert_context(path, _exports(logged_in, path), expect=expect)


def test_the_serving_page_csv_states_its_target_and_basis(make_accelerator, make_price, make_run, logged_in):  # noqa: F811
    make_sweep(make_accelerator, make_price, make_run)
    path = "/serving/?workload=llama3.1-8b&interactivity_tps_per_user=15&price_kind=cloud_on_demand"
    expect = {
        "workload": "llama3.1-8b",
        "sla": "interactivity >= 15 tokens/s per user",
        "cost basis": "cloud_on_demand at 100% utilization",
    }
    _assert_context(path, _exports(logged_in, path), expect=expect)


def test_the_jobs_page_csv_states_when(db, logged_in):
    for name, (header, *_rows) in _exports(logged_in, "/jobs/").items():
        assert "as of (UTC)" in header, name
