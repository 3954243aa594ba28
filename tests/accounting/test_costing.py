"""The cost model, checked against arithmetic written out by hand."""

from decimal import Decimal

import pytest
from hypothesis import given
from hypothesis import strategies as st

from accounting.pricing import costing


def test_it_costs_a_cloud_accelerator_per_million_to_the_cent():
    # Lambda gpu_8x_h100_sxm5: $23.92 per instance-hour shared by 8 GPUs = $2.99 per GPU-hour.
    hourly = costing.cloud_hourly_cost(instance_price_usd_per_hour="23.92", accelerators_per_instance=8)
    assert hourly.total_usd_per_hour == Decimal("2.990000")
    # 1,000 inferences/s fully used: 2.99 / (1000 * 3600) * 1e6 = 2.99 / 3.6 = 0.830555…, kept to 12 decimals
    per_million = costing.cost_per_million(hourly_usd=hourly.total_usd_per_hour, throughput_per_s=1000)
    assert per_million == (Decimal("2.99") / Decimal("3.6")).quantize(costing.PER_MILLION_QUANTUM)
    assert per_million.quantize(Decimal("0.01")) == Decimal("0.83")


def test_it_costs_an_onprem_accelerator_per_million_to_the_cent():
    # capex = 25,000 (GPU) + 5,000 (host share) = 30,000 USD
    # capex per hour  = 30,000 / (4 years * 8,766 h)      = 0.855578…
    # opex per hour   = 30,000 * 0.10 / 8,766             = 0.342231…
    # power per hour  = 700 W / 1000 * 1.4 PUE * 0.12 USD = 0.117600
    # total           = 1.315410… USD per hour
    hourly = costing.onprem_hourly_cost(
        accelerator_price_usd="25000",
        host_capex_share_usd="5000",
        amortization_years="4",
        opex_fraction_per_year="0.10",
        usd_per_kwh="0.12",
        pue="1.4",
        tdp_w=700,
    )
    assert hourly.capex_usd_per_hour == Decimal("0.855578")
    assert hourly.opex_usd_per_hour == Decimal("0.342231")
    assert hourly.power_usd_per_hour == Decimal("0.117600")
    assert hourly.total_usd_per_hour == Decimal("1.315410")
    assert hourly.power_source == "tdp"
    # 500 inferences/s at 50% utilization: 1.315410 / (500 * 3600 * 0.5) * 1e6 = 1.315410 / 0.9 = 1.461566…
    per_million = costing.cost_per_million(
        hourly_usd=hourly.total_usd_per_hour, throughput_per_s=500, utilization="0.5"
    )
    assert per_million == (Decimal("1.315410") / Decimal("0.9")).quantize(costing.PER_MILLION_QUANTUM)
    assert per_million.quantize(Decimal("0.01")) == Decimal("1.46")


# A $1,000 accelerator with no host share and no opex: the tests below state the figures they are about.
SMALL_ONPREM = {"accelerator_price_usd": "1000", "host_capex_share_usd": "0", "opex_fraction_per_year": "0"}


def test_it_prefers_measured_power_to_tdp_and_says_so():
    hourly = costing.onprem_hourly_cost(
        **SMALL_ONPREM, amortization_years="1", usd_per_kwh="0.10", pue="1", measured_power_w="250", tdp_w=700
    )
    # 250 W / 1000 * 1 * 0.10 = 0.025 USD per hour
    assert hourly.power_usd_per_hour == Decimal("0.025000")
    assert hourly.power_source == "measured"
    assert hourly.power_w == Decimal("250")


@pytest.mark.parametrize(
    "kwargs, message",
    [
        ({"hourly_usd": 1, "throughput_per_s": 0}, "throughput_per_s must be greater than zero"),
        ({"hourly_usd": 1, "throughput_per_s": -5}, "throughput_per_s must be greater than zero"),
        ({"hourly_usd": 1, "throughput_per_s": 10, "utilization": 0}, "utilization must be in (0, 1]"),
        ({"hourly_usd": 1, "throughput_per_s": 10, "utilization": "1.01"}, "utilization must be in (0, 1]"),
        ({"hourly_usd": 1, "throughput_per_s": float("nan")}, "throughput_per_s must be finite"),
        ({"hourly_usd": 1, "throughput_per_s": float("inf")}, "throughput_per_s must be finite"),
    ],
)
def test_it_refuses_impossible_cost_inputs_with_a_clear_error(kwargs, message):
    with pytest.raises(ValueError, match=message.replace("(", r"\(").replace(")", r"\)").replace("]", r"\]")):
        costing.cost_per_million(**kwargs)


@pytest.mark.parametrize(
    "figures, message",
    [
        pytest.param({"amortization_years": "0", "tdp_w": 100}, "amortization_years must be greater than zero",
                     id="amortization-of-zero-years"),
        pytest.param({"amortization_years": "3"}, "needs measured_power_w or tdp_w: neither was given",
                     id="no-power-figure"),
    ],
)  # fmt: skip
def test_it_refuses_impossible_onprem_inputs_with_a_clear_error(figures, message):
    with pytest.raises(ValueError, match=message):
        costing.onprem_hourly_cost(**SMALL_ONPREM, usd_per_kwh="0.1", pue="1.2", **figures)


def test_it_sizes_capacity_and_monthly_cost():
    # 2,500 QPS / (1,000/s * 0.8) = 3.125 -> 4 units; 4 * 2.99 * 730 = 8,730.80 USD per month
    result = costing.capacity(target_qps=2500, throughput_per_s=1000, max_utilization="0.8", hourly_usd="2.99")
    assert (result.units, result.accelerators_per_unit, result.accelerators) == (4, 1, 4)
    assert result.monthly_usd == Decimal("8730.80")
    assert result.annual_usd == Decimal("104769.60")
    # 4 units give 4,000/s; 2,500 used -> 37.5% headroom
    assert result.headroom_fraction == Decimal("0.3750")


def test_it_sizes_a_result_measured_on_eight_accelerators_in_units_of_eight():
    # 18,000 tokens/s / (2,700/s per accelerator * 8 * 0.7 = 15,120/s per system) = 1.19 -> 2 systems, 16 accelerators
    # 16 * 12.29 * 730 = 143,547.20 USD per month; 2 systems give 43,200/s, 18,000 used -> 58.33 % headroom
    result = costing.capacity(
        target_qps=18000, throughput_per_s=2700, max_utilization="0.7", hourly_usd="12.29", accelerators_per_unit=8
    )
    assert (result.units, result.accelerators) == (2, 16)
    assert result.monthly_usd == Decimal("143547.20")
    assert result.headroom_fraction == Decimal("0.5833")


def test_it_computes_annual_savings():
    # (0.8306 - 0.5000) USD per million * 2,000,000,000 per year / 1e6 = 661.20 USD
    assert costing.annual_savings(
        cost_per_million_before="0.8306", cost_per_million_after="0.5", annual_volume=2_000_000_000
    ) == Decimal("661.20")


prices = st.decimals(min_value="0.01", max_value="1000", places=4)
throughputs = st.floats(min_value=0.01, max_value=1e6, allow_nan=False, allow_infinity=False)


@given(price=prices, extra=prices, throughput=throughputs)
def test_it_costs_more_when_the_price_rises(price, extra, throughput):
    cheaper = costing.cost_per_million(hourly_usd=price, throughput_per_s=throughput)
    dearer = costing.cost_per_million(hourly_usd=price + extra, throughput_per_s=throughput)
    assert dearer >= cheaper


@given(price=prices, throughput=throughputs, factor=st.floats(min_value=1.0, max_value=1000.0))
def test_it_costs_less_when_throughput_rises(price, throughput, factor):
    slower = costing.cost_per_million(hourly_usd=price, throughput_per_s=throughput)
    faster = costing.cost_per_million(hourly_usd=price, throughput_per_s=throughput * factor)
    assert faster <= slower
