"""Regression alarms: a snapshot above the trailing median of its series, with the change explained.

After each new snapshot, its cost per million is compared with the median of the previous N
snapshots of the same series (`statistics.median_low`, so the median is an actual snapshot, which is
then the baseline the change is attributed against). Above the threshold an alarm is raised.
N and the threshold are settings: ACCOUNTING_ALARM_WINDOW (default 5), ACCOUNTING_ALARM_THRESHOLD
(default 0.10, i.e. 10 %).
"""

import statistics
from decimal import Decimal

from django.conf import settings
from django.db import IntegrityError, transaction
from django.db.models import Q
from django.utils import timezone

from .attribution import FACTORS, CostState, attribute
from .models import CostAlarm, CostSnapshot


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


def _sentence(snapshot, baseline, change, explained, count) -> str:
    parts = ", ".join(
        f"{name} {explained.parts_usd_per_million[name]:+.4f} USD ({explained.shares[name]:.1%})" for name in FACTORS
    )
    return (
        f"Cost per million rose {change:.1%} to {snapshot.cost_per_million_usd} USD against the trailing median "
        f"{baseline.cost_per_million_usd} USD of {count} snapshot(s). Change by cause: {parts}."
    )


def check_regressions(snapshots: list[CostSnapshot]) -> list[CostAlarm]:
    alarms = [check_regression(snapshot) for snapshot in sorted(snapshots, key=lambda s: (s.effective_at, s.pk))]
    return [alarm for alarm in alarms if alarm is not None]


def acknowledge(alarm: CostAlarm, *, user) -> CostAlarm:
    """Mark an alarm seen; acknowledging twice keeps the first acknowledgement."""
    CostAlarm.objects.filter(pk=alarm.pk, acknowledged_at__isnull=True).update(
        acknowledged_at=timezone.now(), acknowledged_by=user
    )
    alarm.refresh_from_db()
    return alarm
