"""The batch forms of the catalog's "in force" rules answer what their one-item forms answer: the prices in force for
many accelerators at once (`prices_in_force`) as `Price.objects.in_force` for each alone, and the assumption set in
force at many moments at once (`onprem_assumptions_in_force_at`) as `onprem_assumptions_in_force` at each."""

from datetime import UTC, datetime, timedelta
from decimal import Decimal

import pytest
from django.db import transaction
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from hardware_catalog.models import Accelerator, OnPremAssumptions, Price
from hardware_catalog.selectors import onprem_assumptions_in_force, onprem_assumptions_in_force_at, prices_in_force

pytestmark = pytest.mark.django_db

DAY_0 = datetime(2025, 1, 1, tzinfo=UTC)
JAN, FEB, MAR, APR = (datetime(2025, month, 1, tzinfo=UTC) for month in (1, 2, 3, 4))
EXAMPLES = settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])


def _day(offset: int) -> datetime:
    return DAY_0 + timedelta(days=offset)


def _ids(prices) -> set[int]:
    return {price.pk for price in prices}


def _one_by_one(accelerator: Accelerator, at: datetime) -> set[int]:
    return _ids(Price.objects.for_accelerator(accelerator).in_force(at))


def test_a_price_is_in_force_from_its_own_instant_until_the_next_row(make_accelerator, make_price):
    gpu = make_accelerator()
    february = make_price(gpu, "2.00", effective_from=FEB)
    march = make_price(gpu, "1.50", effective_from=MAR)

    assert prices_in_force([gpu], at=JAN) == {gpu.pk: []}  # before the first row
    assert prices_in_force([gpu], at=FEB)[gpu.pk] == [february]  # starting exactly at T
    assert prices_in_force([gpu], at=MAR - timedelta(microseconds=1))[gpu.pk] == [february]
    assert prices_in_force([gpu], at=MAR)[gpu.pk] == [march]  # superseded exactly at T
    assert prices_in_force([gpu], at=APR)[gpu.pk] == [march]  # the older row ended before T


def test_it_answers_each_accelerator_on_the_rows_it_is_priced_as(make_accelerator, make_price):
    cloud_slice = make_accelerator("x86 slice", vendor="Cloud", kind="cpu")
    local_cpu = make_accelerator("Local CPU", vendor="Local", kind="cpu", priced_as=cloud_slice)
    unpriced = make_accelerator("Unpriced GPU")
    on_demand = make_price(cloud_slice, "0.10", effective_from=JAN)
    spot = make_price(cloud_slice, "0.03", kind="cloud_spot", effective_from=FEB)

    answer = prices_in_force([cloud_slice, local_cpu, unpriced], at=MAR)

    assert {key: _ids(rows) for key, rows in answer.items()} == {
        cloud_slice.pk: {on_demand.pk, spot.pk},
        local_cpu.pk: {on_demand.pk, spot.pk},
        unpriced.pk: set(),
    }


def test_a_correction_replaces_the_row_it_corrects_from_that_rows_instant(make_accelerator, make_price):
    gpu = make_accelerator()
    wrong = make_price(gpu, "9.00", effective_from=FEB)
    fixed = make_price(gpu, "2.00", effective_from=FEB, corrects=wrong, correction_reason="a typo")

    assert prices_in_force([gpu], at=FEB)[gpu.pk] == [fixed]
    assert prices_in_force([gpu], at=JAN)[gpu.pk] == []


# An offering's history: distinct days it changes price, and which of those rows a correction replaced.
histories = st.lists(st.tuples(st.integers(0, 60), st.booleans()), max_size=4, unique_by=lambda row: row[0])
offerings = st.sampled_from([("cloud_on_demand", "us-test-1"), ("cloud_on_demand", "eu-test-1"), ("purchase", "")])


@EXAMPLES
@given(
    catalog=st.lists(st.dictionaries(offerings, histories, max_size=3), min_size=1, max_size=3),
    priced_as_first=st.booleans(),
    moments=st.lists(st.integers(-1, 62), min_size=1, max_size=6),
    nudge=st.sampled_from([timedelta(0), -timedelta(microseconds=1), timedelta(microseconds=1)]),
)
def test_the_batch_form_agrees_with_in_force_for_each_accelerator(catalog, priced_as_first, moments, nudge):
    with transaction.atomic():
        accelerators = []
        for number, offering_histories in enumerate(catalog):
            priced_as = accelerators[0] if priced_as_first and accelerators else None
            gpu = Accelerator.objects.create(vendor="Test", model=f"GPU {number}", tdp_w=300, priced_as=priced_as)
            accelerators.append(gpu)
            for (kind, region), history in offering_histories.items():
                for day, corrected in history:
                    row = Price.objects.create(
                        accelerator=gpu, kind=kind, provider="TestCloud", region=region, price_usd=Decimal(day + 1),
                        unit="per_unit" if kind == "purchase" else "per_instance_hour", effective_from=_day(day),
                        source="test",
                    )  # fmt: skip
                    if corrected:
                        Price.objects.create(
                            accelerator=gpu, kind=kind, provider="TestCloud", region=region, unit=row.unit,
                            price_usd=row.price_usd / 2, effective_from=row.effective_from, source="test",
                            corrects=row, correction_reason="halved",
                        )  # fmt: skip

        for moment in {
            _day(offset) + nudge for offset in moments
        }:  # days of the histories: exactly at T, and next to it
            answer = prices_in_force(accelerators, at=moment)
            assert {key: _ids(rows) for key, rows in answer.items()} == {
                gpu.pk: _one_by_one(gpu, moment) for gpu in accelerators
            }
        transaction.set_rollback(True)


def _assumptions(version: int, created_at: datetime, name: str = "default") -> OnPremAssumptions:
    return OnPremAssumptions.objects.create(
        name=name, version=version, amortization_years=Decimal(4), usd_per_kwh=Decimal("0.12"), pue=Decimal("1.4"),
        opex_fraction_per_year=Decimal("0.1"), host_capex_share_usd=Decimal(5000), created_at=created_at,
    )  # fmt: skip


def test_the_latest_version_created_by_then_is_in_force(db):
    first, second = _assumptions(1, FEB), _assumptions(2, MAR)
    _assumptions(9, JAN, name="other")

    answer = onprem_assumptions_in_force_at([JAN, FEB, MAR - timedelta(microseconds=1), MAR, APR, None])

    assert answer == {JAN: second, FEB: first, MAR - timedelta(microseconds=1): first, MAR: second, APR: second,
                      None: second}  # fmt: skip  # before any version (and unasked): the latest


def test_it_stores_the_default_set_once_when_none_exists(db):
    answer = onprem_assumptions_in_force_at([JAN, FEB, None])

    assert OnPremAssumptions.objects.count() == 1
    assert set(answer.values()) == {OnPremAssumptions.objects.get(name="default", version=1)}


@EXAMPLES
@given(
    versions=st.lists(st.integers(0, 30), min_size=1, max_size=5),  # creation days, version 1, 2, ... in order
    moments=st.lists(st.integers(-1, 31), min_size=1, max_size=6),
)
def test_the_batch_form_agrees_with_onprem_assumptions_in_force_at_each_moment(versions, moments):
    with transaction.atomic():
        for version, day in enumerate(versions, start=1):
            _assumptions(version, _day(day))
        asked = [_day(offset) for offset in moments] + [None]

        answer = onprem_assumptions_in_force_at(asked)

        assert answer == {moment: onprem_assumptions_in_force(at=moment) for moment in asked}
        transaction.set_rollback(True)
