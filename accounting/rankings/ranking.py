"""Reads: the SLA-constrained ranking of hardware by cost per million for ONE workload, and cost series.

`ranking` computes on the fly from runs and prices (snapshots are the history) in a fixed number of
SQL queries: latest runs and chosen points (one query, window functions), best figures per row (one),
the accelerators that cannot meet the SLA (one), prices in force (one), assumptions (one).
A row is one (accelerator, origin, published source, accelerator count): measured and published results
of the same workload rank side by side, each labelled with where it came from.
"""

from dataclasses import dataclass, replace
from datetime import datetime
from decimal import Decimal

from django.utils import timezone

from accounting import policy
from accounting import sla as sla_rule
from accounting import tokens as token_model
from accounting.models import CostSnapshot
from accounting.pricing import costing
from accounting.pricing.offerings import no_price_reason, offer_at_point
from accounting.provenance import published_by_source, published_of, source_label
from accounting.question import CostQuestion
from accounting.rankings import intervals
from accounting.sla import Sla
from hardware_catalog.models import Accelerator, OnPremAssumptions, Price, PriceKind
from hardware_catalog.selectors import cheapest_prices_in_force, onprem_assumptions_in_force
from results.models import BenchmarkRun, OperatingPoint, PublishedResult
from workloads import Workload

_HEAVY_POINT_FIELDS = ("details", "loadgen_summary_log", "loadgen_detail_log", "loadgen_reasons")
_HEAVY_RUN_FIELDS = ("payload", "environment", "settings", "telemetry", "accuracy")
# One ranking row per (accelerator, origin, published source, accelerator count).
ROW_PARTITION = ["run__accelerator_id", "run__origin", "run__external_source", "run__accelerator_count"]


@dataclass(frozen=True)
class RankingRow:
    rank: int
    accelerator: Accelerator
    run: BenchmarkRun
    point: OperatingPoint
    throughput_per_s: float  # per accelerator, in the workload's unit
    latency_p99_ms: float
    energy_j_per_inference: float | None  # per unit of work
    hourly: costing.HourlyCost  # per accelerator
    price: Price
    assumptions: OnPremAssumptions | None
    cost_per_million_usd: Decimal  # per 1M units of work (output tokens for LLM workloads)
    origin: str
    source: str
    accelerator_count: int  # the deployment unit the result was measured on
    tokens: token_model.LlmCost | None = None  # LLM workloads: per 1M output and total tokens
    published: PublishedResult | None = None  # a published row's round, division, submitter, system
    # (low, high) cost per million at the point's throughput interval (accounting.rankings.intervals), and whether that
    # interval overlaps the next row's: a tie the ranking cannot break.
    cost_interval_usd: tuple[Decimal, Decimal] | None = None
    tied_with_next: bool = False


@dataclass(frozen=True)
class InfeasibleRow:
    accelerator: Accelerator
    reason: str
    best_latency_p99_ms: float | None
    origin: str = "measured"
    source: str = ""
    accelerator_count: int = 1


@dataclass(frozen=True)
class Ranking:
    workload: Workload
    unit: str
    sla: Sla
    price_kind: str
    utilization: Decimal
    as_of: datetime
    rows: list[RankingRow]
    infeasible: list[InfeasibleRow]
    token_lengths: token_model.TokenLengths | None = None

    @property
    def model_class(self) -> str:
        return self.workload.model_class

    @property
    def sla_p99_ms(self) -> Decimal | None:
        return self.sla.p99_ms


def chosen_points(runs, *, workload: Workload, sla: Sla):
    """Per ranking row: the point of the latest runs with the highest throughput meeting the SLA (SQL form)."""
    latest = OperatingPoint.objects.filter(run_id__in=policy.latest_run_ids(runs))
    winners = sla_rule.chosen_points(latest, workload=workload, sla=sla, partition=ROW_PARTITION)
    # The window sorts narrow rows (ids and numbers); the wide rows are fetched for the winners only.
    return (
        OperatingPoint.objects.filter(id__in=winners)
        .annotate(unit_throughput=sla_rule.throughput_expression(workload))
        .select_related("run", "run__accelerator", "run__accelerator__priced_as", "run__agent", "run__published")
        .defer(*_HEAVY_POINT_FIELDS, *(f"run__{name}" for name in _HEAVY_RUN_FIELDS))
        .order_by()
    )


def ranking(
    *,
    price_kind: str,
    workload: str | None = None,
    model_class: str | None = None,
    sla_p99_ms=None,
    ttft_p99_ms=None,
    tpot_p99_ms=None,
    utilization=None,
    region=None,
    provider=None,
    precision=None,
    backend=None,
    as_of=None,
    published: policy.Published = policy.DEFAULT_PUBLISHED,
    input_tokens_per_request=None,
    output_tokens_per_request=None,
) -> Ranking:
    """ranking(question) for a question given by its parameters (CostQuestion.ask validates them)."""
    return rank(
        CostQuestion.ask(
            price_kind=price_kind, workload=workload, model_class=model_class, sla_p99_ms=sla_p99_ms,
            ttft_p99_ms=ttft_p99_ms, tpot_p99_ms=tpot_p99_ms, utilization=utilization, region=region,
            provider=provider, precision=precision, backend=backend, as_of=as_of, published=published,
            input_tokens_per_request=input_tokens_per_request, output_tokens_per_request=output_tokens_per_request,
        )
    )  # fmt: skip


def rank(question: CostQuestion) -> Ranking:
    """Hardware for the question's workload ordered by cost per million units of work under its SLA.

    LLM workloads are costed per 1M output tokens (and per 1M total tokens where the token lengths are
    known) under TTFT/TPOT bounds.
    """
    chosen_workload, sla, share, price_kind = question.workload, question.sla, question.utilization, question.price_kind
    region, provider = question.region, question.provider
    lengths = None
    if sla_rule.counts_output_tokens(chosen_workload):
        lengths = token_model.token_lengths(
            chosen_workload,
            input_tokens_per_request=question.input_tokens_per_request,
            output_tokens_per_request=question.output_tokens_per_request,
        )
    at = question.as_of or timezone.now()
    published, precision, backend = question.published, question.precision, question.backend
    runs = policy.eligible_runs(
        workload=chosen_workload.id, as_of=at, published=published, precision=precision, backend=backend
    )
    chosen = list(chosen_points(runs, workload=chosen_workload, sla=sla))
    accelerators = [point.run.accelerator for point in chosen]
    prices = cheapest_prices_in_force(accelerators, kind=price_kind, at=at, region=region, provider=provider)
    assumptions = onprem_assumptions_in_force(at=at) if price_kind == PriceKind.PURCHASE and prices else None

    rows, infeasible = [], []
    for point in chosen:
        accelerator, run = point.run.accelerator, point.run
        record = published_of(run)
        source = source_label(run.origin, run.external_source, run.agent.name if run.agent else None, record)
        price = prices.get(accelerator.pk)

        def unfit(reason, run=run, source=source, accelerator=accelerator, point=point):
            return InfeasibleRow(accelerator, reason, point.latency_p99_ms, run.origin, source, run.accelerator_count)

        if price is None:
            infeasible.append(unfit(no_price_reason(price_kind, at, region=region, provider=provider)))
            continue
        try:
            offer = offer_at_point(accelerator, point, price=price, assumptions=assumptions)
        except ValueError as exc:
            infeasible.append(unfit(f"cannot be costed: {exc}"))
            continue
        throughput = point.unit_throughput
        per_million = costing.cost_per_million(
            hourly_usd=offer.hourly.total_usd_per_hour, throughput_per_s=throughput, utilization=share
        )
        tokens = None
        if lengths is not None:
            rates = token_model.token_rates(point, lengths)
            tokens = token_model.llm_cost(hourly_usd=offer.hourly.total_usd_per_hour, rates=rates, utilization=share)
        energy = sla_rule.energy_j(point, throughput, point.power_w_mean)
        interval = intervals.cost_interval_per_million(
            hourly_usd=offer.hourly.total_usd_per_hour, point=point, unit_throughput_per_s=throughput, utilization=share
        )
        rows.append(
            RankingRow(
                0, accelerator, run, point, throughput, point.latency_p99_ms, energy, offer.hourly, price,
                offer.assumptions, per_million, run.origin, source, run.accelerator_count, tokens, record, interval,
            )
        )  # fmt: skip
    rows.sort(key=lambda row: (row.cost_per_million_usd, -row.throughput_per_s, str(row.accelerator), row.source))
    ties = intervals.tied_with_next([row.cost_per_million_usd for row in rows], [row.cost_interval_usd for row in rows])
    rows = [
        replace(_with_rank(row, rank), tied_with_next=tie)
        for rank, (row, tie) in enumerate(zip(rows, ties, strict=True), start=1)
    ]
    chosen_keys = {_row_key(p.run.accelerator_id, p.run.origin, p.run.external_source, p.run.accelerator_count)
                   for p in chosen}  # fmt: skip
    infeasible += _cannot_meet_sla(runs, chosen_workload, sla, chosen_keys)
    infeasible.sort(key=lambda row: (str(row.accelerator), row.origin, row.source))
    return Ranking(
        chosen_workload, policy.unit_for(chosen_workload), sla, price_kind, share, at, rows, infeasible, lengths
    )


def _row_key(accelerator_id, origin, external_source, accelerator_count) -> tuple:
    return (accelerator_id, origin, external_source, accelerator_count)


def _with_rank(row: RankingRow, rank: int) -> RankingRow:
    return RankingRow(rank, *[getattr(row, name) for name in RankingRow.__dataclass_fields__ if name != "rank"])


def _cannot_meet_sla(runs, workload: Workload, sla: Sla, feasible: set) -> list[InfeasibleRow]:
    latest = OperatingPoint.objects.filter(run_id__in=policy.latest_run_ids(runs))
    best = sla_rule.best_figures(latest, workload=workload, partition=ROW_PARTITION)
    missing = [row for row in best if _row_key(*(row[name] for name in ROW_PARTITION)) not in feasible]
    if not missing:
        return []
    by_id = Accelerator.objects.in_bulk({row["run__accelerator_id"] for row in missing})
    records = published_by_source(runs) if any(row["run__external_source"] for row in missing) else {}
    return [
        InfeasibleRow(
            by_id[row["run__accelerator_id"]],
            sla_rule.unmet_reason(sla, row),
            row["p99_ms"],
            row["run__origin"],
            source_label(
                row["run__origin"], row["run__external_source"], published=records.get(row["run__external_source"])
            ),
            row["run__accelerator_count"],
        )
        for row in missing
    ]


def cost_series(
    *, accelerator_id: int, workload_name: str, price_kind: str, sla_p99_ms=None, ttft_p99_ms=None, tpot_p99_ms=None,
    since=None,
):  # fmt: skip
    """Snapshots of one accelerator's workload under one price kind and SLA (each bound, or none), oldest first."""
    snapshots = CostSnapshot.objects.filter(
        accelerator_id=accelerator_id,
        workload_name=workload_name,
        price_kind=price_kind,
        sla_p99_ms=sla_p99_ms,
        sla_ttft_p99_ms=ttft_p99_ms,
        sla_tpot_p99_ms=tpot_p99_ms,
    ).select_related("price", "run", "alarm")
    if since is not None:
        snapshots = snapshots.filter(effective_at__gte=since)
    return snapshots.defer(*(f"run__{name}" for name in _HEAVY_RUN_FIELDS)).order_by("effective_at", "id")
