"""The attribution of a cost change: shares sum to the whole change, whatever moves."""

from decimal import Decimal

from hypothesis import given
from hypothesis import strategies as st

from accounting.attribution import CostState, attribute

amounts = st.decimals(min_value="0.01", max_value="100", places=4)
rates = st.decimals(min_value="1", max_value="100000", places=2)


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


@given(p0=amounts, p1=amounts, w0=amounts, w1=amounts, t0=rates, t1=rates)
def test_it_splits_every_change_into_parts_that_sum_to_the_total(p0, p1, w0, w1, t0, t1):
    result = attribute(CostState(p0, w0, t0), CostState(p1, w1, t1))
    total = sum(result.parts_usd_per_million.values())
    assert abs(total - result.change_usd_per_million) <= abs(result.change_usd_per_million) * Decimal(
        "1e-20"
    ) + Decimal("1e-24")
    if result.change_usd_per_million:
        assert abs(sum(result.shares.values()) - 1) < Decimal("1e-20")
