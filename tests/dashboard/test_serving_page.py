"""The LLM serving page rendered by the test client: read-outs, refusals, CSV and the default target."""

import csv
import io

import pytest

from tests.accounting.conftest import make_run  # noqa: F401 - the fixture that stores runs
from tests.accounting.serving.data import make_sweep
from tests.money import per_million_text

pytestmark = pytest.mark.django_db


@pytest.fixture
def sweep(make_accelerator, make_price, make_run):  # noqa: F811
    return make_sweep(make_accelerator, make_price, make_run)


def test_it_sends_anonymous_visitors_to_the_login_page(client):
    response = client.get("/serving/")
    assert response.status_code == 302 and response["Location"].startswith("/accounts/login/")


def test_it_reads_every_front_at_the_target_and_draws_the_chart(sweep, logged_in):
    response = logged_in.get("/serving/?workload=llama3.1-8b&interactivity_tps_per_user=15&price_kind=cloud_on_demand")

    assert response.status_code == 200
    page = response.content.decode()
    assert 'id="serving-chart"' in page
    assert "15.00 tokens/s per user" in page
    # Alpha's points at 10 and 20 tok/s/user bracket the target, and the read-out names both.
    assert "↔" in page


def test_it_downloads_the_readout_as_csv_with_units_in_the_headers(sweep, logged_in):
    response = logged_in.get("/serving/?workload=llama3.1-8b&interactivity_tps_per_user=20&export=readout")

    rows = list(csv.reader(io.StringIO(response.content.decode("utf-8-sig"))))
    assert rows[0][:3] == ["Rank", "Hardware - engine - precision", "Output tok/s per accelerator"]
    assert "Per 1M total tokens (USD)" in rows[0]
    # Beta 1.80 USD/h at 600 tok/s, Alpha 2.88 at 800 (see tests/accounting/serving/test_serving_api.py),
    # at full precision.
    assert [row[rows[0].index("Per 1M output tokens (USD)")] for row in rows[1:]] == [
        per_million_text("1.80", 600),
        per_million_text("2.88", 800),
    ]


def test_it_lists_the_fronts_it_cannot_read_with_the_reason(sweep, logged_in):
    response = logged_in.get("/serving/?workload=llama3.1-8b&interactivity_tps_per_user=30&export=refused")

    rows = list(csv.reader(io.StringIO(response.content.decode("utf-8-sig"))))
    assert len(rows) == 2 and "above the fastest measured interactivity 20" in rows[1][2]


def test_it_defaults_to_a_target_most_fronts_reach(sweep, logged_in):
    response = logged_in.get("/serving/?workload=llama3.1-8b")

    # Alpha spans 10..40 tok/s/user, Beta 10..20: 10 is reached by both, and is the slowest such end.
    assert "10.00 tokens/s per user" in response.content.decode()
    # The box shows the target read at: pressing the button untouched keeps the answer.
    assert 'name="interactivity_tps_per_user" value="10"' in response.content.decode()


def test_it_explains_an_empty_workload(logged_in):
    response = logged_in.get("/serving/?workload=mixtral-8x7b")

    assert response.status_code == 200
    text = response.content.decode()
    assert "No front to read for" in text and "no run or published result of mixtral-8x7b is stored" in text
