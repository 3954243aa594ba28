"""Utilization is an assumption every answer states: the default (INFERLEDGER_UTILIZATION, 100 % unless
configured) or the one asked, beside the figure, in the JSON, the CSV and the dashboard."""

import csv
import io
from decimal import Decimal

import pytest

from tests.accounting.serving.data import make_sweep

pytestmark = pytest.mark.django_db

QUESTION = {"workload": "resnet50", "price_kind": "cloud_on_demand"}
DEFAULT_TEXT = (
    "assumes 100% utilization (the default, INFERLEDGER_UTILIZATION): the share of paid accelerator-hours "
    "spent serving; at another utilization u, divide it by u"
)


@pytest.fixture
def gpu(make_accelerator, make_price, make_run):
    gpu = make_accelerator("Zeta")
    make_price(gpu, "2.00")  # USD per accelerator-hour
    make_run(gpu, [{"throughput_per_s": 400, "latency_p99_ms": 9.0}])
    return gpu


def test_a_ranking_states_the_default_utilization_it_assumed(api, gpu):
    data = api.get("/api/v1/rankings/", QUESTION).json()

    # 2.00 USD/h / (400/s x 3600 s/h x 1.00) x 1e6 = 1.388888888889 USD per 1M inferences
    assert data["rows"][0]["cost_per_million_usd"] == "1.388888888889"
    assert data["utilization"] == "1.000000"
    assert data["utilization_assumed"] == DEFAULT_TEXT


def test_a_ranking_states_the_utilization_asked(api, gpu):
    data = api.get("/api/v1/rankings/", QUESTION | {"utilization": "0.5"}).json()

    # Half the paid hours serve: 2.00 / (400 x 3600 x 0.5) x 1e6 = 2.777777777778, twice the 100 % figure.
    assert data["rows"][0]["cost_per_million_usd"] == "2.777777777778"
    assert data["utilization_assumed"].startswith("assumes 50% utilization (as asked)")
    assert data["utilization_assumed"].endswith("at another utilization u, multiply it by 0.5 / u")


def test_the_configured_default_is_the_one_every_answer_assumes(api, gpu, settings):
    settings.INFERLEDGER_UTILIZATION = "0.8"

    data = api.get("/api/v1/rankings/", QUESTION).json()

    # 2.00 / (400 x 3600 x 0.8) x 1e6 = 2.00 / 1152 x 1e6 = 1.736111111111
    assert data["rows"][0]["cost_per_million_usd"] == "1.736111111111"
    assert data["utilization"] == "0.800000"
    assert data["utilization_assumed"].startswith("assumes 80% utilization (the default, INFERLEDGER_UTILIZATION)")


def test_every_csv_row_states_the_utilization(api, gpu):
    response = api.get("/api/v1/rankings/", QUESTION | {"utilization": "0.5", "format": "csv"})

    (row,) = list(csv.DictReader(io.StringIO(response.content.decode())))
    assert (row["cost_per_million_usd"], row["utilization"]) == ("2.777777777778", "0.500000")
    assert row["utilization_assumed"].startswith("assumes 50% utilization (as asked)")


def test_the_serving_ranking_states_it_too(api, make_accelerator, make_price, make_run):
    make_sweep(make_accelerator, make_price, make_run)

    query = {"workload": "llama3.1-8b", "price_kind": "cloud_on_demand", "interactivity_tps_per_user": 20}
    data = api.get("/api/v1/serving/ranking/", query | {"utilization": "0.5"}).json()

    # Beta at 20 tok/s/user: 1200 / 2 = 600 output tok/s per accelerator at 1.80 USD/h, half the hours used:
    # 1.80 / (600 x 3600 x 0.5) x 1e6 = 1.666666666667 USD per 1M output tokens (0.8333 at 100 %).
    assert data["rows"][0]["costs"]["cost_per_million_output_tokens_usd"] == "1.666666666667"
    assert data["utilization_assumed"].startswith("assumes 50% utilization (as asked)")
    (row, *_) = csv.DictReader(
        io.StringIO(api.get("/api/v1/serving/ranking/", query | {"format": "csv"}).content.decode())
    )
    assert (row["cost_per_million_output_tokens_usd"], row["utilization_assumed"]) == ("0.833333333333", DEFAULT_TEXT)


def test_a_cost_estimate_states_it(api, gpu):
    body = {"accelerator": gpu.pk, "price_kind": "cloud_on_demand", "throughput_per_s": "400"}

    data = api.post("/api/v1/cost-estimate/", body, format="json").json()

    assert Decimal(data["cost_per_million_usd"]) == Decimal("1.388888888889")  # as in the ranking above
    assert data["utilization_assumed"] == DEFAULT_TEXT


def test_the_overview_page_states_it(client, user, gpu):
    client.force_login(user)

    page = client.get("/", QUESTION).content.decode()

    assert f"Every cost on this page {DEFAULT_TEXT}." in page
