"""Before/after comparisons of run sets (fp16 vs int8, eager vs compile): savings and an honest verdict.

Both sets must be runs of ONE workload (a comparison across workloads is refused, naming both).
Cost per million of a set: the cheapest of its runs at the point operating_points.choose picks (highest
throughput in the workload's unit, under the SLA when one is given), priced with the cheapest offering
of the kind in force (offerings.offer_at_point).
Verdict, in this order:
  - "accuracy floor breached": an after run failed its accuracy guard (accuracy_passed False);
  - "latency benefit": at some batch size measured in both sets, the after p50 is lower than the
    before p50 by more than the noise, noise = max(10 %, the before and after (p90 - p50) / p50 spread);
  - "memory/concurrency only": latency flat but memory drops by more than 10 % (weight_bytes, else
    telemetry peak_rss_bytes or gpu_memory_peak_bytes);
  - "no benefit" otherwise.
"""

from dataclasses import dataclass
from decimal import Decimal

from hardware_catalog.selectors import cheapest_prices_in_force, onprem_assumptions_in_force
from results.models import BenchmarkRun
from workloads import Workload

from . import costing, operating_points, policy
from .errors import FieldError
from .offerings import offer_at_point
from .operating_points import Sla

NOISE_FLOOR = 0.10
MEMORY_DROP = 0.10


@dataclass(frozen=True)
class SideCost:
    run: BenchmarkRun
    point: object
    cost_per_million_usd: Decimal
    throughput_per_s: float  # per accelerator, in the workload's unit
    hourly: costing.HourlyCost

    @property
    def accelerator(self):
        return self.run.accelerator

    @property
    def latency_p99_ms(self) -> float:
        return self.point.latency_p99_ms


@dataclass(frozen=True)
class Comparison:
    workload: Workload
    sla: Sla
    before: SideCost
    after: SideCost
    annual_savings_usd: Decimal
    verdict: str
    explanation: str


class ComparisonError(FieldError):
    """A side (or parameter) of a comparison that cannot be costed; `field` names it."""


def _side(runs: list[BenchmarkRun], *, side: str, workload: Workload, price_kind: str, sla: Sla, at) -> SideCost:
    prices = cheapest_prices_in_force([run.accelerator for run in runs], kind=price_kind, at=at)
    assumptions = onprem_assumptions_in_force(at=at) if price_kind == "purchase" else None
    best = None
    for run in runs:
        price = prices.get(run.accelerator_id)
        choice = operating_points.choose(run.points.all(), workload=workload, sla=sla)
        if price is None or not choice.feasible:
            continue
        hourly = offer_at_point(run.accelerator, choice.point, price=price, assumptions=assumptions).hourly
        cost = costing.cost_per_million(hourly_usd=hourly.total_usd_per_hour, throughput_per_s=choice.throughput_per_s)
        if best is None or cost < best.cost_per_million_usd:
            best = SideCost(run, choice.point, cost, choice.throughput_per_s, hourly)
    if best is None:
        raise ComparisonError(side, f"no {side} run has a {price_kind} price in force and a point meeting {sla}")
    return best


def common_workload(before: list[BenchmarkRun], after: list[BenchmarkRun]) -> Workload:
    """The one workload both run sets measure; a comparison across workloads is refused, naming both."""
    names = {side: sorted({run.workload_name for run in runs}) for side, runs in (("before", before), ("after", after))}
    for side, found in names.items():
        if len(found) > 1:
            raise ComparisonError(side, f"the {side} runs measure different workloads ({', '.join(found)})")
    if names["before"] != names["after"]:
        raise ComparisonError(
            "workload",
            f"runs of different workloads cannot be compared: before is {names['before'][0]}, "
            f"after is {names['after'][0]}",
        )
    return policy.workload_of(before[0])


def _memory_bytes(run: BenchmarkRun) -> int | None:
    telemetry = run.telemetry or {}
    return run.weight_bytes or telemetry.get("peak_rss_bytes") or telemetry.get("gpu_memory_peak_bytes")


def _spread(point) -> float:
    if point.latency_p90_ms is None or not point.latency_p50_ms:
        return 0.0
    return (point.latency_p90_ms - point.latency_p50_ms) / point.latency_p50_ms


def verdict(before: list[BenchmarkRun], after: list[BenchmarkRun]) -> tuple[str, str]:
    failed = [str(run.pk) for run in after if run.accuracy_passed is False]
    if failed:
        return "accuracy floor breached", f"the accuracy guard failed for after run(s) {', '.join(failed)}"
    by_batch = {}
    for name, runs in (("before", before), ("after", after)):
        for run in runs:
            for point in run.points.all():
                held = by_batch.setdefault(point.batch_size, {}).get(name)
                if held is None or point.latency_p50_ms < held.latency_p50_ms:
                    by_batch[point.batch_size][name] = point
    for batch, pair in sorted(by_batch.items()):
        if "before" not in pair or "after" not in pair:
            continue
        noise = max(NOISE_FLOOR, _spread(pair["before"]), _spread(pair["after"]))
        drop = 1 - pair["after"].latency_p50_ms / pair["before"].latency_p50_ms
        if drop > noise:
            return "latency benefit", f"p50 at batch {batch} fell {drop:.0%}, beyond the {noise:.0%} noise"
    memory_before = min(filter(None, map(_memory_bytes, before)), default=None)
    memory_after = min(filter(None, map(_memory_bytes, after)), default=None)
    if memory_before and memory_after and memory_after < memory_before * (1 - MEMORY_DROP):
        return "memory/concurrency only", (
            f"latency is flat within noise; memory fell from {memory_before:,} to {memory_after:,} bytes"
        )
    return "no benefit", "latency is flat within noise and memory did not fall by more than 10%"


def compare(
    *,
    before: list[BenchmarkRun],
    after: list[BenchmarkRun],
    price_kind: str,
    annual_volume,
    sla_p99_ms=None,
    ttft_p99_ms=None,
    tpot_p99_ms=None,
    at=None,
) -> Comparison:
    workload = common_workload(before, after)
    try:
        sla = policy.requested_sla(workload, sla_p99_ms=sla_p99_ms, ttft_p99_ms=ttft_p99_ms, tpot_p99_ms=tpot_p99_ms)
    except policy.ParameterError as exc:
        raise ComparisonError(exc.field, str(exc)) from None
    cost_before = _side(before, side="before", workload=workload, price_kind=price_kind, sla=sla, at=at)
    cost_after = _side(after, side="after", workload=workload, price_kind=price_kind, sla=sla, at=at)
    savings = costing.annual_savings(
        cost_per_million_before=cost_before.cost_per_million_usd,
        cost_per_million_after=cost_after.cost_per_million_usd,
        annual_volume=annual_volume,
    )
    label, explanation = verdict(before, after)
    return Comparison(workload, sla, cost_before, cost_after, savings, label, explanation)
