from decimal import Decimal

import pytest

from tests.money import per_million_text

pytestmark = pytest.mark.django_db


def test_it_estimates_a_cloud_cost_per_million(api, make_accelerator, make_price):
    gpu = make_accelerator()
    make_price(gpu, "23.92", accelerators_per_instance=8)
    body = {"accelerator": gpu.pk, "price_kind": "cloud_on_demand", "throughput_per_s": "1000"}
    response = api.post("/api/v1/cost-estimate/", body, format="json")
    assert response.status_code == 200, response.data
    # 23.92 / 8 = 2.99 USD/h; 2.99 / 3.6 = 0.830555… USD per million
    assert response.data["hourly"]["total_usd_per_hour"] == "2.990000"
    assert response.data["cost_per_million_usd"] == per_million_text("2.99", 1000)
    assert response.data["price"]["price_usd"] == "23.920000"


def test_it_estimates_an_onprem_cost_with_default_assumptions(api, make_accelerator, make_price):
    gpu = make_accelerator(tdp_w=700)
    make_price(gpu, "25000", kind="purchase")
    body = {"accelerator": gpu.pk, "price_kind": "purchase", "throughput_per_s": "500", "utilization": "0.5"}
    response = api.post("/api/v1/cost-estimate/", body, format="json")
    assert response.status_code == 200, response.data
    assert response.data["hourly"]["total_usd_per_hour"] == "1.315410"
    assert response.data["hourly"]["power_source"] == "tdp"
    assert response.data["cost_per_million_usd"] == per_million_text("1.315410", 500, "0.5")
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


def test_it_uses_the_assumption_set_in_force_at_as_of(api, make_accelerator, make_price):
    from datetime import UTC, datetime

    from hardware_catalog.models import OnPremAssumptions

    gpu = make_accelerator(tdp_w=700)
    common = {"amortization_years": "4", "usd_per_kwh": "0.12", "opex_fraction_per_year": "0.10",
              "host_capex_share_usd": "5000"}  # fmt: skip
    OnPremAssumptions.objects.create(version=1, pue="1.4", created_at=datetime(2025, 1, 1, tzinfo=UTC), **common)
    OnPremAssumptions.objects.create(version=2, pue="2.0", created_at=datetime(2026, 1, 1, tzinfo=UTC), **common)
    make_price(gpu, "25000", kind="purchase")
    body = {"accelerator": gpu.pk, "price_kind": "purchase", "throughput_per_s": "500"}
    then = api.post("/api/v1/cost-estimate/", {**body, "as_of": "2025-06-01T00:00:00Z"}, format="json").data
    now = api.post("/api/v1/cost-estimate/", body, format="json").data
    assert (then["assumptions"]["version"], now["assumptions"]["version"]) == (1, 2)
    # power per hour: 700 W / 1000 * PUE * 0.12 USD/kWh = 0.117600 at PUE 1.4, 0.168000 at PUE 2.0
    assert (then["hourly"]["power_usd_per_hour"], now["hourly"]["power_usd_per_hour"]) == ("0.117600", "0.168000")
