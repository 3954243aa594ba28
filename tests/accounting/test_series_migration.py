"""Migration 0006 re-keys stored snapshots by system exactly as snapshots.series_key keys new ones, so a series
stored before the change goes on after it (one agent's snapshots stay one series; two agents' become two)."""

from datetime import UTC, datetime
from decimal import Decimal

import pytest
from django.db import connection
from django.db.migrations.executor import MigrationExecutor

REKEY = ("accounting", "0006_series_per_system")
AT = datetime(2025, 3, 1, tzinfo=UTC)


def before_rekey() -> list[tuple[str, str]]:
    """accounting just before the re-keying, every other app at its newest migration that does not need it: the
    historical models then match the tables (a newer NOT NULL column of another app, say agents', is in both)."""
    graph = MigrationExecutor(connection).loader.graph
    others = [leaf for leaf in graph.leaf_nodes() if leaf[0] != "accounting" and REKEY not in graph.forwards_plan(leaf)]
    return [("accounting", "0005_alarm_withdrawn"), *others]


def _migrate(targets):
    executor = MigrationExecutor(connection)
    executor.migrate(targets)
    return executor.loader.project_state(targets).apps


def _snapshot(apps, run, price, key):
    point = apps.get_model("results", "OperatingPoint").objects.create(
        run=run,
        index=0,
        batch_size=1,
        throughput_per_s=1000.0,
        latency_p50_ms=1.0,
        latency_p99_ms=2.0,
        loadgen_valid=True,
    )
    zero = Decimal("0")
    return apps.get_model("accounting", "CostSnapshot").objects.create(
        accelerator=run.accelerator, run=run, point=point, price=price, model_class="cv-classification",
        workload_name="resnet50", price_kind="cloud_on_demand", utilization=Decimal("1"), unit="samples",
        throughput_per_s=1000.0, latency_p99_ms=2.0, power_source="included in cloud price",
        capex_usd_per_hour=zero, opex_usd_per_hour=zero, power_usd_per_hour=zero, cloud_usd_per_hour=Decimal("2"),
        total_usd_per_hour=Decimal("2"), cost_per_million_usd=Decimal("0.555555555556"), effective_at=AT,
        series_key=key, inputs_digest=f"digest-{run.pk}",
    )  # fmt: skip


@pytest.mark.django_db(transaction=True)
def test_it_rekeys_stored_snapshots_as_new_ones_are_keyed():
    old = _migrate(before_rekey())
    gpu = old.get_model("hardware_catalog", "Accelerator").objects.create(vendor="NVIDIA", model="Keyed GPU")
    price = old.get_model("hardware_catalog", "Price").objects.create(
        accelerator=gpu, kind="cloud_on_demand", provider="P", region="r", instance_type="i", price_usd=Decimal("2"),
        unit="per_instance_hour", effective_from=AT, source="test",
    )  # fmt: skip
    agent = old.get_model("agents", "Agent").objects.create(name="host-a", queue="q")
    run_model = old.get_model("results", "BenchmarkRun")
    common = dict(accelerator=gpu, device_name="Keyed GPU", workload_name="resnet50", model_class="cv-classification",
                  size="reference", scenario="server", backend="eager", precision="fp16", started_at=AT,
                  finished_at=AT, payload={}, payload_sha256="0" * 64, loadgen_valid=True)  # fmt: skip
    by_agent = run_model.objects.create(agent=agent, **common)
    by_hand = run_model.objects.create(**(common | {"payload_sha256": "1" * 64}))
    _snapshot(old, by_agent, price, "old-key")
    _snapshot(old, by_hand, price, "old-key")

    _migrate(MigrationExecutor(connection).loader.graph.leaf_nodes())

    from accounting.history.snapshots import _digest
    from accounting.models import CostSnapshot

    keys = dict(CostSnapshot.objects.values_list("run_id", "series_key"))
    # The agent's run: digest(old key, "agent:<id>"); the run posted by hand keeps its key.
    assert keys[by_agent.pk] == _digest("old-key", f"agent:{agent.pk}")
    assert keys[by_hand.pk] == "old-key"
