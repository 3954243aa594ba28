"""Published results stored in bulk get their cost snapshots at once: the same rows history would give them
(`recompute_all`), labelled published through their run, and no alarm."""

import io
from datetime import UTC, datetime, timedelta
from decimal import Decimal

import pytest
from django.core.management import call_command
from django.db import transaction
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from accounting.history.published import snapshots_for_published
from accounting.history.snapshots import recompute_all
from accounting.models import CostAlarm, CostSnapshot
from hardware_catalog.models import OnPremAssumptions, PriceKind
from results.mlperf import shipped
from results.mlperf.store import import_records
from results.models import RunOrigin

pytestmark = pytest.mark.django_db

SYSTEMS = (
    "XE9680_H200_SXM_141GBx8_TRT", "ND_GB200_v6", "8xMI300X_2xEPYC_9575F",
    "rtx4090x2-nvidia-gpu-TensorRT-default_config",  # a part with a purchase price: on-prem assumption sets apply
)  # fmt: skip


@pytest.fixture
def some_published_records(db):
    """Every shipped result of a few systems (cloud, ownership and purchase prices; both rounds), with the
    catalog `make run` loads."""
    call_command("load_catalog", stdout=io.StringIO())
    records, _ = shipped.read()
    chosen = [record for record in records if record.system in SYSTEMS]
    assert len({record.system for record in chosen}) == len(SYSTEMS)
    return chosen


def _digests(run_ids) -> set[str]:
    return set(CostSnapshot.objects.filter(run_id__in=run_ids).values_list("inputs_digest", flat=True))


def test_storing_published_results_adds_the_snapshots_recompute_all_would(some_published_records):
    report = import_records(some_published_records)
    assert report.imported == len(some_published_records)
    run_ids = {s.run_id for s in CostSnapshot.objects.all()}
    loaded = _digests(run_ids)
    assert loaded and run_ids
    snapshots = CostSnapshot.objects.filter(run_id__in=run_ids).select_related("run", "price")
    assert {s.run.origin for s in snapshots} == {RunOrigin.EXTERNAL}  # shown as published
    assert {s.cost_interval_usd for s in snapshots} == {None}  # a published figure has no rounds: no interval
    assert {PriceKind.PURCHASE, PriceKind.CLOUD_ON_DEMAND, PriceKind.OWNED_HYPERSCALER_4Y} <= {
        s.price_kind for s in snapshots
    }
    # Catalog prices dated after a round's publication apply from their own date, as history would apply them.
    assert any(s.price.effective_from > s.run.finished_at for s in snapshots)
    assert not CostAlarm.objects.exists()

    CostSnapshot.objects.all().delete()
    recompute_all()
    assert _digests(run_ids) == loaded


def test_loading_the_same_results_again_adds_no_snapshot(some_published_records):
    import_records(some_published_records)
    count = CostSnapshot.objects.count()
    assert count > 0
    assert import_records(some_published_records).already_imported == len(some_published_records)
    assert CostSnapshot.objects.count() == count


# Published results on one accelerator, against price and assumption histories around them: the batch path
# (snapshots_for_published) must store exactly the snapshots the one-item forms (recompute_all) give.
JAN, FEB, MAR, APR = (datetime(2025, month, 1, tzinfo=UTC) for month in (1, 2, 3, 4))
POINTS = [{"throughput_per_s": 900.0, "latency_p99_ms": 4.0, "power_w_mean": 250.0}]


def _published(make_run, gpu, started_at, finished_at=None, **fields):
    return make_run(gpu, POINTS, origin=RunOrigin.EXTERNAL, external_source="MLPerf test", started_at=started_at,
                    finished_at=finished_at or started_at, **fields)  # fmt: skip


def _assumption_set(version: int, created_at: datetime) -> OnPremAssumptions:
    return OnPremAssumptions.objects.create(
        name="default", version=version, amortization_years=Decimal(4), usd_per_kwh=Decimal("0.12"),
        pue=Decimal("1.4"), opex_fraction_per_year=Decimal("0.1"), host_capex_share_usd=Decimal(5000),
        created_at=created_at,
    )  # fmt: skip


def day(offset: int) -> datetime:
    return JAN + timedelta(days=offset)


def _batch_and_one_by_one(run_ids) -> tuple[set[str], set[str]]:
    snapshots_for_published(run_ids)
    batch = _digests(run_ids)
    CostSnapshot.objects.all().delete()
    recompute_all()
    return batch, _digests(run_ids)


def _pairs(run_ids) -> set[tuple]:
    return set(CostSnapshot.objects.filter(run_id__in=run_ids).values_list("run_id", "price_id").distinct())


def test_a_price_applies_to_the_run_that_is_latest_at_its_instant(make_accelerator, make_price, make_run):
    gpu = make_accelerator()
    february, march, april = (make_price(gpu, usd, effective_from=at) for usd, at in [(3, FEB), (2, MAR), (1, APR)])
    first_round, second_round = _published(make_run, gpu, JAN), _published(make_run, gpu, MAR)
    run_ids = [first_round.pk, second_round.pk]

    batch, one_by_one = _batch_and_one_by_one(run_ids)

    assert batch == one_by_one and batch
    assert _pairs(run_ids) == {
        (first_round.pk, february.pk),  # the latest run when February's price took effect; none was in force at its end
        (second_round.pk, march.pk),  # in force when it finished (exactly then), and it was the latest run
        (second_round.pk, april.pk),
    }


def test_a_run_not_finished_when_a_price_takes_effect_leaves_it_to_the_latest_finished_one(
    make_accelerator, make_price, make_run
):
    gpu = make_accelerator()
    march_price = make_price(gpu, 2, effective_from=MAR)  # stored first: its own signal finds no run to price
    finished, unfinished = _published(make_run, gpu, JAN), _published(make_run, gpu, FEB, finished_at=APR)
    run_ids = [finished.pk, unfinished.pk]

    batch, one_by_one = _batch_and_one_by_one(run_ids)

    assert batch == one_by_one
    assert (finished.pk, march_price.pk) in _pairs(run_ids)  # `unfinished` had started, but had not finished


@settings(max_examples=30, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(
    cloud_days=st.lists(st.integers(0, 40), max_size=3, unique=True),
    purchase_days=st.lists(st.integers(0, 40), max_size=2, unique=True),
    corrected=st.booleans(),
    set_days=st.lists(st.integers(0, 40), max_size=3),
    runs=st.lists(
        st.tuples(st.integers(0, 40), st.integers(0, 5), st.sampled_from(["fp16", "int8"])), min_size=1, max_size=4
    ),
)
def test_the_batch_path_stores_what_the_one_item_forms_store(
    make_accelerator, make_price, make_run, cloud_days, purchase_days, corrected, set_days, runs
):
    """Boundaries come by themselves: days are few, so prices, sets and runs often start at the same instant, and a
    run that lasts days can be overtaken by a later one before it finishes."""
    with transaction.atomic():
        for version, offset in enumerate(set_days, start=1):
            _assumption_set(version, day(offset))
        gpu = make_accelerator()
        prices = [make_price(gpu, 2 + offset, effective_from=day(offset)) for offset in cloud_days]
        prices += [
            make_price(gpu, 9000 + offset, kind="purchase", effective_from=day(offset)) for offset in purchase_days
        ]
        if corrected and prices:
            make_price(gpu, 1, kind=prices[0].kind, effective_from=prices[0].effective_from, corrects=prices[0],
                       correction_reason="a typo")  # fmt: skip
        run_ids = [
            _published(make_run, gpu, day(start), day(start + lasts), precision=precision).pk
            for start, lasts, precision in runs
        ]

        batch, one_by_one = _batch_and_one_by_one(run_ids)

        assert batch == one_by_one
        transaction.set_rollback(True)
