"""Reads: a deployment's metered cost month by month, with the benchmark's prediction beside it; the open alarms."""

from dataclasses import dataclass, field
from datetime import datetime
from decimal import Decimal

from django.db.models import Count, Max

from accounting.models import OPEN_ALARM
from accounting.pricing import costing

from .models import Deployment, MeteredAlarm, MeteredPeriod

MILLION = Decimal(1_000_000)
HOURS_QUANTUM = Decimal("0.000001")


@dataclass
class MonthOfMetering:
    """One calendar month (UTC) of a deployment: the periods that started in it, added up.

    The month's cost per million is its cost over its units (never a mean of the periods' figures), and its
    predicted cost what the benchmark figure of each period would have cost for the units that period served,
    over the same units: both are the cost of the same work."""

    month: str  # YYYY-MM
    unit: str
    periods: list[MeteredPeriod] = field(default_factory=list)
    overlapping: list[MeteredPeriod] = field(default_factory=list)  # left out: they repeat hours already counted

    @property
    def cost_usd(self) -> Decimal:
        return sum((p.cost_usd for p in self.periods), Decimal(0))

    @property
    def units_served(self) -> Decimal:
        return sum((p.units_served for p in self.periods), Decimal(0))

    @property
    def hours_metered(self) -> Decimal:
        seconds = sum((Decimal(str(p.period_s)) for p in self.periods), Decimal(0))
        return costing.rounded(seconds / costing.SECONDS_PER_HOUR, HOURS_QUANTUM)

    @property
    def cost_per_million_units_usd(self) -> Decimal | None:
        units = self.units_served
        return costing.per_million_rounded(self.cost_usd / units * MILLION) if units > 0 else None

    @property
    def predicted(self) -> list[MeteredPeriod]:
        return [p for p in self.periods if p.predicted_cost_per_million_units_usd is not None and p.units_served > 0]

    @property
    def predicted_cost_per_million_units_usd(self) -> Decimal | None:
        """The prediction for the units of the periods that have one; None when none has."""
        predicted = self.predicted
        units = sum((p.units_served for p in predicted), Decimal(0))
        if not units:
            return None
        cost = sum(
            (
                p.predicted_cost_per_million_units_usd * p.units_served
                for p in predicted
                if p.predicted_cost_per_million_units_usd is not None
            ),
            Decimal(0),
        )
        return costing.per_million_rounded(cost / units)

    @property
    def alarms(self) -> list[MeteredAlarm]:
        """The alarms of its periods, but those withdrawn (the rules in force no longer raise them)."""
        alarms = [alarm for p in self.periods if (alarm := getattr(p, "alarm", None)) is not None]
        return [alarm for alarm in alarms if alarm.withdrawn_at is None]

    @property
    def period_ids(self) -> list[int]:
        return [p.pk for p in self.periods]

    @property
    def overlapping_ids(self) -> list[int]:
        return [p.pk for p in self.overlapping]

    @property
    def alarm_ids(self) -> list[int]:
        return [alarm.pk for alarm in self.alarms]


def _month(at: datetime) -> str:
    return f"{at:%Y-%m}"


def monthly_trend(deployment: Deployment) -> list[MonthOfMetering]:
    """The deployment's metered months, oldest first. A period counts in the month it starts (UTC); a period that
    overlaps one already counted (a month metered over its days) is listed under `overlapping`, not added twice."""
    periods = (
        MeteredPeriod.objects.filter(deployment=deployment)
        .select_related("deployment", "alarm")
        .order_by("start", "-end", "pk")
    )
    months: dict[tuple[str, str], MonthOfMetering] = {}
    counted_until = None
    for period in periods:
        month = months.setdefault(
            (_month(period.start), period.unit), MonthOfMetering(_month(period.start), period.unit)
        )
        if counted_until is not None and period.start < counted_until:
            month.overlapping.append(period)
            continue
        month.periods.append(period)
        counted_until = period.end
    return sorted(months.values(), key=lambda m: (m.month, m.unit))


def open_alarms(limit: int = 10) -> tuple[list[MeteredAlarm], int]:
    """The newest `limit` alarms of metered deployments nobody has acknowledged and the rules still raise, with what
    their rows show; and how many are open."""
    still_open = MeteredAlarm.objects.filter(OPEN_ALARM)
    newest = still_open.select_related("period__deployment__accelerator", "baseline").order_by("-created_at", "-id")
    return list(newest[:limit]), still_open.count()


def open_alarms_version(now: datetime) -> str:
    """What changes when an alarm is raised, acknowledged, withdrawn or deleted: the newest alarm and how many are open
    (accounting.rankings.cache reads it as part of the data version)."""
    alarms = MeteredAlarm.objects.aggregate(newest=Max("id"), open=Count("id", filter=OPEN_ALARM))
    return f"{alarms['newest']}:{alarms['open']}"
