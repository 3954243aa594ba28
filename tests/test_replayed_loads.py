"""tests/replayed_loads.py: a load replayed gives the rows the load gives, and only from the same starting point."""

import uuid
from contextlib import contextmanager
from datetime import UTC, datetime
from decimal import Decimal
from io import StringIO

import pytest
from django.core.management import call_command
from django.db import transaction

from hardware_catalog.models import Accelerator, Price
from tests.replayed_loads import LOADED, REPLAYED, _fingerprint, _tables, load_counts, replayed

pytestmark = [pytest.mark.django_db, pytest.mark.postgres]


@contextmanager
def undone():
    """Whatever the block writes is rolled back after it (a savepoint): the next block starts where it started."""
    savepoint = transaction.savepoint()
    try:
        yield
    finally:
        transaction.savepoint_rollback(savepoint)


def _counted(name: str) -> tuple[int, int]:
    counts = load_counts()
    return counts.get((name, LOADED), 0), counts.get((name, REPLAYED), 0)


def _two_gpus_and_a_price(calls: list):
    def load():
        calls.append("load")
        gpu = Accelerator.objects.create(vendor="Replay", model="R1", tdp_w=300.0)
        Accelerator.objects.create(vendor="Replay", model="R2", tdp_w=700.0)
        Price.objects.create(
            accelerator=gpu, price_usd=Decimal("2.50"), kind="cloud_on_demand", unit="per_instance_hour",
            provider="TestCloud", region="r", instance_type="t", accelerators_per_instance=1, source="test",
            effective_from=datetime(2025, 1, 1, tzinfo=UTC),
        )  # fmt: skip

    return load


def test_from_the_same_start_it_replays_the_rows_the_load_wrote_ids_included():
    name, calls = f"test-{uuid.uuid4()}", []
    load = _two_gpus_and_a_price(calls)
    with undone():
        replayed(name, load)
        loaded = _fingerprint(_tables())
        ids = sorted(Accelerator.objects.values_list("id", flat=True))
    with undone():
        replayed(name, load)
        assert _fingerprint(_tables()) == loaded  # every table, row for row (hashed as text, ids included)
        # The id sequence moved past the replayed rows: the next accelerator takes a new id.
        assert Accelerator.objects.create(vendor="Replay", model="R3").id > max(ids)
    assert calls == ["load"]
    assert _counted(name) == (1, 1)


def test_from_another_start_it_loads_for_real():
    name, calls = f"test-{uuid.uuid4()}", []
    load = _two_gpus_and_a_price(calls)
    with undone():
        replayed(name, load)
    with undone():
        Accelerator.objects.create(vendor="Other", model="Already here")
        replayed(name, load)
        assert Accelerator.objects.count() == 3
    assert calls == ["load", "load"]
    assert _counted(name) == (2, 0)


def test_a_load_that_changes_rows_already_there_is_never_replayed():
    name, calls = f"test-{uuid.uuid4()}", []

    def load():
        calls.append("load")
        Accelerator.objects.filter(model="Kept").update(tdp_w=999.0)  # an update a replay of new rows would miss
        Accelerator.objects.create(vendor="Replay", model="New")

    Accelerator.objects.create(vendor="Replay", model="Kept", tdp_w=100.0)
    for _ in range(2):
        with undone():
            replayed(name, load)
            assert Accelerator.objects.get(model="Kept").tdp_w == 999.0
    assert calls == ["load", "load"]


def test_the_shipped_data_replayed_is_the_shipped_data_loaded():
    """The fixture most tests start from (tests/conftest.py shipped_data): every table its load writes comes back."""
    name, calls = f"test-{uuid.uuid4()}", []

    def load():
        calls.append("load")
        call_command("load_catalog", stdout=StringIO())
        call_command("load_published_results", stdout=StringIO())

    with undone():
        replayed(name, load)
        loaded = _fingerprint(_tables())
        assert loaded["accounting_costsnapshot"][0] > 10_000  # published results and their cost snapshots
    with undone():
        replayed(name, load)
        assert _fingerprint(_tables()) == loaded
    assert calls == ["load"]
