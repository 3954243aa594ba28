"""Alarms compare intervals: a rise whose before and after cost intervals overlap is within the measurement's own
uncertainty and raises no alarm; an alarm, when raised, states both intervals.

Every accelerator here costs 36.00 USD per hour (cloud on-demand, one accelerator an instance), so a figure's cost
per 1M samples is 36 / (T x 3600) x 1e6 = 10 000 / T at T samples/s, and a point measured at 10 000 / c samples/s
costs c: the throughputs below are written as 10 000 / cost so that each cost and each interval end reads as the
brief's worked example (the high end of the throughput interval gives the low end of the cost interval).
"""

from datetime import UTC, datetime
from decimal import Decimal

import pytest

from accounting.history.alarms import recheck_open_alarms, regression_of
from accounting.history.noise import interval_text, within_uncertainty
from accounting.models import CostAlarm, CostSnapshot
from results.models import BenchmarkRun
from results.signals import run_ingested

pytestmark = pytest.mark.django_db

MARCH, APRIL = datetime(2025, 3, 1, tzinfo=UTC), datetime(2025, 4, 1, tzinfo=UTC)
CENT = Decimal("0.01")


def _measured(make_run, gpu, cost, low, high, started_at):
    """A run measured at cost `cost` [low, high] USD per 1M samples (10 000 / T at 36.00 USD/h), ingested."""
    point = {"throughput_per_s": 10_000 / cost, "throughput_low_per_s": 10_000 / high,
             "throughput_high_per_s": 10_000 / low, "latency_p99_ms": 5.0}  # fmt: skip
    run = make_run(gpu, [point], started_at=started_at)
    run_ingested.send(sender=BenchmarkRun, run=run)
    return run


def _snapshot(run) -> CostSnapshot:
    return CostSnapshot.objects.get(run=run, sla_p99_ms__isnull=True)  # the no-SLA series carries the alarm


def _in_cents(interval):
    return tuple(end.quantize(CENT) for end in interval)


@pytest.fixture
def gpu(make_accelerator, make_price):
    def make(name):
        accelerator = make_accelerator(name)
        make_price(accelerator, "36.00")
        return accelerator

    return make


def test_two_intervals_overlap_when_they_share_a_cost_and_a_figure_without_one_is_its_cost_alone():
    before, before_interval = Decimal("10.00"), (Decimal("9.50"), Decimal("10.60"))
    # After 10.80 [10.40, 11.30]: both hold 10.40-10.60.
    assert within_uncertainty(before, before_interval, Decimal("10.80"), (Decimal("10.40"), Decimal("11.30")))
    # After 12.00 [11.70, 12.40]: 11.70 > 10.60, nothing in common.
    assert not within_uncertainty(before, before_interval, Decimal("12.00"), (Decimal("11.70"), Decimal("12.40")))
    # Order does not matter: a fall from 10.80 [10.40, 11.30] to 10.00 [9.50, 10.60] overlaps too.
    assert within_uncertainty(Decimal("10.80"), (Decimal("10.40"), Decimal("11.30")), before, before_interval)
    # A published 10.50 (no interval) lies within [9.50, 10.60]; a published 10.70 does not.
    assert within_uncertainty(before, before_interval, Decimal("10.50"), None)
    assert not within_uncertainty(before, before_interval, Decimal("10.70"), None)
    assert not within_uncertainty(Decimal("10.00"), None, Decimal("10.80"), None)
    assert interval_text(before, before_interval) == "$10.00 [$9.50, $10.60]"
    assert interval_text(Decimal("10.70"), None) == "$10.70 (no interval)"


def test_each_snapshot_keeps_the_cost_interval_of_its_point(gpu, make_run):
    run = _measured(make_run, gpu("Nu"), Decimal("10.00"), Decimal("9.50"), Decimal("10.60"), MARCH)
    snapshot = _snapshot(run)
    # 10 000 / 1000 = 10.00; at the high throughput 10 000 / 9.50: 9.50; at the low 10 000 / 10.60: 10.60.
    assert snapshot.cost_per_million_usd.quantize(CENT) == Decimal("10.00")
    assert _in_cents(snapshot.cost_interval_usd) == (Decimal("9.50"), Decimal("10.60"))


def test_a_point_without_an_interval_gives_a_snapshot_without_one(gpu, make_run):
    run = make_run(gpu("Xi"), [{"throughput_per_s": 1000.0, "latency_p99_ms": 5.0}], started_at=MARCH)
    run_ingested.send(sender=BenchmarkRun, run=run)
    snapshot = _snapshot(run)
    assert (snapshot.cost_per_million_low_usd, snapshot.cost_per_million_high_usd) == (None, None)
    assert snapshot.cost_interval_usd is None


def test_a_rise_whose_intervals_overlap_raises_no_alarm_even_above_the_threshold(gpu, make_run, settings):
    settings.ACCOUNTING_ALARM_THRESHOLD = "0.05"
    accelerator = gpu("Omicron")
    _measured(make_run, accelerator, Decimal("10.00"), Decimal("9.50"), Decimal("10.60"), MARCH)
    after = _measured(make_run, accelerator, Decimal("10.80"), Decimal("10.40"), Decimal("11.30"), APRIL)
    # 10.80 / 10.00 - 1 = +8.0 %, above a 5 % threshold; the intervals share 10.40-10.60: within the uncertainty.
    assert not CostAlarm.objects.exists()
    assert regression_of(_snapshot(after)) == (
        "+8.0% against the trailing median, but the cost intervals overlap (before $10.00 [$9.50, $10.60], after "
        "$10.80 [$10.40, $11.30] per 1M samples): the change is within the measurement's own uncertainty"
    )


def test_at_the_default_threshold_a_rise_beyond_it_but_within_the_intervals_raises_no_alarm(gpu, make_run):
    accelerator = gpu("Pi")
    _measured(make_run, accelerator, Decimal("10.00"), Decimal("9.50"), Decimal("10.60"), MARCH)
    # 11.20 / 10.00 - 1 = +12 %, above 10 %; but [10.50, 11.90] and [9.50, 10.60] share 10.50-10.60.
    _measured(make_run, accelerator, Decimal("11.20"), Decimal("10.50"), Decimal("11.90"), APRIL)
    assert not CostAlarm.objects.exists()


def test_a_rise_beyond_both_the_threshold_and_the_intervals_raises_an_alarm_naming_both(gpu, make_run, api):
    accelerator = gpu("Rho")
    before = _measured(make_run, accelerator, Decimal("10.00"), Decimal("9.50"), Decimal("10.60"), MARCH)
    after = _measured(make_run, accelerator, Decimal("12.00"), Decimal("11.70"), Decimal("12.40"), APRIL)
    # 12.00 / 10.00 - 1 = +20 % > 10 %, and 11.70 > 10.60: the intervals are apart.
    alarm = CostAlarm.objects.get()
    assert (alarm.baseline, alarm.snapshot) == (_snapshot(before), _snapshot(after))
    assert alarm.change_fraction == Decimal("0.200000")
    assert (
        "Cost intervals: before $10.00 [$9.50, $10.60], after $12.00 [$11.70, $12.40] per 1M samples: they do "
        "not overlap." in alarm.explanation
    )
    assert [Decimal(end).quantize(CENT) for end in alarm.attribution["baseline_cost_interval_usd_per_million"]] == [
        Decimal("9.50"), Decimal("10.60"),
    ]  # fmt: skip
    assert [Decimal(end).quantize(CENT) for end in alarm.attribution["cost_interval_usd_per_million"]] == [
        Decimal("11.70"), Decimal("12.40"),
    ]  # fmt: skip
    (shown,) = api.get("/api/v1/alarms/").data["results"]
    assert [Decimal(end).quantize(CENT) for end in shown["baseline_cost_interval_usd"]] == [
        Decimal("9.50"), Decimal("10.60"),
    ]  # fmt: skip
    assert [Decimal(end).quantize(CENT) for end in shown["cost_interval_usd"]] == [Decimal("11.70"), Decimal("12.40")]


def test_a_price_rise_on_the_same_point_is_exact_and_alarms_though_its_intervals_overlap(gpu, make_run, make_price):
    accelerator = gpu("Sigma")
    _measured(make_run, accelerator, Decimal("10.00"), Decimal("9.00"), Decimal("11.00"), MARCH)
    make_price(accelerator, "41.40", effective_from=APRIL)
    # 41.40 / 36.00 = 1.15: the same point now costs 11.50 [10.35, 12.65], which overlaps [9.00, 11.00]; but it is
    # the same measurement, so the +15 % is the price's alone, exact: an alarm above the 10 % threshold.
    alarm = CostAlarm.objects.get()
    assert alarm.snapshot.point_id == alarm.baseline.point_id
    assert _in_cents(alarm.snapshot.cost_interval_usd) == (Decimal("10.35"), Decimal("12.65"))
    assert "after $11.50 [$10.35, $12.65] per 1M samples (the same measured point: the change is exact)." in (
        alarm.explanation
    )


def test_recheck_withdraws_an_alarm_raised_before_its_snapshots_had_the_intervals_that_overlap(gpu, make_run):
    accelerator = gpu("Tau")
    before = _measured(make_run, accelerator, Decimal("10.00"), Decimal("10.00"), Decimal("10.00"), MARCH)
    after = _measured(make_run, accelerator, Decimal("12.00"), Decimal("12.00"), Decimal("12.00"), APRIL)
    alarm = CostAlarm.objects.get()  # +20 %, and [10.00, 10.00] and [12.00, 12.00] are apart
    # The intervals their points were measured with, as migration 0007 would give snapshots stored without them:
    # [9.50, 10.60] and [10.50, 13.00] share 10.50-10.60.
    CostSnapshot.objects.filter(run=before).update(
        cost_per_million_low_usd=Decimal("9.50"), cost_per_million_high_usd=Decimal("10.60")
    )
    CostSnapshot.objects.filter(run=after).update(
        cost_per_million_low_usd=Decimal("10.50"), cost_per_million_high_usd=Decimal("13.00")
    )
    assert recheck_open_alarms() == [alarm]
    alarm.refresh_from_db()
    assert alarm.withdrawn_reason == (
        "not a regression under the current rules: +20.0% against the trailing median, but the cost intervals overlap "
        "(before $10.00 [$9.50, $10.60], after $12.00 [$10.50, $13.00] per 1M samples): the change is within the "
        "measurement's own uncertainty"
    )
