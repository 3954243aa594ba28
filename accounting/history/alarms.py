"""Regression alarms: a snapshot above the trailing median of its series, with the change explained.

After each new snapshot, its cost per million is compared with the median of the previous N
snapshots of the same series (`statistics.median_low`, so the median is an actual snapshot, which is
then the baseline the change is attributed against). Above the threshold an alarm is raised.
N and the threshold are settings: ACCOUNTING_ALARM_WINDOW (default 5), ACCOUNTING_ALARM_THRESHOLD
(default 0.10, i.e. 10 %).

A rise above the threshold is a regression only where the measurement tells the two figures apart: when the
baseline and the snapshot come from different measured points, their cost intervals (accounting.history.noise:
each point's interval over its rounds, the ranking's tie rule) must not overlap. The threshold says how large a
change matters; the intervals say whether the change was measured at all; an alarm needs both, and states both
intervals. Where both figures come from the same point (a new price row, a new assumption set), the throughput
is the same measurement and the change is exact: the intervals are not compared. One change raises one alarm
per (workload, accelerator, cost basis): the SLA series of the same accelerator that move because of the same
runs and price rows share it.
A series is one system's (snapshots.series_key), so the baseline is always the same system's figure. Each alarm
names its cause: the price row that took effect, or the run that replaced the baseline's. A price row that
raises an offering above another offering of the same accelerator and kind changes which offering is cheapest:
that is reported as a switch, and alarms only if the accelerator's cheapest price itself rose beyond the
threshold. Hourly costs are read as stored (the snapshot's total), never re-added from rounded parts.
"""

import logging
import statistics
from dataclasses import dataclass
from datetime import timedelta
from decimal import Decimal

from django.conf import settings
from django.db import IntegrityError, transaction
from django.db.models import Q
from django.utils import timezone

from accounting.history.attribution import FACTORS, CostState, attribute
from accounting.history.noise import interval_text, within_uncertainty
from accounting.models import OPEN_ALARM, CostAlarm, CostSnapshot
from accounting.pricing.costing import rounded
from accounting.pricing.money import usd_text
from accounting.rankings.cache import forget_data_version
from hardware_catalog.selectors import cheapest_price_in_force

logger = logging.getLogger(__name__)

CHANGE_QUANTUM = Decimal("0.000001")  # CostAlarm.change_fraction: six decimals, rounded half-up like money


def alarm_window() -> int:
    return int(getattr(settings, "ACCOUNTING_ALARM_WINDOW", 5))


def alarm_threshold() -> Decimal:
    return Decimal(str(getattr(settings, "ACCOUNTING_ALARM_THRESHOLD", "0.10")))


def previous_snapshots(snapshot: CostSnapshot, window: int) -> list[CostSnapshot]:
    earlier = Q(effective_at__lt=snapshot.effective_at) | Q(effective_at=snapshot.effective_at, pk__lt=snapshot.pk)
    rows = CostSnapshot.objects.filter(earlier, series_key=snapshot.series_key).select_related("price")
    return list(rows.order_by("-effective_at", "-pk")[:window])


def rise_over_trailing_median(cost: Decimal, history: list[Decimal]) -> tuple[Decimal, Decimal] | str:
    """The threshold rule every cost alarm is judged by (benchmark snapshots and metered production periods):
    (the trailing median, the cost's change against it) when the change exceeds the threshold, else why not.

    The median is `median_low`, so it is one of the history's own figures: the baseline the change is explained
    against."""
    threshold = alarm_threshold()
    median = statistics.median_low(history)
    if median <= 0:
        return "the trailing median is not a positive cost"
    change = (cost - median) / median
    if change <= threshold:
        return f"{change:+.1%} against the trailing median is within the {threshold:.0%} threshold"
    return median, change


@dataclass(frozen=True)
class Regression:
    """A rise the rules call a regression: the snapshot against the median snapshot of its history."""

    baseline: CostSnapshot
    change: Decimal
    history_count: int
    window: int
    threshold: Decimal
    switch: str = ""  # the change of cheapest offering that came with it, in words; "" when none


def regression_of(snapshot: CostSnapshot) -> Regression | str:
    """The regression the snapshot shows under the current rules, or, in words, why it shows none."""
    window, threshold = alarm_window(), alarm_threshold()
    history = previous_snapshots(snapshot, window)
    if not history:
        return "its series has no earlier snapshot"
    rise = rise_over_trailing_median(snapshot.cost_per_million_usd, [s.cost_per_million_usd for s in history])
    if isinstance(rise, str):
        return rise
    median, change = rise
    baseline = next(s for s in history if s.cost_per_million_usd == median)
    if baseline.point_id != snapshot.point_id and within_uncertainty(
        baseline.cost_per_million_usd, baseline.cost_interval_usd,
        snapshot.cost_per_million_usd, snapshot.cost_interval_usd,
    ):  # fmt: skip
        return (
            f"{change:+.1%} against the trailing median, but the cost intervals overlap "
            f"({intervals_text(baseline, snapshot)}): the change is within the measurement's own uncertainty"
        )
    switch = cheapest_offering_switch(baseline, snapshot)
    if switch is not None:
        sentence, best_change = switch
        if best_change <= threshold:
            return f"{sentence}: a switch of cheapest offering, not a regression of the accelerator"
        return Regression(baseline, change, len(history), window, threshold, sentence)
    return Regression(baseline, change, len(history), window, threshold)


def cheapest_offering_switch(baseline: CostSnapshot, snapshot: CostSnapshot) -> tuple[str, Decimal] | None:
    """When the snapshot's new price row leaves its offering no longer the accelerator's cheapest of its kind:
    (the switch in words, the change of the accelerator's cheapest price per accelerator); else None."""
    if baseline.price_id == snapshot.price_id:
        return None
    accelerator, kind, at = snapshot.accelerator, snapshot.price_kind, snapshot.price.effective_from
    cheapest = cheapest_price_in_force(accelerator, kind=kind, at=at)
    if cheapest is None or cheapest.usd_per_accelerator >= snapshot.price.usd_per_accelerator:
        return None
    before = cheapest_price_in_force(accelerator, kind=kind, at=at - timedelta(microseconds=1))
    if before is None:
        return None
    moved = cheapest.usd_per_accelerator / before.usd_per_accelerator - 1
    sentence = (
        f"{_price_text(snapshot.price)} is no longer the cheapest {kind} offering of {accelerator}: "
        f"{_price_text(cheapest)} is, so the accelerator's cheapest price moved {moved:+.1%} "
        f"({usd_text(before.usd_per_accelerator)} -> {usd_text(cheapest.usd_per_accelerator)} per accelerator)"
    )
    return sentence, moved


def _price_text(price) -> str:
    offering = " ".join(part for part in (price.provider, price.instance_type, price.region) if part)
    return f"price row {price.pk} ({offering}, {usd_text(price.usd_per_accelerator)} per accelerator)"


def cause_of(baseline: CostSnapshot, snapshot: CostSnapshot) -> dict:
    """What changed between the baseline and the snapshot of one series: the price row, the run, or both."""
    parts, cause = [], {"price_row": None, "run": None}
    if baseline.price_id != snapshot.price_id:
        cause["price_row"] = snapshot.price_id
        new, old = snapshot.price, baseline.price
        parts.append(
            f"price row {new.pk} ({new.provider} {new.instance_type}, {new.kind}) took effect "
            f"{new.effective_from:%Y-%m-%d}: {usd_text(old.usd_per_accelerator)} -> "
            f"{usd_text(new.usd_per_accelerator)} per accelerator-hour (was price row {old.pk})"
        )
    if baseline.run_id != snapshot.run_id:
        cause["run"] = str(snapshot.run_id)
        parts.append(f"run {snapshot.run_id} replaced run {baseline.run_id} on the same system")
    cause["sentence"] = "; ".join(parts) or "no input changed"
    return cause


def check_regression(snapshot: CostSnapshot) -> CostAlarm | None:
    """Raise (once) an alarm if the snapshot exceeds the trailing median by more than the threshold."""
    regression = regression_of(snapshot)
    if isinstance(regression, str):
        if "switch of cheapest offering" in regression:
            logger.info("no alarm on snapshot %s: %s", snapshot.pk, regression)
        return None
    baseline = regression.baseline
    if _alarms_for_the_same_change(baseline, snapshot).exists():
        return None  # already raised on this accelerator's series under another SLA
    explained = attribute(CostState.of_snapshot(baseline), CostState.of_snapshot(snapshot))
    cause = cause_of(baseline, snapshot)
    attribution = explained.as_dict() | {
        "baseline_run": str(baseline.run_id),
        "run": str(snapshot.run_id),
        "baseline_price": baseline.price_id,
        "price": snapshot.price_id,
        "cause": cause,
        "cheapest_offering_switch": regression.switch,
        # Each figure's (low, high) cost per million over its point's rounds; null where it has none.
        "baseline_cost_interval_usd_per_million": _interval_dict(baseline),
        "cost_interval_usd_per_million": _interval_dict(snapshot),
    }
    explanation = _sentence(snapshot, baseline, regression.change, explained, regression.history_count)
    explanation += f" Cost intervals: {intervals_text(baseline, snapshot)}{_interval_verdict(baseline, snapshot)}."
    explanation += f" Cause: {cause['sentence']}."
    if regression.switch:
        explanation += f" {regression.switch}."
    try:
        with transaction.atomic():
            return CostAlarm.objects.create(
                snapshot=snapshot,
                baseline=baseline,
                window_size=regression.window,
                threshold_fraction=regression.threshold,
                change_fraction=rounded(regression.change, CHANGE_QUANTUM),
                attribution=attribution,
                explanation=explanation,
            )
    except IntegrityError:
        return CostAlarm.objects.filter(snapshot=snapshot).first()


def intervals_text(baseline: CostSnapshot, snapshot: CostSnapshot) -> str:
    """Both figures with their cost intervals, in words: "before $10.00 [$9.50, $10.60], after $12.00 [...] per 1M
    inferences"."""
    return (
        f"before {interval_text(baseline.cost_per_million_usd, baseline.cost_interval_usd)}, "
        f"after {interval_text(snapshot.cost_per_million_usd, snapshot.cost_interval_usd)} "
        f"per 1M {snapshot.unit.replace('_', ' ')}"
    )


def _interval_dict(snapshot: CostSnapshot) -> list[str] | None:
    interval = snapshot.cost_interval_usd
    return [str(end) for end in interval] if interval else None


def _interval_verdict(baseline: CostSnapshot, snapshot: CostSnapshot) -> str:
    if baseline.point_id == snapshot.point_id:
        return " (the same measured point: the change is exact)"
    if baseline.cost_interval_usd is None and snapshot.cost_interval_usd is None:
        return " (neither figure was measured with an interval: the threshold alone decides)"
    return ": they do not overlap"


def _alarm_for_the_same_change(baseline: CostSnapshot, snapshot: CostSnapshot) -> CostAlarm | None:
    """The first alarm in force (in judging order) raised for this change by another snapshot."""
    others = _alarms_for_the_same_change(baseline, snapshot).select_related("snapshot")
    return min(others, key=lambda alarm: _one_per_change_order(alarm.snapshot), default=None)


def _alarms_for_the_same_change(baseline: CostSnapshot, snapshot: CostSnapshot):
    """Alarms in force for this change on the same workload, accelerator and cost basis, but the snapshot's own:
    for a price change, the same old and new price rows (whichever run or SLA series); otherwise the same runs
    too."""
    same = CostAlarm.objects.filter(
        withdrawn_at__isnull=True,
        snapshot__workload_name=snapshot.workload_name,
        snapshot__accelerator_id=snapshot.accelerator_id,
        snapshot__price_kind=snapshot.price_kind,
        snapshot__utilization=snapshot.utilization,
        snapshot__price_id=snapshot.price_id,
        baseline__price_id=baseline.price_id,
    )
    if baseline.price_id == snapshot.price_id:  # not a price change: the change is the runs'
        same = same.filter(snapshot__run_id=snapshot.run_id, baseline__run_id=baseline.run_id)
    return same.exclude(snapshot=snapshot)


def _one_per_change_order(snapshot: CostSnapshot):
    """The order in which snapshots are judged: by time, and the no-SLA series first, so that one change's one
    alarm lands on the series the trends page shows by default (best throughput, no SLA)."""
    return (snapshot.effective_at, snapshot.sla_p99_ms is not None, snapshot.pk)


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
    order = sorted(snapshots, key=_one_per_change_order)
    alarms = [check_regression(snapshot) for snapshot in order]
    return [alarm for alarm in alarms if alarm is not None]


def recheck_open_alarms(*, now=None) -> list[CostAlarm]:
    """Judge each open alarm again under the rules in force, and withdraw (never delete) those they no longer
    raise: a rise within the threshold or within the measurement's uncertainty (alarms raised when costs were
    rounded to four decimals, or before snapshots kept their cost intervals), or a second alarm for one change.
    Returns the withdrawn alarms, their reasons in `withdrawn_reason`. Acknowledged alarms are left as a person
    saw them."""
    now = now or timezone.now()
    open_alarms = CostAlarm.objects.filter(OPEN_ALARM)
    alarms = sorted(open_alarms.select_related("snapshot"), key=lambda a: _one_per_change_order(a.snapshot))
    withdrawn = []
    for alarm in alarms:
        regression = regression_of(alarm.snapshot)
        if isinstance(regression, str):
            reason = f"not a regression under the current rules: {regression}"
        else:
            earlier = _alarm_for_the_same_change(regression.baseline, alarm.snapshot)
            if earlier is None or _one_per_change_order(earlier.snapshot) > _one_per_change_order(alarm.snapshot):
                continue
            reason = f"the same change as alarm {earlier.pk}: one change raises one alarm per cost basis"
        if withdraw_if_open(alarm, now=now, reason=reason):
            withdrawn.append(alarm)
    if withdrawn:
        forget_data_version()  # an update() sends no signal: the pages' open alarms change now
    return withdrawn


def withdraw_if_open(alarm, *, now, reason: str) -> bool:
    """Withdraw the alarm (a CostAlarm, or a metered deployment's) with the reason, unless a person acknowledged it
    or it was withdrawn meanwhile: one UPDATE, so a concurrent acknowledgement wins. Whether it was withdrawn."""
    still_open = type(alarm).objects.filter(OPEN_ALARM, pk=alarm.pk)
    if not still_open.update(withdrawn_at=now, withdrawn_reason=reason):
        return False
    alarm.withdrawn_at, alarm.withdrawn_reason = now, reason
    return True


def acknowledge(alarm, *, user):
    """Mark an alarm (a CostAlarm, or a metered deployment's) seen; acknowledging twice keeps the first
    acknowledgement."""
    unseen = type(alarm).objects.filter(pk=alarm.pk, acknowledged_at__isnull=True)
    if unseen.update(acknowledged_at=timezone.now(), acknowledged_by=user):
        forget_data_version()  # an update() sends no signal: the pages' open alarms change now
    alarm.refresh_from_db()
    return alarm
