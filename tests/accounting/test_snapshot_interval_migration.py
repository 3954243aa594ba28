"""Migration 0007 gives stored snapshots the cost interval snapshots.py now stores for a new one: from their point's
throughput interval, and none where the point has none."""

from datetime import UTC, datetime
from decimal import Decimal

import pytest
from django.db import connection
from django.db.migrations.executor import MigrationExecutor

INTERVALS = ("accounting", "0007_snapshot_cost_intervals")
AT = datetime(2025, 3, 1, tzinfo=UTC)


def before_intervals() -> list[tuple[str, str]]:
    """accounting just before 0007, every other app at its newest migration that does not need it."""
    graph = MigrationExecutor(connection).loader.graph
    others = [
        leaf for leaf in graph.leaf_nodes() if leaf[0] != "accounting" and INTERVALS not in graph.forwards_plan(leaf)
    ]
    return [("accounting", "0006_series_per_system"), *others]


def _migrate(targets):
    executor = MigrationExecutor(connection)
    executor.migrate(targets)
    return executor.loader.project_state(targets).apps


def _snapshot(apps, run, price, index, interval, cost):
    low, high = interval or (None, None)
    point = apps.get_model("results", "OperatingPoint").objects.create(
        run=run, index=index, batch_size=1, throughput_per_s=1000.0, throughput_low_per_s=low,
        throughput_high_per_s=high, latency_p50_ms=1.0, latency_p99_ms=2.0, loadgen_valid=True,
    )  # fmt: skip
    zero = Decimal("0")
    return apps.get_model("accounting", "CostSnapshot").objects.create(
        accelerator=run.accelerator, run=run, point=point, price=price, model_class="cv-classification",
        workload_name="resnet50", price_kind="cloud_on_demand", utilization=Decimal("1"), unit="samples",
        throughput_per_s=1000.0, latency_p99_ms=2.0, power_source="included in cloud price",
        capex_usd_per_hour=zero, opex_usd_per_hour=zero, power_usd_per_hour=zero, cloud_usd_per_hour=Decimal("36"),
        total_usd_per_hour=Decimal("36"), cost_per_million_usd=cost, effective_at=AT, series_key=f"key-{index}",
        inputs_digest=f"digest-{index}",
    )  # fmt: skip


@pytest.mark.django_db(transaction=True)
def test_it_gives_stored_snapshots_the_interval_of_their_point_and_none_without_one():
    old = _migrate(before_intervals())
    gpu = old.get_model("hardware_catalog", "Accelerator").objects.create(vendor="NVIDIA", model="Interval GPU")
    price = old.get_model("hardware_catalog", "Price").objects.create(
        accelerator=gpu, kind="cloud_on_demand", provider="P", region="r", instance_type="i", price_usd=Decimal("36"),
        unit="per_instance_hour", effective_from=AT, source="test",
    )  # fmt: skip
    run = old.get_model("results", "BenchmarkRun").objects.create(
        accelerator=gpu, device_name="Interval GPU", workload_name="resnet50", model_class="cv-classification",
        size="reference", scenario="server", backend="eager", precision="fp16", started_at=AT, finished_at=AT,
        payload={}, payload_sha256="0" * 64, loadgen_valid=True,
    )  # fmt: skip
    # 36 USD/h at 1000/s: 36 / (1000 x 3600) x 1e6 = 10.00 per 1M; its point measured in [800, 1250]/s.
    measured = _snapshot(old, run, price, 0, (800.0, 1250.0), Decimal("10.000000000000"))
    without = _snapshot(old, run, price, 1, None, Decimal("10.000000000000"))

    _migrate(MigrationExecutor(connection).loader.graph.leaf_nodes())

    from accounting.models import CostSnapshot

    # At 1250/s: 36 / (1250 x 3600) x 1e6 = 8.00; at 800/s: 36 / (800 x 3600) x 1e6 = 12.50.
    assert CostSnapshot.objects.get(pk=measured.pk).cost_interval_usd == (Decimal("8.00"), Decimal("12.50"))
    assert CostSnapshot.objects.get(pk=without.pk).cost_interval_usd is None
