"""The 2026 parts, cloud prices and ownership bases of the shipped catalog."""

from datetime import UTC, datetime
from decimal import Decimal
from io import StringIO

import pytest
from django.core.management import call_command

from hardware_catalog.models import Accelerator, Price, PriceKind, PriceUnit

pytestmark = pytest.mark.django_db


@pytest.fixture
def loaded(db):
    call_command("load_catalog", stdout=StringIO())


def test_the_same_offering_from_two_snapshots_is_price_history(loaded):
    lambda_8x_h100 = Price.objects.filter(provider="Lambda", instance_type="gpu_8x_h100_sxm5").order_by(
        "effective_from"
    )
    # prices.csv dates the v7 snapshot's row by its interval's lower bound (2022-10/..).
    assert [(p.price_usd, p.effective_from.date().isoformat()) for p in lambda_8x_h100] == [
        (Decimal("23.92"), "2022-10-01"),
        (Decimal("31.92"), "2026-01-01"),
    ]
    in_force = Price.objects.in_force(datetime(2026, 6, 1, tzinfo=UTC)).get(instance_type="gpu_8x_h100_sxm5")
    assert in_force.price_usd == Decimal("31.92")


def test_undated_snapshot_rows_say_how_they_were_dated_and_dated_rows_keep_their_date(loaded):
    nebius = Price.objects.filter(provider="Nebius").first()
    assert nebius.as_of == "" and "effective_from 2026-01-01 by InferLedger's rule" in nebius.source
    crusoe = Price.objects.filter(provider="Crusoe").first()
    assert crusoe.effective_from.date().isoformat() == "2026-02-26" and "rule" not in crusoe.source


def test_ownership_bases_are_all_in_hourly_prices_with_their_source(loaded):
    owned = Price.objects.filter(kind=PriceKind.OWNED_HYPERSCALER_4Y)
    assert owned.count() == 9
    h100 = owned.get(accelerator__model="H100 SXM5 80GB")
    assert (h100.price_usd, h100.unit, h100.usd_per_accelerator) == (
        Decimal("1.30"), PriceUnit.PER_ACCELERATOR_HOUR, Decimal("1.30"),
    )  # fmt: skip
    assert "InferenceX-app" in h100.source and "1.73 kW" in h100.source
    b300 = Price.objects.get(kind=PriceKind.OWNED_NEOCLOUD_4Y, accelerator__model="B300 SXM")
    assert "placeholder" in b300.source and "constants.ts" in b300.source


def test_2026_parts_keep_their_sources_and_specs(loaded):
    mi325x = Accelerator.objects.get(vendor="AMD", model="MI325X")
    assert (mi325x.memory_gib, mi325x.fp8_tflops_dense) == (256, 2615)
    assert "inference_results_v5.1" in mi325x.source
    assert Accelerator.objects.get(model__startswith="Xeon 6980P").kind == "cpu"
