"""Alarms a person can act on: none for a change within the measurement's uncertainty, one per change."""

from datetime import UTC, datetime

import pytest

from accounting.models import CostAlarm
from results.models import BenchmarkRun
from results.signals import run_ingested

pytestmark = pytest.mark.django_db

MARCH, APRIL, MAY = (datetime(2025, month, 1, tzinfo=UTC) for month in (3, 4, 5))


def _ingest(make_run, gpu, throughput, started_at, *, interval=None, workload_name="resnet50"):
    point = {"throughput_per_s": throughput, "latency_p99_ms": 5.0}
    if interval is not None:  # the median of the point's rounds with its interval (harness.rounds)
        point |= {"throughput_low_per_s": interval[0], "throughput_high_per_s": interval[1]}
    run = make_run(gpu, [point], started_at=started_at, workload_name=workload_name)
    run_ingested.send(sender=BenchmarkRun, run=run)
    return run


def test_two_runs_differing_by_less_than_their_measured_intervals_raise_no_alarm(
    make_accelerator, make_price, make_run
):
    gpu = make_accelerator("Kappa")
    make_price(gpu, "2.00")
    _ingest(make_run, gpu, 1000, MARCH, interval=(900.0, 1100.0))
    # 15 % slower: cost 1000 / 850 - 1 = +17.6 %, above the 10 % threshold; but the throughput intervals share
    # 900-950/s, so the cost intervals overlap: within the measurement's uncertainty.
    _ingest(make_run, gpu, 850, APRIL, interval=(800.0, 950.0))
    assert not CostAlarm.objects.exists()
    _ingest(make_run, gpu, 500, MAY, interval=(495.0, 505.0))  # 50 % slower: 505 < 900, well outside both
    assert CostAlarm.objects.count() == 1


def test_a_price_change_raises_exactly_one_alarm_per_workload_accelerator_and_basis(
    make_accelerator, make_price, make_run
):
    gpus = [make_accelerator("Lambda"), make_accelerator("Mu")]
    for gpu in gpus:
        make_price(gpu, "2.00")
        _ingest(make_run, gpu, 1000, MARCH)  # snapshotted under three SLAs: 15 ms, 100 ms and none
    for gpu in gpus:
        make_price(gpu, "3.00", effective_from=APRIL)  # +50 % on every SLA's series
    alarms = CostAlarm.objects.select_related("snapshot")
    assert sorted(alarm.snapshot.accelerator_id for alarm in alarms) == sorted(gpu.pk for gpu in gpus)
    assert {(a.snapshot.workload_name, a.snapshot.price_kind) for a in alarms} == {("resnet50", "cloud_on_demand")}
