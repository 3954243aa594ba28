"""Declaring a deployment and metering a period of it.

The money comes from accounting: the hourly cost of one declared accelerator from ``hourly_offer`` (the catalog's
price in force, on-prem assumptions for a purchase), the cost per million from ``costing.cost_per_million``.
"""

import json
from datetime import datetime, timedelta
from decimal import Decimal

from django.db import transaction
from django_celery_beat.models import CrontabSchedule, PeriodicTask

import workloads
from accounting import policy
from accounting.models import CostSnapshot
from accounting.pricing import costing
from accounting.pricing.offerings import NoPriceError, hourly_offer
from hardware_catalog.models import Accelerator

from .engines import ENGINE_COUNTERS
from .models import Deployment, MeteredPeriod
from .promql import PrometheusError, counter_total, series
from .regressions import check_period_regression

METER_TASK = "metering.meter_deployment"
PERIODIC_TASK_PREFIX = "inferledger metering: "
# Daily, after midnight UTC: the previous UTC day is complete in the deployment's Prometheus by then.
UTILIZATION_QUANTUM = Decimal("0.000001")  # MeteredPeriod.utilization's 6 decimals
DAILY_CRONTAB = {"minute": "20", "hour": "0"}


class MeteringError(ValueError):
    """A period that cannot be metered (no samples, a counter reset, no price): `field` names the input."""

    def __init__(self, field: str, message: str):
        self.field = field
        super().__init__(message)


def deployment_declare(
    *,
    name: str,
    prometheus_url: str,
    engine: str,
    workload_name: str,
    accelerator: Accelerator,
    accelerator_count: int,
    price_kind: str,
    selector: str = "",
) -> Deployment:
    """Store a deployment (validated whole) and its daily metering schedule, together or not at all."""
    deployment = Deployment(
        name=name, prometheus_url=prometheus_url, engine=engine, workload_name=workload_name,
        accelerator=accelerator, accelerator_count=accelerator_count, price_kind=price_kind, selector=selector,
    )  # fmt: skip
    deployment.full_clean()
    workload = policy.resolve_workload(workload=workload_name)
    _units_counter(deployment.engine, policy.unit_for(workload))  # refuses an engine that cannot count the unit
    with transaction.atomic():
        deployment.save()
        crontab, _ = CrontabSchedule.objects.get_or_create(
            **DAILY_CRONTAB, day_of_month="*", month_of_year="*", day_of_week="*", timezone="UTC"
        )
        PeriodicTask.objects.create(
            name=f"{PERIODIC_TASK_PREFIX}{deployment.name}",
            task=METER_TASK,
            crontab=crontab,
            args=json.dumps([deployment.pk]),
        )
    return deployment


def previous_utc_day(now: datetime) -> tuple[datetime, datetime]:
    end = now.replace(hour=0, minute=0, second=0, microsecond=0)
    return end - timedelta(days=1), end


def _units_counter(engine: str, unit: str) -> str:
    counters = ENGINE_COUNTERS[engine]
    if unit == workloads.Unit.OUTPUT_TOKENS:
        if counters.generation_tokens is None:
            raise MeteringError("engine", f"{engine} serves no token counters; the workload is counted in {unit}")
        return counters.generation_tokens
    return counters.inferences or counters.requests


def _increase(deployment: Deployment, metric: str, start: datetime, end: datetime) -> tuple[Decimal, dict]:
    """The counter's rise over [start, end]: its value at end minus its value at start (0 when the deployment had
    no sample yet at start). Read as two instant values, not PromQL's increase(), which extrapolates to the
    window's edges; a counter that went down (a restart) is refused rather than guessed across."""
    at_start = counter_total(deployment.prometheus_url, metric, selector=deployment.selector, at=start)
    at_end = counter_total(deployment.prometheus_url, metric, selector=deployment.selector, at=end)
    query = f"sum({series(metric, deployment.selector)})"
    if at_end is None:
        raise MeteringError("prometheus_url", f"{query} has no sample at or before {end.isoformat()}")
    if at_start is not None and at_end < at_start:
        raise MeteringError("start", f"{query} went down in the period (a restart reset it): {at_start} -> {at_end}")
    read = {"query": query, "at_start": str(at_start) if at_start is not None else None, "at_end": str(at_end)}
    return at_end - (at_start or Decimal(0)), read


def predicted_snapshot(deployment: Deployment, at: datetime) -> CostSnapshot | None:
    """The benchmark's figure for this workload on this accelerator and cost basis: the latest snapshot in force
    at `at`, the cheapest of that moment's series when several (SLAs, backends) are."""
    return (
        CostSnapshot.objects.filter(
            accelerator=deployment.accelerator,
            workload_name=deployment.workload_name,
            price_kind=deployment.price_kind,
            effective_at__lte=at,
        )
        .order_by("-effective_at", "cost_per_million_usd", "id")
        .first()
    )


def period_meter(*, deployment: Deployment, start: datetime, end: datetime) -> MeteredPeriod:
    """Read the deployment's counters over [start, end), price its declared hardware for that time, store it.

    Metering the same period again returns the stored one. A new period costlier than the deployment's earlier ones
    beyond the alarm threshold and their interval raises an alarm (metering.regressions)."""
    if end <= start:
        raise MeteringError("end", "end must be after start")
    stored = MeteredPeriod.objects.filter(deployment=deployment, start=start, end=end).first()
    if stored is not None:
        return stored
    unit = policy.unit_for(policy.resolve_workload(workload=deployment.workload_name))
    counters = ENGINE_COUNTERS[deployment.engine]
    try:
        requests, read_requests = _increase(deployment, counters.requests, start, end)
        reads = {"requests": read_requests}
        tokens = {}
        token_counters = {"prompt_tokens": counters.prompt_tokens, "generation_tokens": counters.generation_tokens}
        for field, metric in token_counters.items():
            if metric is not None:
                tokens[field], reads[field] = _increase(deployment, metric, start, end)
        units_metric = _units_counter(deployment.engine, unit)
        if units_metric == counters.generation_tokens:
            units = tokens["generation_tokens"]
        elif units_metric == counters.requests:
            units = requests
        else:
            units, reads["inferences"] = _increase(deployment, units_metric, start, end)
    except PrometheusError as exc:
        raise MeteringError("prometheus_url", str(exc)) from exc
    try:
        offer = hourly_offer(deployment.accelerator, price_kind=deployment.price_kind, at=end)
    except (NoPriceError, ValueError) as exc:
        raise MeteringError("price_kind", str(exc)) from exc

    assert offer.price is not None  # hourly_offer raises NoPriceError rather than answer without a price row
    period_s = Decimal(str((end - start).total_seconds()))
    per_accelerator_hourly = offer.hourly.total_usd_per_hour
    # Units per second on each declared accelerator: throughput and hourly cost are per accelerator, as in every
    # snapshot and ranking, so the two figures compare.
    served_per_accelerator_s = units / period_s / deployment.accelerator_count
    per_million = None
    if units > 0:
        per_million = costing.cost_per_million(
            hourly_usd=per_accelerator_hourly, throughput_per_s=served_per_accelerator_s
        )
    cost_usd = per_accelerator_hourly * deployment.accelerator_count * period_s / costing.SECONDS_PER_HOUR
    snapshot = predicted_snapshot(deployment, end)
    utilization = None
    if snapshot is not None and snapshot.throughput_per_s > 0:
        utilization = costing.rounded(
            served_per_accelerator_s / Decimal(str(snapshot.throughput_per_s)), UTILIZATION_QUANTUM
        )
    period = MeteredPeriod.objects.create(
        deployment=deployment, start=start, end=end, requests=requests,
        prompt_tokens=tokens.get("prompt_tokens"), generation_tokens=tokens.get("generation_tokens"),
        unit=unit, units_served=units, counters=reads, price=offer.price, assumptions=offer.assumptions,
        usd_per_accelerator_hour=per_accelerator_hourly,
        cost_usd=costing.rounded(cost_usd, costing.HOURLY_QUANTUM),
        cost_per_million_units_usd=per_million, predicted=snapshot,
        predicted_cost_per_million_units_usd=snapshot.cost_per_million_usd if snapshot else None,
        utilization=utilization,
    )  # fmt: skip
    check_period_regression(period)  # a regression beyond the threshold and the intervals raises an alarm
    return period
