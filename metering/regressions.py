"""A metered period that costs more per million units than the deployment used to raises an alarm.

The rule is the cost alarms' own, called, not copied: a period's cost per million is compared with the median of the
deployment's previous N periods (accounting.history.alarms: `alarm_window`, `rise_over_trailing_median`,
ACCOUNTING_ALARM_WINDOW and ACCOUNTING_ALARM_THRESHOLD), and a rise whose figures' cost intervals overlap is within
the measurement's own uncertainty (accounting.history.noise.within_uncertainty, the ranking's tie rule). A benchmark
figure's interval comes from its rounds; the trailing figure's here comes from the earlier periods, the rounds of
the deployment's cost: their median with the same exact order-statistic interval (harness.stats.median_interval;
3 periods give min..max at 75 %). The new period is one measurement: its cost alone. So a period no dearer than
the dearest of a few earlier ones is noise; one earlier period gives no interval.

A period shorter than a week (a day, as the daily schedule meters) is compared only with the earlier periods of its
length at its time of the week: a Saturday with the Saturdays before it, not with the busier weekdays (traffic
follows the week; a quiet weekend day costs more per unit with nothing regressed). Until the deployment has metered
that time of the week once, such a period raises none, and says why.

The change is split into price, throughput (the benchmark's capacity) and utilization (the traffic served over that
capacity) by accounting.history.attribution, and the cause is named in words: the price row that changed, the
traffic that fell (and the utilization with it), the requests and the units per request behind that traffic.
"""

from dataclasses import dataclass
from datetime import timedelta
from decimal import Decimal

from django.db import IntegrityError, transaction
from django.utils import timezone

from accounting.history.alarms import alarm_threshold, alarm_window, rise_over_trailing_median, withdraw_if_open
from accounting.history.attribution import FACTORS, CostState, attribute
from accounting.history.noise import interval_text, within_uncertainty
from accounting.models import OPEN_ALARM
from accounting.pricing import costing
from accounting.pricing.money import usd_text
from accounting.rankings.cache import forget_data_version
from harness.stats import median_interval

from .models import MeteredAlarm, MeteredPeriod

CHANGE_QUANTUM = Decimal("0.000001")  # MeteredAlarm.change_fraction's 6 decimals
WEEK = timedelta(days=7)
# A period shorter than a week looks back this many weeks for each period of the alarm window: a day that was not
# metered (Prometheus down, the deployment paused) leaves a gap, and the window is filled from the weeks before it.
WEEKS_LOOKED_BACK_PER_PERIOD = 4


@dataclass(frozen=True)
class PeriodRegression:
    baseline: MeteredPeriod
    change: Decimal
    history_count: int
    window: int
    threshold: Decimal
    interval: dict | None  # the trailing median's: low, high (USD per 1M), confidence, method; None from one period


def by_time_of_week(period: MeteredPeriod) -> bool:
    """Whether the period is compared only with earlier periods at its time of the week: it is shorter than a week
    (a day, as the daily schedule meters). Production traffic follows the week, so a quiet Saturday costs more per
    unit than the busy weekdays before it with nothing regressed; a week or more holds every day of the week."""
    return period.end - period.start < WEEK


def earlier_periods(period: MeteredPeriod, window: int) -> list[MeteredPeriod]:
    """The deployment's last `window` periods of the same unit that ended by the time this one starts (a month
    metered over days already metered is not compared with its own days). A period shorter than a week
    (by_time_of_week): its last `window` periods of the same length that started whole weeks before it (a Saturday
    with the Saturdays before it), looking back WEEKS_LOOKED_BACK_PER_PERIOD weeks for each."""
    rows = MeteredPeriod.objects.filter(
        deployment=period.deployment, unit=period.unit, end__lte=period.start, cost_per_million_units_usd__isnull=False
    ).select_related("deployment", "price", "predicted")
    if not by_time_of_week(period):
        return list(rows.order_by("-end", "-pk")[:window])
    length = period.end - period.start
    starts = [period.start - weeks * WEEK for weeks in range(1, window * WEEKS_LOOKED_BACK_PER_PERIOD + 1)]
    same_time = rows.filter(start__in=starts).order_by("-start", "-pk")
    return [earlier for earlier in same_time if earlier.end - earlier.start == length][:window]


def period_regression_of(period: MeteredPeriod) -> PeriodRegression | str:
    """The regression the period shows under the alarm rules, or, in words, why it shows none."""
    if period.cost_per_million_units_usd is None:
        return "the period served nothing: it has no cost per million"
    window, threshold = alarm_window(), alarm_threshold()
    history = earlier_periods(period, window)
    if not history:
        if by_time_of_week(period):
            return (
                "the deployment has no earlier metered period of its length at its time of the week "
                f"({_weekday(period)}): a period shorter than a week is compared only with those, as traffic follows "
                "the week"
            )
        return "the deployment has no earlier metered period"
    rise = rise_over_trailing_median(period.cost_per_million_units_usd, _costs(history))
    if isinstance(rise, str):
        return rise
    median, change = rise
    baseline = next(p for p in history if p.cost_per_million_units_usd == median)
    interval = trailing_interval(history)
    bounds = (interval["low"], interval["high"]) if interval else None
    if within_uncertainty(median, bounds, period.cost_per_million_units_usd, None):
        return (
            f"{change:+.1%} against the trailing median, but within the range of the deployment's earlier periods "
            f"(before {interval_text(median, bounds)}, after {usd_text(period.cost_per_million_units_usd)}): "
            "the change is within the measurement's own uncertainty"
        )
    return PeriodRegression(baseline, change, len(history), window, threshold, interval)


def _costs(history: list[MeteredPeriod]) -> list[Decimal]:
    """The earlier periods' costs per million (earlier_periods keeps only periods that served something)."""
    return [p.cost_per_million_units_usd for p in history if p.cost_per_million_units_usd is not None]


def trailing_interval(history: list[MeteredPeriod]) -> dict | None:
    """The interval of the earlier periods' median cost per million (harness.stats.median_interval, each end one
    of their own figures); None with fewer than two periods, which give no interval."""
    costs = _costs(history)
    if len(costs) < 2:
        return None
    summary = median_interval([float(cost) for cost in costs])
    # The ends are order statistics, so each is one of the stored figures: read back as stored, not as floats.
    low = min(costs, key=lambda cost: abs(float(cost) - summary["low"]))
    high = min(costs, key=lambda cost: abs(float(cost) - summary["high"]))
    return {"low": low, "high": high, "confidence": summary["confidence"], "method": summary["method"]}


def _state(period: MeteredPeriod, capacity: Decimal | None) -> CostState:
    """The period's cost as hourly / (capacity x utilization): with the benchmark's capacity when both periods
    have one, else the traffic served stands as the throughput (utilization 1)."""
    served = period.served_per_accelerator_s
    hourly = period.usd_per_accelerator_hour
    if capacity is None:
        return CostState(price_usd_per_hour=hourly, power_usd_per_hour=Decimal(0), throughput_per_s=served)
    return CostState(hourly, Decimal(0), capacity, served / capacity)


def _capacity(period: MeteredPeriod) -> Decimal | None:
    snapshot = period.predicted
    if snapshot is None or snapshot.throughput_per_s <= 0:
        return None
    return Decimal(str(snapshot.throughput_per_s))


def _count(value: Decimal) -> str:
    return f"{value:,.0f}" if value == value.to_integral_value() else f"{value:,.2f}"


def _stored(value: Decimal) -> str:
    return f"{costing.rounded(value, CHANGE_QUANTUM):f}"


def cause_of(baseline: MeteredPeriod, period: MeteredPeriod) -> dict:
    """What changed between the two periods, in words: the price row, the traffic (and with it the utilization),
    the requests and the units per request."""
    unit = period.unit.replace("_", " ")
    parts = []
    cause: dict[str, object] = {
        "price_row": None,
        "traffic_change": None,
        "utilization": None,
        "units_per_request": None,
    }
    if baseline.price_id != period.price_id:
        cause["price_row"] = period.price_id
        parts.append(
            f"price row {period.price_id} replaced price row {baseline.price_id}: "
            f"{usd_text(baseline.usd_per_accelerator_hour)} -> {usd_text(period.usd_per_accelerator_hour)} per "
            "accelerator-hour"
        )
    elif baseline.usd_per_accelerator_hour != period.usd_per_accelerator_hour:
        parts.append(
            f"the hourly cost of price row {period.price_id} moved {usd_text(baseline.usd_per_accelerator_hour)} -> "
            f"{usd_text(period.usd_per_accelerator_hour)} per accelerator-hour (its on-prem assumptions)"
        )
    before, after = baseline.served_per_accelerator_s, period.served_per_accelerator_s
    if before != after:
        moved = after / before - 1
        cause["traffic_change"] = _stored(moved)
        sentence = (
            f"traffic {'fell' if moved < 0 else 'rose'} {moved:+.1%}: {before:,.2f} -> {after:,.2f} {unit} per "
            "accelerator-second"
        )
        if baseline.utilization is not None and period.utilization is not None:
            cause["utilization"] = [str(baseline.utilization), str(period.utilization)]
            direction = "fell" if period.utilization < baseline.utilization else "rose"
            sentence += (
                f", so utilization {direction} {baseline.utilization:.1%} -> {period.utilization:.1%} of the "
                "benchmark's capacity"
            )
        parts.append(sentence)
    if period.unit != "requests" and baseline.requests > 0 and period.requests > 0:
        per_before, per_after = baseline.units_served / baseline.requests, period.units_served / period.requests
        cause["units_per_request"] = [_stored(per_before), _stored(per_after)]
        requests_moved = period.requests / baseline.requests - 1
        requests_text = f"requests {_count(baseline.requests)} -> {_count(period.requests)} ({requests_moved:+.1%})"
        if per_before == per_after:
            parts.append(f"{requests_text} at an unchanged {_count(per_after)} {unit} per request")
        else:
            per_moved = per_after / per_before - 1
            parts.append(
                f"{unit} per request changed {_count(per_before)} -> {_count(per_after)} ({per_moved:+.1%}); "
                f"{requests_text}"
            )
    if baseline.predicted_id != period.predicted_id:
        parts.append(f"the benchmark's figure moved (snapshot {baseline.predicted_id} -> {period.predicted_id})")
    cause["sentence"] = "; ".join(parts) or "no input changed"
    return cause


def _weekday(period: MeteredPeriod) -> str:
    return f"{period.start:%A} {period.start:%H:%M} UTC"


def _compared_with(period: MeteredPeriod) -> str:
    return f" on {period.start:%A}s from {period.start:%H:%M} UTC" if by_time_of_week(period) else ""


def _period_text(period: MeteredPeriod) -> str:
    return f"{period.start:%Y-%m-%d}..{period.end:%Y-%m-%d}"


def check_period_regression(period: MeteredPeriod) -> MeteredAlarm | None:
    """Raise (once) an alarm when the period's cost per million is a regression; None when it is not."""
    regression = period_regression_of(period)
    if isinstance(regression, str):
        return None
    baseline = regression.baseline
    before_capacity, after_capacity = _capacity(baseline), _capacity(period)
    both = before_capacity is not None and after_capacity is not None
    explained = attribute(
        _state(baseline, before_capacity if both else None), _state(period, after_capacity if both else None)
    )
    cause = cause_of(baseline, period)
    per = f"per 1M {period.unit.replace('_', ' ')}"
    parts = ", ".join(
        f"{name} {usd_text(explained.parts_usd_per_million[name], signed=True)} {per} ({explained.shares[name]:.1%})"
        for name in FACTORS
        if explained.parts_usd_per_million[name]
    )
    interval = regression.interval
    bounds = (interval["low"], interval["high"]) if interval else None
    baseline_cost = _costs([baseline])[0]  # the baseline is one of the earlier periods with a cost
    explanation = (
        f"Deployment {period.deployment.name}: cost per 1M {period.unit.replace('_', ' ')} rose "
        f"{regression.change:.1%} to {usd_text(period.cost_per_million_units_usd)} {per} over {_period_text(period)} "
        f"against {interval_text(baseline_cost, bounds)} {per} over {_period_text(baseline)} "
        f"(the trailing median of {regression.history_count} period(s){_compared_with(period)}), "
        f"{period.deployment.accelerator_count} x "
        f"{period.deployment.accelerator}, {period.deployment.price_kind}. Change by cause: {parts}. "
        f"Cause: {cause['sentence']}."
    )
    try:
        with transaction.atomic():
            return MeteredAlarm.objects.create(
                period=period,
                baseline=baseline,
                window_size=regression.window,
                threshold_fraction=regression.threshold,
                change_fraction=costing.rounded(regression.change, CHANGE_QUANTUM),
                baseline_interval_low_usd=interval["low"] if interval else None,
                baseline_interval_high_usd=interval["high"] if interval else None,
                attribution=explained.as_dict()
                | {
                    "capacity": "benchmark" if both else "served",
                    "cause": cause,
                    "baseline_period": baseline.pk,
                    "baseline_interval": _interval_json(interval),
                },
                explanation=explanation,
            )
    except IntegrityError:
        return MeteredAlarm.objects.filter(period=period).first()


def _interval_json(interval: dict | None) -> dict | None:
    if interval is None:
        return None
    return {"low": str(interval["low"]), "high": str(interval["high"]), "confidence": round(interval["confidence"], 4),
            "method": interval["method"]}  # fmt: skip


def recheck_open_alarms(*, now=None) -> list[MeteredAlarm]:
    """Judge each open alarm's period again under the rules in force, and withdraw (never delete) those they no longer
    raise (a day raised against the busier weekdays before it, before days were compared with the same weekday).
    Returns the withdrawn alarms, their reasons in `withdrawn_reason`. Acknowledged alarms are left as a person saw
    them."""
    now = now or timezone.now()
    open_alarms = MeteredAlarm.objects.filter(OPEN_ALARM)
    withdrawn = []
    for alarm in open_alarms.select_related("period__deployment__accelerator").order_by("created_at", "pk"):
        regression = period_regression_of(alarm.period)
        if not isinstance(regression, str):
            continue
        if withdraw_if_open(alarm, now=now, reason=f"not a regression under the current rules: {regression}"):
            withdrawn.append(alarm)
    if withdrawn:
        forget_data_version()  # an update() sends no signal: the pages' open alarms change now
    return withdrawn
