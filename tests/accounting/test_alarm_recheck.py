"""Alarms raised under older rules (costs rounded to four decimals, one alarm per SLA series) are judged again
under the rules in force and withdrawn, never deleted: manage.py recheck_alarms (accounting.history.alarms)."""

from datetime import UTC, datetime
from decimal import Decimal
from io import StringIO

import pytest
from django.core.management import call_command

from accounting.models import CostAlarm, CostSnapshot
from results.models import BenchmarkRun
from results.signals import run_ingested

pytestmark = pytest.mark.django_db

MARCH, APRIL = (datetime(2025, month, 1, tzinfo=UTC) for month in (3, 4))


def _ingest(make_run, gpu, throughput, started_at):
    run = make_run(gpu, [{"throughput_per_s": throughput, "latency_p99_ms": 5.0}], started_at=started_at)
    run_ingested.send(sender=BenchmarkRun, run=run)
    return run


def _snapshots(**where):
    return CostSnapshot.objects.filter(**where).order_by("effective_at", "sla_p99_ms", "pk")


def _old_rule_alarm(snapshot, baseline, change="0.200000"):
    """An alarm as an earlier release stored it, which the rules in force would not raise."""
    return CostAlarm.objects.create(
        snapshot=snapshot, baseline=baseline, window_size=5, threshold_fraction=Decimal("0.10"),
        change_fraction=Decimal(change), attribution={}, explanation="raised under older rules",
    )  # fmt: skip


def _recheck() -> str:
    out = StringIO()
    call_command("recheck_alarms", stdout=out)
    return out.getvalue()


def test_it_withdraws_alarms_the_rules_in_force_do_not_raise_and_keeps_the_real_one(
    api, make_accelerator, make_price, make_run
):
    steady, repriced = make_accelerator("Nu"), make_accelerator("Xi")
    for gpu in (steady, repriced):
        make_price(gpu, "2.00")
    first = _ingest(make_run, steady, 1000, MARCH)
    second = _ingest(make_run, steady, 960, APRIL)  # 4 % slower: cost +4.2 %, under the 10 % threshold
    _ingest(make_run, repriced, 1000, MARCH)
    make_price(repriced, "3.00", effective_from=APRIL)  # +50 %: one real alarm for the change
    real = CostAlarm.objects.get()

    # What older releases had left: an alarm for the small rise, and the price change once more per SLA series.
    small = _old_rule_alarm(
        _snapshots(run=second, sla_p99_ms__isnull=True).first(), _snapshots(run=first, sla_p99_ms__isnull=True).first()
    )
    repriced_series = _snapshots(accelerator=repriced, effective_at=APRIL).exclude(pk=real.snapshot_id)
    duplicates = [_old_rule_alarm(snapshot, real.baseline, "0.500000") for snapshot in repriced_series]
    assert duplicates  # the repriced run was snapshotted under more than one SLA

    printed = _recheck()

    withdrawn = {alarm.pk: alarm for alarm in CostAlarm.objects.filter(withdrawn_at__isnull=False)}
    assert set(withdrawn) == {small.pk, *(alarm.pk for alarm in duplicates)}
    assert "+4.2% against the trailing median is within the 10% threshold" in withdrawn[small.pk].withdrawn_reason
    for alarm in duplicates:
        assert f"the same change as alarm {real.pk}" in withdrawn[alarm.pk].withdrawn_reason
    assert CostAlarm.objects.count() == 2 + len(duplicates)  # withdrawn, not deleted
    assert f"{len(withdrawn)} alarm(s) withdrawn" in printed
    assert "0 alarm(s) withdrawn" in _recheck()  # idempotent

    open_ids = [row["id"] for row in api.get("/api/v1/alarms/?acknowledged=false").data["results"]]
    assert open_ids == [real.pk]
    listed = api.get("/api/v1/alarms/?withdrawn=true").data["results"]
    assert {row["id"] for row in listed} == set(withdrawn)
    assert all(row["withdrawn_reason"] and row["withdrawn_at"] for row in listed)


def test_it_leaves_acknowledged_alarms_as_a_person_saw_them(make_accelerator, make_price, make_run, staff):
    gpu = make_accelerator("Omicron")
    make_price(gpu, "2.00")
    first = _ingest(make_run, gpu, 1000, MARCH)
    second = _ingest(make_run, gpu, 990, APRIL)
    alarm = _old_rule_alarm(
        _snapshots(run=second, sla_p99_ms__isnull=True).first(), _snapshots(run=first, sla_p99_ms__isnull=True).first()
    )
    CostAlarm.objects.filter(pk=alarm.pk).update(acknowledged_at=APRIL, acknowledged_by=staff)

    assert "0 alarm(s) withdrawn" in _recheck()
    assert CostAlarm.objects.get(pk=alarm.pk).withdrawn_at is None
