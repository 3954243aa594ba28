"""Capacity at a target interactivity, and the cost series of one accelerator read at it (reads only).

Demand is output tokens/s: N concurrent users each streaming at X tokens/s need N × X (while they
decode; prefill is in the front's measured points); R requests/s of L output tokens need R × L. Each
front read at the target gives the replica's output tokens/s there; replicas = ceil(demand /
(replica tokens/s × max utilization)), on every allowed cost basis, cheapest per month first. A replica is the
deployable unit (accounting.deployable_unit: the fewest accelerators that hold the model) at the front's
per-accelerator throughput, priced as the catalog sells a unit of its size (offerings.unit_offer).
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from decimal import Decimal

from accounting import deployable_unit, policy
from accounting.pricing.offerings import UnitOffer, unit_offer
from accounting.question import CostQuestion
from accounting.serving.economics import ServingCapacity, capacity_at, requests_demand, users_demand
from accounting.serving.points import workload_of
from accounting.serving.ranking import ServingRanking, ServingRow, read_serving
from hardware_catalog.models import Accelerator, Price
from workloads import LLM_DECODER


@dataclass(frozen=True)
class ServingOption:
    row: ServingRow
    price_kind: str
    hourly_usd_per_accelerator: Decimal
    capacity: ServingCapacity
    over_budget: bool
    unit: deployable_unit.DeployableUnit
    priced: UnitOffer
    unit_assumption: str


@dataclass(frozen=True)
class ServingPlan:
    demand_output_tokens_per_s: Decimal
    demand_rule: str
    ranking: ServingRanking
    options: list[ServingOption]


def plan(
    question: CostQuestion,
    *,
    price_kinds: list[str],
    concurrent_users=None,
    requests_per_s=None,
    max_utilization=Decimal("0.7"),
    budget_usd_per_month=None,
) -> ServingPlan:
    """Options to serve the demand at the question's speed, asked on each of ``price_kinds`` (the question's own
    SLA, interactivity, output tokens per request, as_of and published rule: accounting.question)."""
    interactivity_tps_per_user = question.interactivity_tps_per_user
    output_tokens_per_request = question.output_tokens_per_request
    if concurrent_users is not None:
        if interactivity_tps_per_user is None:
            why = "concurrent_users needs interactivity_tps_per_user: the speed each user gets"
            raise policy.ParameterError("interactivity_tps_per_user", why)
        demand = users_demand(concurrent_users=concurrent_users, tokens_per_s_per_user=interactivity_tps_per_user)
        rule = f"{concurrent_users} concurrent users x {interactivity_tps_per_user} output tokens/s each"
    elif requests_per_s is not None and output_tokens_per_request is not None:
        demand = requests_demand(requests_per_s=requests_per_s, output_tokens_per_request=output_tokens_per_request)
        rule = f"{requests_per_s} requests/s x {output_tokens_per_request} output tokens per request"
    else:
        raise policy.ParameterError(
            "concurrent_users", "state the demand: concurrent_users, or requests_per_s and output_tokens_per_request"
        )
    options, ranking = [], None
    for kind in price_kinds:
        ranking = read_serving(question.priced_as(kind))
        for row in ranking.rows:
            accelerator = row.group.accelerator
            unit = deployable_unit.smallest_unit(
                question.workload, accelerator, precision=row.group.precision,
                measured_accelerators=row.reading.accelerators_per_replica,
            )  # fmt: skip
            priced = unit_offer(
                accelerator, accelerators=unit.accelerators, price_kind=kind, at=ranking.as_of,
                assumptions=row.basis.assumptions,
            )  # fmt: skip
            hourly = priced.offer.hourly.total_usd_per_hour
            size = capacity_at(
                row.reading, demand_output_tokens_per_s=demand, hourly_usd_per_accelerator=hourly,
                max_utilization=max_utilization, accelerators_per_replica=unit.accelerators,
            )  # fmt: skip
            over = budget_usd_per_month is not None and size.monthly_usd > budget_usd_per_month
            assumption = f"{unit.assumption(ranking.workload, accelerator)}; sold as {priced.sold_as}"
            options.append(ServingOption(row, kind, hourly, size, over, unit, priced, assumption))
    options.sort(key=lambda o: (o.capacity.monthly_usd, str(o.row.group.accelerator), o.price_kind))
    return ServingPlan(demand, rule, ranking, options)


@dataclass(frozen=True)
class SeriesPoint:
    at: object
    cause: str
    row: ServingRow | None
    reason: str


def cost_series_at(question: CostQuestion, *, accelerator_id: int, since=None) -> list[SeriesPoint]:
    """The accelerator's cost per 1M tokens under the question (its speed, cost basis, token lengths), at each
    moment its inputs changed (a run of the workload arrived, a price of the question's kind came into force),
    oldest first; each moment read as of then."""
    workload, price_kind = question.workload.id, question.price_kind
    runs = policy.eligible_runs(workload=None, accelerator_ids=[accelerator_id], published=policy.Published.ALL).filter(
        model_class=LLM_DECODER
    )
    moments = {(run.started_at, "run") for run in runs if workload_of(run) == workload}
    accelerator = Accelerator.objects.filter(pk=accelerator_id).first()
    if accelerator is None:
        raise ValueError(f"no accelerator with id {accelerator_id}")
    priced_as = accelerator.pricing_accelerator
    prices = Price.objects.filter(accelerator=priced_as, kind=price_kind).values_list("effective_from", flat=True)
    moments |= {(at, "price") for at in prices}
    series = []
    for at, cause in sorted(moments):
        if since is not None and at < since:
            continue
        ranking = read_serving(replace(question, as_of=at), accelerator_ids=[accelerator_id])
        rows = [row for row in ranking.rows if row.group.accelerator.pk == accelerator_id]
        refusals = [r.reason for r in ranking.refused if r.group.accelerator.pk == accelerator_id]
        reason = "; ".join(refusals) or ("" if rows else "no front of this accelerator yet")
        series.append(SeriesPoint(at, cause, rows[0] if rows else None, reason))
    return series
