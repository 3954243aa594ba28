"""Costs per million keep their relative precision: a cheap workload's $0.0006 is not one rounding step
away from $0.0005 (4 decimals made that a 17-20 % "regression" on an unchanged re-run)."""

import importlib
from datetime import UTC, datetime
from decimal import Decimal

import pytest

from accounting.models import CostAlarm, CostSnapshot
from accounting.pricing.money import usd_text
from results.models import BenchmarkRun
from results.signals import run_ingested

pytestmark = pytest.mark.django_db

MARCH, APRIL = (datetime(2025, month, 1, tzinfo=UTC) for month in (3, 4))
HOURLY_USD = Decimal("0.02")  # a small CPU instance


def _exact_per_million(throughput_per_s) -> Decimal:
    """hourly / (throughput * 3600) * 1e6, unrounded: what the stored figure must stay close to."""
    return HOURLY_USD / (Decimal(str(throughput_per_s)) * 3600) * 1_000_000


def _ingest(make_run, cpu, throughput_per_s, started_at):
    run = make_run(cpu, [{"throughput_per_s": throughput_per_s, "latency_p99_ms": 1.0}], started_at=started_at)
    run_ingested.send(sender=BenchmarkRun, run=run)
    return run


def _no_sla_series(cpu) -> list[CostSnapshot]:
    return list(CostSnapshot.objects.filter(accelerator=cpu, sla_p99_ms=None).order_by("effective_at", "id"))


def test_it_keeps_a_sub_cent_costs_relative_precision_through_store_and_read(
    api, make_accelerator, make_price, make_run
):
    cpu = make_accelerator("Tiny CPU", vendor="Intel")
    make_price(cpu, HOURLY_USD)
    throughput = 9259.3  # about $0.0006 per million
    _ingest(make_run, cpu, throughput, MARCH)
    exact = _exact_per_million(throughput)
    assert Decimal("0.0005") < exact < Decimal("0.0007")

    (snapshot,) = _no_sla_series(cpu)
    stored = CostSnapshot.objects.get(pk=snapshot.pk).cost_per_million_usd  # read back from the database
    assert abs(stored - exact) / exact < Decimal("1e-8")

    response = api.get(f"/api/v1/cost-series/?accelerator={cpu.pk}&workload=resnet50&price_kind=cloud_on_demand")
    assert response.status_code == 200, response.data
    served = Decimal(response.data[0]["cost_per_million_usd"])  # the API serves the full Decimal string
    assert served == stored
    assert usd_text(served) == usd_text(exact) == "$0.000600"


def test_it_raises_no_alarm_for_a_rerun_with_identical_figures(make_accelerator, make_price, make_run):
    cpu = make_accelerator("Tiny CPU", vendor="Intel")
    make_price(cpu, HOURLY_USD)
    _ingest(make_run, cpu, 9259.3, MARCH)
    _ingest(make_run, cpu, 9259.3, APRIL)
    first, second = _no_sla_series(cpu)
    assert first.cost_per_million_usd == second.cost_per_million_usd
    assert not CostAlarm.objects.exists()


def test_it_raises_no_alarm_for_a_rerun_straddling_a_former_rounding_step(make_accelerator, make_price, make_run):
    cpu = make_accelerator("Tiny CPU", vendor="Intel")
    make_price(cpu, HOURLY_USD)
    before, after = 10119.0, 10083.0  # 0.36 % slower: $0.000549 -> $0.000551 per million
    _ingest(make_run, cpu, before, MARCH)
    _ingest(make_run, cpu, after, APRIL)
    # Rounded to 4 decimals these were $0.0005 and $0.0006, a +20 % "regression".
    assert [round(_exact_per_million(t), 4) for t in (before, after)] == [Decimal("0.0005"), Decimal("0.0006")]
    first, second = _no_sla_series(cpu)
    change = second.cost_per_million_usd / first.cost_per_million_usd - 1
    expected = _exact_per_million(after) / _exact_per_million(before) - 1
    assert abs(change - expected) < Decimal("1e-8")
    assert not CostAlarm.objects.exists()


def test_the_migration_refills_snapshots_stored_to_four_decimals(make_accelerator, make_price, make_run):
    from django.apps import apps

    refill = importlib.import_module("accounting.migrations.0004_cost_per_million_12_decimals").refill_costs
    cpu = make_accelerator("Tiny CPU", vendor="Intel")
    make_price(cpu, HOURLY_USD)
    _ingest(make_run, cpu, 10119.0, MARCH)
    CostSnapshot.objects.update(cost_per_million_usd=Decimal("0.0005"))  # as 4 decimals stored it

    refill(apps, None)

    (snapshot,) = _no_sla_series(cpu)
    assert abs(snapshot.cost_per_million_usd - _exact_per_million(10119.0)) < Decimal("1e-12")
