"""Reads: the SLA-constrained ranking of hardware by cost per million, and cost series from snapshots.

`ranking` computes on the fly from runs and prices (snapshots are the history) in a fixed number of
SQL queries: latest runs and chosen points (one query, window functions), best p99 per accelerator
(one), the accelerators that cannot meet the SLA (one), prices in force (one), assumptions (one).
"""

from dataclasses import dataclass
from datetime import datetime
from decimal import Decimal

from django.db.models import F, Min, Window
from django.db.models.functions import RowNumber
from django.utils import timezone

from agents.models import BenchmarkRun, OperatingPoint
from hardware_catalog.models import Accelerator, OnPremAssumptions, Price, PriceKind
from hardware_catalog.selectors import cheapest_prices_in_force, onprem_assumptions_in_force

from . import costing, policy
from .models import CostSnapshot
from .pricing import energy_j, offer_at_point

_HEAVY_POINT_FIELDS = ("details", "loadgen_summary_log", "loadgen_detail_log", "loadgen_reasons")
_HEAVY_RUN_FIELDS = ("payload", "environment", "settings", "telemetry", "accuracy")


@dataclass(frozen=True)
class RankingRow:
    rank: int
    accelerator: Accelerator
    run: BenchmarkRun
    point: OperatingPoint
    throughput_per_s: float
    latency_p99_ms: float
    energy_j_per_inference: float | None
    hourly: costing.HourlyCost
    price: Price
    assumptions: OnPremAssumptions | None
    cost_per_million_usd: Decimal
    origin: str


@dataclass(frozen=True)
class InfeasibleRow:
    accelerator: Accelerator
    reason: str
    best_latency_p99_ms: float | None
    origin: str = "measured"


@dataclass(frozen=True)
class Ranking:
    model_class: str
    unit: str
    sla_p99_ms: Decimal | None
    price_kind: str
    utilization: Decimal
    as_of: datetime
    rows: list[RankingRow]
    infeasible: list[InfeasibleRow]


def chosen_points(runs, *, model_class: str, sla_p99_ms=None):
    """Per (accelerator, origin): the point of the latest runs with the highest throughput meeting the SLA.

    The same rule as costing.operating_point_for_sla (ties go to the lower p99), done in SQL.
    """
    points = OperatingPoint.objects.filter(run_id__in=policy.latest_run_ids(runs)).annotate(
        ranking_throughput=policy.throughput_expression(model_class)
    )
    points = points.filter(ranking_throughput__gt=0)
    if sla_p99_ms is not None:
        points = points.filter(latency_p99_ms__lte=float(sla_p99_ms))
    # The window sorts narrow rows (ids and numbers); the wide rows are fetched for the winners only.
    winners = points.annotate(
        choice=Window(
            RowNumber(),
            partition_by=[F("run__accelerator_id"), F("run__origin")],
            order_by=[F("ranking_throughput").desc(), F("latency_p99_ms").asc(), F("id").asc()],
        )
    ).filter(choice=1)
    return (
        OperatingPoint.objects.filter(id__in=winners.values("id"))
        .annotate(ranking_throughput=policy.throughput_expression(model_class))
        .select_related("run", "run__accelerator", "run__accelerator__priced_as")
        .defer(*_HEAVY_POINT_FIELDS, *(f"run__{name}" for name in _HEAVY_RUN_FIELDS))
        .order_by()
    )


def ranking(
    *,
    model_class: str,
    sla_p99_ms=None,
    price_kind: str,
    utilization=Decimal("1"),
    region=None,
    provider=None,
    precision=None,
    backend=None,
    as_of=None,
    include_external=False,
) -> Ranking:
    """Hardware ordered by cost per million inferences (output tokens for llm-decoder) under the SLA."""
    sla = None if sla_p99_ms is None else costing.to_decimal(sla_p99_ms, "sla_p99_ms")
    if sla is not None and sla <= 0:
        raise ValueError(f"sla_p99_ms must be greater than zero, got {sla_p99_ms}")
    share = costing.to_decimal(utilization, "utilization")
    if not 0 < share <= 1:
        raise ValueError(f"utilization must be in (0, 1], got {utilization}")
    at = as_of or timezone.now()
    runs = policy.eligible_runs(
        model_class=model_class, as_of=at, include_external=include_external, precision=precision, backend=backend
    )
    chosen = list(chosen_points(runs, model_class=model_class, sla_p99_ms=sla))
    accelerators = [point.run.accelerator for point in chosen]
    prices = cheapest_prices_in_force(accelerators, kind=price_kind, at=at, region=region, provider=provider)
    assumptions = onprem_assumptions_in_force(at=at) if price_kind == PriceKind.PURCHASE and prices else None

    rows, infeasible = [], []
    for point in chosen:
        accelerator, run = point.run.accelerator, point.run
        price = prices.get(accelerator.pk)
        if price is None:
            reason = f"no {price_kind} price in force at {at.date().isoformat()}" + _where(region, provider)
            infeasible.append(InfeasibleRow(accelerator, reason, point.latency_p99_ms, run.origin))
            continue
        try:
            offer = offer_at_point(accelerator, point, price=price, assumptions=assumptions)
        except ValueError as exc:
            infeasible.append(InfeasibleRow(accelerator, f"cannot be costed: {exc}", point.latency_p99_ms, run.origin))
            continue
        throughput = point.ranking_throughput
        per_million = costing.cost_per_million(
            hourly_usd=offer.hourly.total_usd_per_hour, throughput_per_s=throughput, utilization=share
        )
        energy = energy_j(point, throughput, point.power_w_mean)
        rows.append(
            RankingRow(
                0, accelerator, run, point, throughput, point.latency_p99_ms, energy, offer.hourly, price,
                offer.assumptions, per_million, run.origin,
            )
        )  # fmt: skip
    rows.sort(key=lambda row: (row.cost_per_million_usd, -row.throughput_per_s, str(row.accelerator)))
    rows = [_with_rank(row, rank) for rank, row in enumerate(rows, start=1)]
    infeasible += _cannot_meet_sla(runs, model_class, sla, {(p.run.accelerator_id, p.run.origin) for p in chosen})
    infeasible.sort(key=lambda row: (str(row.accelerator), row.origin))
    return Ranking(model_class, policy.unit_for(model_class), sla, price_kind, share, at, rows, infeasible)


def _where(region, provider) -> str:
    parts = [f"region {region}" if region else "", f"provider {provider}" if provider else ""]
    return "".join(f" in {part}" for part in parts if part)


def _with_rank(row: RankingRow, rank: int) -> RankingRow:
    return RankingRow(rank, *[getattr(row, name) for name in RankingRow.__dataclass_fields__ if name != "rank"])


def _cannot_meet_sla(runs, model_class: str, sla, feasible: set) -> list[InfeasibleRow]:
    best = (
        OperatingPoint.objects.filter(run_id__in=policy.latest_run_ids(runs))
        .annotate(ranking_throughput=policy.throughput_expression(model_class))
        .filter(ranking_throughput__gt=0)
        .values("run__accelerator_id", "run__origin")
        .annotate(best_p99=Min("latency_p99_ms"))
        .order_by()
    )
    missing = {(r["run__accelerator_id"], r["run__origin"]): r["best_p99"] for r in best}
    missing = {key: p99 for key, p99 in missing.items() if key not in feasible}
    if not missing:
        return []
    by_id = Accelerator.objects.in_bulk({accelerator_id for accelerator_id, _ in missing})
    return [
        InfeasibleRow(
            by_id[accelerator_id],
            f"no operating point meets p99 <= {sla} ms (best measured p99 is {p99:.3f} ms)",
            p99,
            origin,
        )
        for (accelerator_id, origin), p99 in missing.items()
    ]


def cost_series(*, accelerator_id: int, workload_name: str, price_kind: str, sla_p99_ms=None, since=None):
    """Snapshots of one accelerator's workload under one price kind and SLA, oldest first."""
    snapshots = CostSnapshot.objects.filter(
        accelerator_id=accelerator_id, workload_name=workload_name, price_kind=price_kind
    ).select_related("price", "run", "alarm")
    snapshots = snapshots.filter(sla_p99_ms=sla_p99_ms) if sla_p99_ms is not None else snapshots.filter(sla_p99_ms=None)
    if since is not None:
        snapshots = snapshots.filter(effective_at__gte=since)
    return snapshots.defer(*(f"run__{name}" for name in _HEAVY_RUN_FIELDS)).order_by("effective_at", "id")
