"""The attribution of a cost change: shares sum to the whole change, whatever moves."""

from decimal import Decimal

from hypothesis import given
from hypothesis import strategies as st

from accounting.history.attribution import CostState, attribute

amounts = st.decimals(min_value="0.01", max_value="100", places=4)
rates = st.decimals(min_value="1", max_value="100000", places=2)
utilizations = st.decimals(min_value="0.05", max_value="1", places=2)


def test_it_puts_an_electricity_rise_on_power():
    before = CostState(
        price_usd_per_hour=Decimal("0.60"), power_usd_per_hour=Decimal("0.05"), throughput_per_s=Decimal(400)
    )
    after = CostState(
        price_usd_per_hour=Decimal("0.60"), power_usd_per_hour=Decimal("0.10"), throughput_per_s=Decimal(400)
    )
    result = attribute(before, after)
    # Only power moved: its share is 1, and its part is the whole change, (0.70 - 0.65) / 1.44 = 0.034722…
    assert result.shares["power"] == 1
    assert result.shares["price"] == 0 and result.shares["throughput"] == 0
    assert result.parts_usd_per_million["power"].quantize(Decimal("0.000001")) == Decimal("0.034722")


def test_it_gives_each_cause_its_actual_contribution():
    # 1.00 USD/h at 1000/s is 0.277778 USD per million. Doubling the price alone adds exactly that much again;
    # doubling the price and the throughput together changes nothing, and the two parts are equal and opposite:
    # each is ln 2 times the (unchanged) cost, 0.277778 * 0.693147 = 0.192541.
    base = CostState(Decimal("1.00"), Decimal("0"), Decimal(1000))
    dearer = attribute(base, CostState(Decimal("2.00"), Decimal("0"), Decimal(1000)))
    assert dearer.parts_usd_per_million["price"] == dearer.change_usd_per_million
    assert dearer.change_usd_per_million.quantize(Decimal("0.000001")) == Decimal("0.277778")
    offset = attribute(base, CostState(Decimal("2.00"), Decimal("0"), Decimal(2000)))
    assert offset.change_usd_per_million == 0
    assert offset.parts_usd_per_million["price"].quantize(Decimal("0.000001")) == Decimal("0.192541")
    assert offset.parts_usd_per_million["throughput"].quantize(Decimal("0.000001")) == Decimal("-0.192541")


def test_it_puts_a_utilization_drop_on_utilization_not_throughput():
    before = CostState(Decimal("2.00"), Decimal("0"), Decimal(500), utilization=Decimal("1"))
    after = CostState(Decimal("2.00"), Decimal("0"), Decimal(500), utilization=Decimal("0.5"))
    result = attribute(before, after)
    # Half the utilization doubles the cost: 1.111111 -> 2.222222 USD per million, all of it utilization's.
    assert result.shares["utilization"] == 1 and result.shares["throughput"] == 0
    assert result.parts_usd_per_million["utilization"].quantize(Decimal("0.000001")) == Decimal("1.111111")


@given(
    p0=amounts, p1=amounts, w0=amounts, w1=amounts, t0=rates, t1=rates,
    u0=utilizations, u1=utilizations,
)  # fmt: skip
def test_it_splits_every_change_into_parts_that_sum_to_the_total(p0, p1, w0, w1, t0, t1, u0, u1):
    result = attribute(CostState(p0, w0, t0, u0), CostState(p1, w1, t1, u1))
    total = sum(result.parts_usd_per_million.values())
    assert abs(total - result.change_usd_per_million) <= abs(result.change_usd_per_million) * Decimal(
        "1e-20"
    ) + Decimal("1e-24")
    if result.change_usd_per_million:
        assert abs(sum(result.shares.values()) - 1) < Decimal("1e-20")


def test_it_shows_its_figures_rounded_half_up_by_the_cost_models_rule():
    # A cost of exactly half a unit of the twelfth decimal: $0.0000018/h at 1e9 per second is
    # 0.0000018 * 1e6 / (1e9 * 3600) = 5e-13 USD per million. Shown to 12 decimals (as snapshots store costs),
    # half-up (costing.rounded) gives 0.000000000001; Decimal's own half-even would give 0.000000000000.
    # Doubling the price doubles the cost to 1e-12: the change, 5e-13, is shown as 0.000000000001 too.
    before = CostState(Decimal("0.0000018"), Decimal("0"), Decimal(1_000_000_000))
    after = CostState(Decimal("0.0000036"), Decimal("0"), Decimal(1_000_000_000))
    shown = attribute(before, after).as_dict()
    assert shown["before_usd_per_million"] == "1E-12"
    assert shown["change_usd_per_million"] == "1E-12"
    assert shown["factors"]["price"]["usd_per_million"] == "1E-12"
    assert shown["factors"]["price"]["share"] == "1.0000"
