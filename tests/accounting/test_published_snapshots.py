"""Published results stored in bulk get their cost snapshots at once: the same rows history would give them
(`recompute_all`), labelled published through their run, and no alarm."""

import io

import pytest
from django.core.management import call_command

from accounting.models import CostAlarm, CostSnapshot
from accounting.snapshots import recompute_all
from hardware_catalog.models import PriceKind
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
