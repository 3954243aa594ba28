"""Regression alarms: a snapshot above the trailing median of its series, with the change explained.

After each new snapshot, its cost per million is compared with the median of the previous N
snapshots of the same series (`statistics.median_low`, so the median is an actual snapshot, which is
then the baseline the change is attributed against). Above the threshold an alarm is raised.
N and the threshold are settings: ACCOUNTING_ALARM_WINDOW (default 5), ACCOUNTING_ALARM_THRESHOLD
(default 0.10, i.e. 10 %).

No alarm is raised for a change within the measured noise of the figures involved (accounting.noise:
the spread of each point's rounds), and one change raises one alarm per (workload, accelerator, cost
basis): the SLA series of the same accelerator that move because of the same runs and price rows share it.
"""

import statistics
from decimal import Decimal

from django.conf import settings
from django.db import IntegrityError, transaction
from django.db.models import Q
from django.utils import timezone

from .attribution import FACTORS, CostState, attribute
from .models import CostAlarm, CostSnapshot
from .money import usd_text
from .noise import point_rounds, throughput_noise, within_noise


def alarm_window() -> int:
    return int(getattr(settings, "ACCOUNTING_ALARM_WINDOW", 5))


def alarm_threshold() -> Decimal:
    return Decimal(str(getattr(settings, "ACCOUNTING_ALARM_THRESHOLD", "0.10")))


def previous_snapshots(snapshot: CostSnapshot, window: int) -> list[CostSnapshot]:
    earlier = Q(effective_at__lt=snapshot.effective_at) | Q(effective_at=snapshot.effective_at, pk__lt=snapshot.pk)
    rows = CostSnapshot.objects.filter(earlier, series_key=snapshot.series_key).select_related("price")
    return list(rows.order_by("-effective_at", "-pk")[:window])


def check_regression(snapshot: CostSnapshot) -> CostAlarm | None:
    """Raise (once) an alarm if the snapshot exceeds the trailing median by more than the threshold."""
    window, threshold = alarm_window(), alarm_threshold()
    history = previous_snapshots(snapshot, window)
    if not history:
        return None
    median = statistics.median_low(s.cost_per_million_usd for s in history)
    if median <= 0:
        return None
    change = (snapshot.cost_per_million_usd - median) / median
    if change <= threshold:
        return None
    baseline = next(s for s in history if s.cost_per_million_usd == median)
    if _within_measured_noise(baseline, snapshot):
        return None
    if _alarm_for_the_same_change(baseline, snapshot) is not None:
        return None  # already raised on this accelerator's series under another SLA
    explained = attribute(CostState.of_snapshot(baseline), CostState.of_snapshot(snapshot))
    attribution = explained.as_dict() | {
        "baseline_run": str(baseline.run_id),
        "run": str(snapshot.run_id),
        "baseline_price": baseline.price_id,
        "price": snapshot.price_id,
    }
    try:
        with transaction.atomic():
            return CostAlarm.objects.create(
                snapshot=snapshot,
                baseline=baseline,
                window_size=window,
                threshold_fraction=threshold,
                change_fraction=change.quantize(Decimal("0.000001")),
                attribution=attribution,
                explanation=_sentence(snapshot, baseline, change, explained, len(history)),
            )
    except IntegrityError:
        return CostAlarm.objects.filter(snapshot=snapshot).first()


def _hourly_usd(snapshot):
    return (
        snapshot.capex_usd_per_hour + snapshot.opex_usd_per_hour + snapshot.cloud_usd_per_hour
        + snapshot.power_usd_per_hour
    )  # fmt: skip


def _within_measured_noise(baseline: CostSnapshot, snapshot: CostSnapshot) -> bool:
    noise = throughput_noise(
        point_rounds(baseline.run, baseline.point.index), point_rounds(snapshot.run, snapshot.point.index)
    )
    return within_noise(
        baseline_throughput_per_s=baseline.throughput_per_s,
        throughput_per_s=snapshot.throughput_per_s,
        baseline_usd_per_hour=_hourly_usd(baseline),
        usd_per_hour=_hourly_usd(snapshot),
        noise_fraction=noise,
    )


def _alarm_for_the_same_change(baseline: CostSnapshot, snapshot: CostSnapshot) -> CostAlarm | None:
    """An alarm already raised for this change on the same workload, accelerator and cost basis: for a price
    change, the same old and new price rows (whichever run or SLA series); otherwise the same runs too."""
    same = CostAlarm.objects.filter(
        snapshot__workload_name=snapshot.workload_name,
        snapshot__accelerator_id=snapshot.accelerator_id,
        snapshot__price_kind=snapshot.price_kind,
        snapshot__utilization=snapshot.utilization,
        snapshot__price_id=snapshot.price_id,
        baseline__price_id=baseline.price_id,
    )
    if baseline.price_id == snapshot.price_id:  # not a price change: the change is the runs'
        same = same.filter(snapshot__run_id=snapshot.run_id, baseline__run_id=baseline.run_id)
    return same.exclude(snapshot=snapshot).first()


def _sentence(snapshot, baseline, change, explained, count) -> str:
    """The alarm in words, with each cause's part in dollars at its own magnitude (the parts sum to the rise)."""
    per = f"per 1M {snapshot.unit.replace('_', ' ')}"
    parts = ", ".join(
        f"{name} {usd_text(explained.parts_usd_per_million[name], signed=True)} {per} ({explained.shares[name]:.1%})"
        for name in FACTORS
        if explained.parts_usd_per_million[name]
    )
    return (
        f"Cost per million rose {change:.1%} to {usd_text(explained.after_usd_per_million)} {per} against the "
        f"trailing median {usd_text(explained.before_usd_per_million)} of {count} snapshot(s), "
        f"under {snapshot.sla_label}, {snapshot.cost_basis}. Change by cause: {parts}."
    )


def check_regressions(snapshots: list[CostSnapshot]) -> list[CostAlarm]:
    # The no-SLA series first: one change raises one alarm, and it lands on the series the trends page
    # shows by default (best throughput, no SLA).
    order = sorted(snapshots, key=lambda s: (s.effective_at, s.sla_p99_ms is not None, s.pk))
    alarms = [check_regression(snapshot) for snapshot in order]
    return [alarm for alarm in alarms if alarm is not None]


def acknowledge(alarm: CostAlarm, *, user) -> CostAlarm:
    """Mark an alarm seen; acknowledging twice keeps the first acknowledgement."""
    CostAlarm.objects.filter(pk=alarm.pk, acknowledged_at__isnull=True).update(
        acknowledged_at=timezone.now(), acknowledged_by=user
    )
    alarm.refresh_from_db()
    return alarm
