"""Alarms a person can act on: none for a change within the measured noise, one per change."""

from datetime import UTC, datetime
from decimal import Decimal

import pytest

from accounting.history.noise import relative_spread, within_noise
from accounting.models import CostAlarm
from results.models import BenchmarkRun
from results.signals import run_ingested

pytestmark = pytest.mark.django_db

MARCH, APRIL, MAY = (datetime(2025, month, 1, tzinfo=UTC) for month in (3, 4, 5))


def _ingest(make_run, gpu, throughput, started_at, *, round_values=None, workload_name="resnet50"):
    run = make_run(
        gpu, [{"throughput_per_s": throughput, "latency_p99_ms": 5.0}], started_at=started_at,
        workload_name=workload_name,
    )  # fmt: skip
    if round_values is not None:  # the harness's points[].rounds: each round's figure, the best one reported
        run.payload = {"points": [{"rounds": {"count": len(round_values), "values": round_values}}]}
        BenchmarkRun.objects.filter(pk=run.pk).update(payload=run.payload)
    run_ingested.send(sender=BenchmarkRun, run=run)
    return run


def test_the_spread_of_a_points_rounds_is_its_relative_noise():
    assert relative_spread({"values": [900.0, 1000.0, 1100.0]}) == pytest.approx(0.2)
    assert relative_spread({"values": [1000.0]}) is None and relative_spread(None) is None


def test_a_throughput_change_is_noise_only_with_the_hourly_cost_unchanged():
    same = {"baseline_usd_per_hour": Decimal("2"), "usd_per_hour": Decimal("2")}
    assert within_noise(baseline_throughput_per_s=1000, throughput_per_s=850, noise_fraction=0.2, **same)
    assert not within_noise(baseline_throughput_per_s=1000, throughput_per_s=700, noise_fraction=0.2, **same)
    assert not within_noise(
        baseline_throughput_per_s=1000, throughput_per_s=1000, noise_fraction=0.2,
        baseline_usd_per_hour=Decimal("2"), usd_per_hour=Decimal("3"),
    )  # fmt: skip
    assert not within_noise(baseline_throughput_per_s=1000, throughput_per_s=999, noise_fraction=None, **same)


def test_two_runs_differing_by_less_than_their_measured_spread_raise_no_alarm(make_accelerator, make_price, make_run):
    gpu = make_accelerator("Kappa")
    make_price(gpu, "2.00")
    _ingest(make_run, gpu, 1000, MARCH, round_values=[1000.0, 820.0, 950.0])  # spread 18.9 %
    # 15 % slower: cost +17.6 %, above the 10 % threshold, but within the rounds' spread: noise.
    _ingest(make_run, gpu, 850, APRIL, round_values=[850.0, 990.0, 900.0])
    assert not CostAlarm.objects.exists()
    _ingest(make_run, gpu, 500, MAY, round_values=[500.0, 495.0, 505.0])  # 50 % slower: well outside the noise
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
