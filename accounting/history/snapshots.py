"""Writes: cost snapshots, computed when a run is ingested and when a price or an assumption set is added.

A snapshot's figure depends only on its inputs (run, point, price row, assumption set, SLA,
utilization), and its `effective_at` is when that combination came into force: the latest of the
run's finish, the price's effective_from and (on-prem) the assumption set's creation. So whichever
event computes it, the same inputs give the same row, and the unique digest makes re-running a no-op.
Snapshots are computed for every price offering in force, under the standard SLAs of the run's workload
(the registry's p99 bounds, or MLPerf's TTFT/TPOT bounds for LLM workloads, and no SLA), at utilization 1,
at the point sla_rule.choose picks; a series is one workload's configuration (see series_key). Each keeps the
cost interval of its figure where its point has a throughput interval over its rounds (the ranking's rule,
accounting.rankings.intervals), and none where the point has none (published results).
"""

import hashlib
import logging
from collections.abc import Iterable
from datetime import datetime
from decimal import Decimal

from django.db.models import Q

from accounting import policy
from accounting import sla as sla_rule
from accounting.models import CostSnapshot
from accounting.pricing import costing
from accounting.pricing.offerings import offer_at_point
from accounting.rankings import intervals
from accounting.sla import Sla
from hardware_catalog.models import Accelerator, OnPremAssumptions, Price, PriceKind
from hardware_catalog.selectors import onprem_assumptions_in_force, prices_in_force
from results.models import BenchmarkRun, PublishedResult, RunOrigin
from workloads import Workload

logger = logging.getLogger(__name__)


def _digest(*parts) -> str:
    return hashlib.sha256("|".join("" if part is None else str(part) for part in parts).encode()).hexdigest()


def _sla_key(sla: Sla) -> str | Decimal | None:
    """How an SLA enters digests: the p99 bound alone as before TTFT/TPOT existed, so old digests still match."""
    if sla.is_llm:
        return f"ttft<={sla.ttft_p99_ms};tpot<={sla.tpot_p99_ms}"
    return sla.p99_ms


def series_key(run: BenchmarkRun, price: Price, sla: Sla) -> str:
    """One series = one system's workload configuration on one offering under one SLA.

    The system is the agent host for a measured run and the submitter's system for a published one: two
    systems' results of one accelerator are two series, so an alarm never reads a different system's figure
    as a change of throughput. A measured run without an agent keeps the digest it had before systems counted.
    """
    configuration = _digest(
        run.accelerator_id, run.origin, run.workload_name, run.scenario, run.backend, run.precision,
        price.kind, price.provider, price.region, price.instance_type, _sla_key(sla),
    )  # fmt: skip
    system = system_of(run)
    return _digest(configuration, system) if system else configuration


def system_of(run: BenchmarkRun) -> str:
    """The system a run was measured on, as a series names it: 'agent:<id>', 'published:<submitter>/<system> x<N>',
    or '' for a measured run with no agent (a run posted by hand). Migration 0006 states the same rule."""
    if run.origin == RunOrigin.MEASURED:
        return f"agent:{run.agent_id}" if run.agent_id else ""
    try:
        record = run.published  # cached on the run after the first read, a missing one too
    except PublishedResult.DoesNotExist:
        record = None
    name = f"{record.submitter}/{record.system}" if record else run.external_source
    return f"published:{name} x{run.accelerator_count}"


def _counts(run: BenchmarkRun) -> bool:
    return BenchmarkRun.objects.that_count().filter(pk=run.pk).exists()


def _build(run, workload: Workload, choice, price, assumptions, sla: Sla) -> CostSnapshot | None:
    point, throughput = choice.point, choice.throughput_per_s
    try:
        offer = offer_at_point(run.accelerator, point, price=price, assumptions=assumptions)
    except ValueError:
        return None  # e.g. an on-prem price for hardware with neither measured power nor a TDP
    utilization = policy.snapshot_utilization()
    per_million = costing.cost_per_million(
        hourly_usd=offer.hourly.total_usd_per_hour, throughput_per_s=throughput, utilization=utilization
    )
    interval = _interval_holding(
        intervals.cost_interval_per_million(
            hourly_usd=offer.hourly.total_usd_per_hour, point=point, unit_throughput_per_s=throughput,
            utilization=utilization,
        ),
        per_million, point,
    )  # fmt: skip
    used = offer.assumptions
    moments = [run.finished_at, price.effective_from] + ([used.created_at] if used else [])
    hourly = offer.hourly
    return CostSnapshot(
        accelerator=run.accelerator, run=run, point=point, price=price, assumptions=used,
        model_class=run.model_class, workload_name=run.workload_name, price_kind=price.kind,
        sla_p99_ms=sla.p99_ms, sla_ttft_p99_ms=sla.ttft_p99_ms, sla_tpot_p99_ms=sla.tpot_p99_ms,
        utilization=utilization, unit=policy.unit_for(workload),
        throughput_per_s=throughput, latency_p99_ms=point.latency_p99_ms,
        power_w=hourly.power_w if hourly.power_w is not None else point.power_w_mean,
        power_source=hourly.power_source if price.kind == PriceKind.PURCHASE else "included in cloud price",
        capex_usd_per_hour=hourly.capex_usd_per_hour, opex_usd_per_hour=hourly.opex_usd_per_hour,
        power_usd_per_hour=hourly.power_usd_per_hour, cloud_usd_per_hour=hourly.cloud_usd_per_hour,
        total_usd_per_hour=hourly.total_usd_per_hour, cost_per_million_usd=per_million,
        cost_per_million_low_usd=interval[0] if interval else None,
        cost_per_million_high_usd=interval[1] if interval else None,
        effective_at=max(moments), series_key=series_key(run, price, sla),
        inputs_digest=_digest(run.pk, point.pk, price.pk, used.pk if used else None, _sla_key(sla), utilization),
    )  # fmt: skip


def _interval_holding(interval, per_million: Decimal, point) -> tuple[Decimal, Decimal] | None:
    """The cost interval when it holds the figure; None where the point has none, or has one its figure lies
    outside (a payload whose median is not within its own interval: logged, stored without an interval)."""
    if interval is None or interval[0] <= per_million <= interval[1]:
        return interval
    logger.warning(
        "point %s: its throughput %s lies outside its interval [%s, %s]; its snapshots carry no interval",
        point.pk, point.throughput_per_s, point.throughput_low_per_s, point.throughput_high_per_s,
    )  # fmt: skip
    return None


def feasible_choices(run: BenchmarkRun) -> list[tuple[Sla, sla_rule.SlaChoice]]:
    """The point chosen under each standard SLA of the run's workload that some point meets."""
    workload = policy.workload_of(run)
    points = list(run.points.all())
    choices = [(sla, sla_rule.choose(points, workload=workload, sla=sla)) for sla in policy.standard_slas(workload)]
    return [(sla, choice) for sla, choice in choices if choice.feasible]


def priced(
    run: BenchmarkRun, prices: list[Price], assumptions: OnPremAssumptions | None, choices=None
) -> list[CostSnapshot]:
    """The run's snapshots on these prices (`choices`: feasible_choices(run), when already computed)."""
    workload = policy.workload_of(run)
    built = []
    for sla, choice in feasible_choices(run) if choices is None else choices:
        for price in prices:
            used = assumptions if price.kind == PriceKind.PURCHASE else None
            snapshot = _build(run, workload, choice, price, used, sla)
            if snapshot is not None:
                built.append(snapshot)
    return built


def store(snapshots: list[CostSnapshot]) -> list[CostSnapshot]:
    """Insert the snapshots not stored yet; returns the new ones, oldest first."""
    fresh = store_new(snapshots)
    return list(CostSnapshot.objects.filter(inputs_digest__in=fresh).order_by("effective_at", "id"))


def store_new(snapshots: list[CostSnapshot]) -> list[str]:
    """Insert the snapshots not stored yet; returns their digests (not read back: a bulk load needs no rows)."""
    digests = {snapshot.inputs_digest for snapshot in snapshots}
    stored = set(CostSnapshot.objects.filter(inputs_digest__in=digests).values_list("inputs_digest", flat=True))
    fresh = {s.inputs_digest: s for s in snapshots if s.inputs_digest not in stored}
    CostSnapshot.objects.bulk_create(fresh.values(), ignore_conflicts=True, batch_size=1000)
    return list(fresh)


def snapshots_for_run(run: BenchmarkRun) -> list[CostSnapshot]:
    """Every offering in force when the run finished, under the standard SLAs of its class."""
    if not _counts(run):
        return []
    prices = prices_in_force([run.accelerator], at=run.finished_at)[run.accelerator.pk]
    assumptions = onprem_assumptions_in_force(at=run.finished_at) if any(p.is_purchase for p in prices) else None
    return store(priced(run, prices, assumptions))


def latest_run_ids_at(accelerator_ids: Iterable[int], at: datetime):
    """A subquery of the ids of the runs a price or assumption set taking effect at `at` applies to: the latest
    counted run of each configuration (each workload its own, published included) on these accelerators, among
    those started and finished by then (policy.latest_run_ids)."""
    runs = policy.eligible_runs(
        workload=None, as_of=at, published=policy.Published.ALL, accelerator_ids=list(accelerator_ids)
    ).filter(finished_at__lte=at)
    return policy.latest_run_ids(runs)


def _latest_runs(accelerators, at: datetime) -> list[BenchmarkRun]:
    ids = latest_run_ids_at([accelerator.pk for accelerator in accelerators], at)
    return list(BenchmarkRun.objects.filter(pk__in=ids).select_related("accelerator"))


def snapshots_for_price(price: Price) -> list[CostSnapshot]:
    """The new price applied to the latest runs on the hardware it prices, as of its effective_from."""
    accelerators = list(Accelerator.objects.filter(Q(pk=price.accelerator_id) | Q(priced_as=price.accelerator_id)))
    assumptions = onprem_assumptions_in_force(at=price.effective_from) if price.is_purchase else None
    built = []
    for run in _latest_runs(accelerators, price.effective_from):
        built += priced(run, [price], assumptions)
    return store(built)


def snapshots_for_assumptions(assumptions: OnPremAssumptions) -> list[CostSnapshot]:
    """A new on-prem assumption set applied to every purchase price in force and the latest runs then."""
    at = assumptions.created_at
    built = []
    prices = list(Price.objects.filter(kind=PriceKind.PURCHASE).in_force(at).select_related("accelerator"))
    for price in prices:
        accelerators = list(Accelerator.objects.filter(Q(pk=price.accelerator_id) | Q(priced_as=price.accelerator_id)))
        for run in _latest_runs(accelerators, at):
            built += priced(run, [price], assumptions)
    return store(built)


def recompute_all() -> list[CostSnapshot]:
    """Rebuild every snapshot history can produce; those already stored are left alone."""
    created = []
    for run in BenchmarkRun.objects.select_related("accelerator").order_by("finished_at", "id").iterator():
        created += snapshots_for_run(run)
    for price in Price.objects.order_by("effective_from", "id"):
        created += snapshots_for_price(price)
    for assumptions in OnPremAssumptions.objects.order_by("created_at", "id"):
        created += snapshots_for_assumptions(assumptions)
    return sorted(created, key=lambda snapshot: (snapshot.effective_at, snapshot.pk))
