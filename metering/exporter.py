"""``GET /metrics``: InferLedger's figures in Prometheus's text format, read from what is stored (never
recomputed): the latest cost snapshot of every series, open alarms, the latest metered period of every
deployment and its open alarms, agents' and jobs' health.

Access is the deployment's choice (docs/operations.md, "Prometheus export"): a bearer token
(INFERLEDGER_METRICS_TOKEN, Prometheus's ``authorization`` scrape setting), or open
(INFERLEDGER_METRICS_OPEN=true, for an internal network); with neither set the export is off (403 saying so).
"""

import hmac

from django.conf import settings
from django.db.models import Count
from django.http import HttpRequest, HttpResponse
from django.utils import timezone
from django.views.decorators.http import require_GET
from prometheus_client import CONTENT_TYPE_LATEST, CollectorRegistry, generate_latest
from prometheus_client.core import GaugeMetricFamily

from accounting.models import OPEN_ALARM, CostAlarm, CostSnapshot
from agents.models import Agent, ControlWorker, Job, JobState

from .models import MeteredAlarm, MeteredPeriod

COST_LABELS = [
    "workload", "accelerator", "price_kind", "cost_basis", "unit", "sla", "scenario", "backend", "precision",
    "origin", "provider", "region", "instance_type", "series",
]  # fmt: skip
DEPLOYMENT_LABELS = ["deployment", "workload", "accelerator", "price_kind", "unit"]


def _number(value) -> float:
    return float(value)


def cost_families() -> list[GaugeMetricFamily]:
    per_million = GaugeMetricFamily(
        "inferledger_cost_per_million_units_usd",
        "Cost per million units of work (the workload's unit) of the latest snapshot of each series, in USD.",
        labels=COST_LABELS,
    )
    latest = (
        CostSnapshot.objects.select_related("accelerator", "run", "price")
        .order_by("series_key", "-effective_at", "-id")
        .distinct("series_key")
    )
    for snapshot in latest:
        run, price = snapshot.run, snapshot.price
        per_million.add_metric(
            [
                snapshot.workload_name,
                str(snapshot.accelerator),
                snapshot.price_kind,
                snapshot.cost_basis,
                snapshot.unit,
                snapshot.sla_label,
                run.scenario,
                run.backend,
                run.precision,
                run.origin,
                price.provider,
                price.region,
                price.instance_type,
                snapshot.series_key[:16],
            ],  # fmt: skip
            _number(snapshot.cost_per_million_usd),
        )
    alarms = GaugeMetricFamily(
        "inferledger_open_cost_alarms",
        "Cost regression alarms neither acknowledged nor withdrawn.",
        labels=["workload", "accelerator", "price_kind"],
    )
    open_alarms = (
        CostAlarm.objects.filter(OPEN_ALARM)
        .values("snapshot__workload_name", "snapshot__accelerator__vendor", "snapshot__accelerator__model",
                "snapshot__price_kind")
        .annotate(count=Count("id"))
        .order_by()
    )  # fmt: skip
    for row in open_alarms:
        accelerator = f"{row['snapshot__accelerator__vendor']} {row['snapshot__accelerator__model']}"
        alarms.add_metric([row["snapshot__workload_name"], accelerator, row["snapshot__price_kind"]], row["count"])
    return [per_million, alarms]


def metered_families() -> list[GaugeMetricFamily]:
    def family(name: str, text: str) -> GaugeMetricFamily:
        return GaugeMetricFamily(name, text, labels=DEPLOYMENT_LABELS)

    actual = family(
        "inferledger_metered_cost_per_million_units_usd",
        "A deployment's actual cost per million units served over its latest metered period, in USD.",
    )
    predicted = family(
        "inferledger_metered_predicted_cost_per_million_units_usd",
        "What the benchmark predicts for the deployment's hardware and cost basis, in USD per million units.",
    )
    cost = family("inferledger_metered_cost_usd", "What the deployment's declared hardware cost over the period.")
    served = family("inferledger_metered_units_served", "Units of work served over the latest metered period.")
    utilization = family(
        "inferledger_metered_utilization_ratio", "Units served per second over the benchmark's capacity (0..1+)."
    )
    period_end = family("inferledger_metered_period_end_timestamp_seconds", "End of the latest metered period.")
    latest = (
        MeteredPeriod.objects.select_related("deployment__accelerator")
        .order_by("deployment_id", "-end")
        .distinct("deployment_id")
    )
    for period in latest:
        deployment = period.deployment
        labels = [deployment.name, deployment.workload_name, str(deployment.accelerator), deployment.price_kind,
                  period.unit]  # fmt: skip
        cost.add_metric(labels, _number(period.cost_usd))
        served.add_metric(labels, _number(period.units_served))
        period_end.add_metric(labels, period.end.timestamp())
        if period.cost_per_million_units_usd is not None:
            actual.add_metric(labels, _number(period.cost_per_million_units_usd))
        if period.predicted_cost_per_million_units_usd is not None:
            predicted.add_metric(labels, _number(period.predicted_cost_per_million_units_usd))
        if period.utilization is not None:
            utilization.add_metric(labels, _number(period.utilization))
    alarms = GaugeMetricFamily(
        "inferledger_open_metered_cost_alarms",
        "Metered cost regression alarms (a period costlier than the deployment's earlier ones) neither acknowledged "
        "nor withdrawn.",
        labels=DEPLOYMENT_LABELS,
    )
    open_alarms = (
        MeteredAlarm.objects.filter(OPEN_ALARM)
        .values("period__deployment__name", "period__deployment__workload_name",
                "period__deployment__accelerator__vendor", "period__deployment__accelerator__model",
                "period__deployment__price_kind", "period__unit")
        .annotate(count=Count("id"))
        .order_by()
    )  # fmt: skip
    for row in open_alarms:
        vendor, model = row["period__deployment__accelerator__vendor"], row["period__deployment__accelerator__model"]
        accelerator = f"{vendor} {model}"
        labels = [row["period__deployment__name"], row["period__deployment__workload_name"], accelerator,
                  row["period__deployment__price_kind"], row["period__unit"]]  # fmt: skip
        alarms.add_metric(labels, row["count"])
    return [actual, predicted, cost, served, utilization, period_end, alarms]


def health_families() -> list[GaugeMetricFamily]:
    agent_up = GaugeMetricFamily(
        "inferledger_agent_up", "1 when the agent's heartbeat is recent, else 0.", labels=["agent"]
    )
    agent_seen = GaugeMetricFamily(
        "inferledger_agent_last_seen_timestamp_seconds", "The agent's last heartbeat.", labels=["agent"]
    )
    for agent in Agent.objects.all():
        agent_up.add_metric([agent.name], 1 if agent.status == "online" else 0)
        if agent.last_seen_at is not None:  # an enrolled agent that has not spoken yet has no last heartbeat
            agent_seen.add_metric([agent.name], agent.last_seen_at.timestamp())
    control_up = GaugeMetricFamily(
        "inferledger_control_worker_up", "1 when the control worker's heartbeat is recent, else 0.", labels=["hostname"]
    )
    for worker in ControlWorker.objects.all():
        control_up.add_metric([worker.hostname], 1 if worker.status == "online" else 0)
    jobs = GaugeMetricFamily("inferledger_jobs", "Benchmark jobs by state.", labels=["state"])
    counts = dict(Job.objects.values_list("state").annotate(count=Count("id")).order_by())
    for state in JobState.values:
        jobs.add_metric([state], counts.get(state, 0))
    overdue = GaugeMetricFamily(
        "inferledger_jobs_past_deadline", "Queued or running jobs past their deadline (the reaper's next work)."
    )
    overdue.add_metric([], Job.objects.past_deadline(timezone.now()).count())
    return [agent_up, agent_seen, control_up, jobs, overdue]


class StoredFigures:
    """A prometheus_client collector over the database, for one scrape."""

    def describe(self):
        return []  # no families up front: registering must not query the database

    def collect(self):
        yield from cost_families()
        yield from metered_families()
        yield from health_families()


def _allowed(request: HttpRequest) -> HttpResponse | None:
    token = settings.INFERLEDGER_METRICS_TOKEN
    if token:
        offered = request.headers.get("Authorization", "")
        if hmac.compare_digest(offered.encode(), f"Bearer {token}".encode()):
            return None
        response = HttpResponse("a bearer token is required (INFERLEDGER_METRICS_TOKEN)\n", status=401)
        response["WWW-Authenticate"] = 'Bearer realm="metrics"'
        return response
    if settings.INFERLEDGER_METRICS_OPEN:
        return None
    return HttpResponse(
        "the Prometheus export is off: set INFERLEDGER_METRICS_TOKEN (scraped with a bearer token) or "
        "INFERLEDGER_METRICS_OPEN=true (an internal network)\n",
        status=403,
    )


@require_GET
def metrics(request: HttpRequest) -> HttpResponse:
    refused = _allowed(request)
    if refused is not None:
        refused["Content-Type"] = "text/plain; charset=utf-8"
        return refused
    registry = CollectorRegistry(auto_describe=False)
    registry.register(StoredFigures())
    return HttpResponse(generate_latest(registry), content_type=CONTENT_TYPE_LATEST)
