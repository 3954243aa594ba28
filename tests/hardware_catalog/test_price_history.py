from datetime import UTC, datetime

import pytest

from hardware_catalog.models import Price

pytestmark = pytest.mark.django_db


def test_it_never_overwrites_a_price(make_accelerator, make_price):
    price = make_price(make_accelerator(), "2.00")
    price.price_usd = "3.00"
    with pytest.raises(ValueError, match="never overwritten"):
        price.save()


def test_it_finds_the_price_in_force_at_a_time(make_accelerator, make_price):
    gpu = make_accelerator()
    old = make_price(gpu, "2.00", effective_from=datetime(2024, 1, 1, tzinfo=UTC))
    new = make_price(gpu, "1.50", effective_from=datetime(2025, 1, 1, tzinfo=UTC))
    assert list(Price.objects.in_force(datetime(2024, 6, 1, tzinfo=UTC))) == [old]
    assert list(Price.objects.in_force(datetime(2025, 6, 1, tzinfo=UTC))) == [new]
    assert list(Price.objects.in_force(datetime(2023, 6, 1, tzinfo=UTC))) == []


def test_it_keeps_offerings_apart_when_finding_prices_in_force(make_accelerator, make_price):
    gpu = make_accelerator()
    spot = make_price(gpu, "0.50", kind="cloud_spot")
    on_demand = make_price(gpu, "2.00")
    other_region = make_price(gpu, "2.10", region="eu-test-1")
    assert set(Price.objects.in_force(datetime(2026, 1, 1, tzinfo=UTC))) == {spot, on_demand, other_region}
