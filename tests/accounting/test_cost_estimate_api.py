from decimal import Decimal

import pytest

pytestmark = pytest.mark.django_db


def test_it_estimates_a_cloud_cost_per_million(api, make_accelerator, make_price):
    gpu = make_accelerator()
    make_price(gpu, "23.92", accelerators_per_instance=8)
    body = {"accelerator": gpu.pk, "price_kind": "cloud_on_demand", "throughput_per_s": "1000"}
    response = api.post("/api/v1/cost-estimate/", body, format="json")
    assert response.status_code == 200, response.data
    # 23.92 / 8 = 2.99 USD/h; 2.99 / 3.6 = 0.8306 USD per million
    assert response.data["hourly"]["total_usd_per_hour"] == "2.990000"
    assert response.data["cost_per_million_usd"] == "0.8306"
    assert response.data["price"]["price_usd"] == "23.920000"


def test_it_estimates_an_onprem_cost_with_default_assumptions(api, make_accelerator, make_price):
    gpu = make_accelerator(tdp_w=700)
    make_price(gpu, "25000", kind="purchase")
    body = {"accelerator": gpu.pk, "price_kind": "purchase", "throughput_per_s": "500", "utilization": "0.5"}
    response = api.post("/api/v1/cost-estimate/", body, format="json")
    assert response.status_code == 200, response.data
    assert response.data["hourly"]["total_usd_per_hour"] == "1.315410"
    assert response.data["hourly"]["power_source"] == "tdp"
    assert response.data["cost_per_million_usd"] == "1.4616"
    assert Decimal(response.data["assumptions"]["pue"]) == Decimal("1.4")


@pytest.mark.parametrize(
    "change, field",
    [
        ({"throughput_per_s": "0"}, "throughput_per_s"),
        ({"throughput_per_s": "NaN"}, "throughput_per_s"),
        ({"utilization": "1.5"}, "utilization"),
        ({"price_kind": "rental"}, "price_kind"),
        ({"accelerator": 999999}, "accelerator"),
        ({"price_kind": "cloud_spot"}, "price_kind"),
    ],
)
def test_it_names_the_bad_field(api, make_accelerator, make_price, change, field):
    gpu = make_accelerator()
    make_price(gpu, "2.00")
    body = {"accelerator": gpu.pk, "price_kind": "cloud_on_demand", "throughput_per_s": "10", **change}
    response = api.post("/api/v1/cost-estimate/", body, format="json")
    assert response.status_code == 400
    assert field in response.data
