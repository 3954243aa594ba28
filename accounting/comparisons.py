"""Before/after comparisons of run sets (fp16 vs int8, eager vs compile): savings and an honest verdict.

An answer compares the same work, like with like: both sets must be runs of ONE workload (a comparison
across workloads is refused, naming both), both sides are costed under ONE SLA, and in ONE scenario that
both sets measured (a server run is never paired with a single-stream run; sets with no scenario in common
are refused, naming what each measured). Where they share several scenarios, the pair is the one asked for
(`scenario`), else the scenario in which the before set is cheapest (how it would be deployed today), the
after set doing the same work; the answer lists the scenarios both sets measured, so another can be asked for.
Cost per million of a side: the cheapest of its runs in that scenario at the point sla_rule.choose
picks (highest throughput in the workload's unit, under the SLA when one is given), priced with the
cheapest offering of the kind in force (offerings.offer_at_point).
Verdict, in this order, from the paired points (the figures the answer shows):
  - "accuracy floor breached": an after run failed its accuracy guard (accuracy_passed False);
  - "latency benefit": the after point's p99 is lower than the before point's by more than the noise,
    noise = max(10 %, the before and after points' (p90 - p50) / p50 spread);
  - "memory/concurrency only": latency not better beyond noise, but memory drops by more than 10 %
    (weight_bytes, else telemetry peak_rss_bytes or gpu_memory_peak_bytes);
  - "no benefit" otherwise; the explanation says whether p99 was flat within noise or rose.
"""

from dataclasses import dataclass
from decimal import Decimal

from accounting import policy
from accounting import sla as sla_rule
from accounting.errors import FieldError
from accounting.pricing import costing
from accounting.pricing.offerings import offer_at_point
from accounting.sla import Sla
from hardware_catalog.selectors import cheapest_prices_in_force, onprem_assumptions_in_force
from results.models import BenchmarkRun
from workloads import Workload

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
    scenario: str
    shared_scenarios: tuple[str, ...]
    before: SideCost
    after: SideCost
    annual_savings_usd: Decimal
    verdict: str
    explanation: str


class ComparisonError(FieldError):
    """A side (or parameter) of a comparison that cannot be costed; `field` names it."""


def _cheapest(runs: list[BenchmarkRun], *, workload: Workload, price_kind: str, sla: Sla, at) -> SideCost | None:
    """The cheapest of `runs` at its chosen point, or None where none has a price in force and a feasible point."""
    prices = cheapest_prices_in_force([run.accelerator for run in runs], kind=price_kind, at=at)
    assumptions = onprem_assumptions_in_force(at=at) if price_kind == "purchase" else None
    best = None
    for run in runs:
        price = prices.get(run.accelerator_id)
        choice = sla_rule.choose(run.points.all(), workload=workload, sla=sla)
        if price is None or not choice.feasible:
            continue
        hourly = offer_at_point(run.accelerator, choice.point, price=price, assumptions=assumptions).hourly
        cost = costing.cost_per_million(hourly_usd=hourly.total_usd_per_hour, throughput_per_s=choice.throughput_per_s)
        if best is None or cost < best.cost_per_million_usd:
            best = SideCost(run, choice.point, cost, choice.throughput_per_s, hourly)
    return best


def _by_scenario(runs: list[BenchmarkRun]) -> dict[str, list[BenchmarkRun]]:
    grouped: dict[str, list[BenchmarkRun]] = {}
    for run in runs:
        grouped.setdefault(run.scenario, []).append(run)
    return grouped


def shared_scenarios(before: list[BenchmarkRun], after: list[BenchmarkRun]) -> tuple[str, ...]:
    """The scenarios both run sets measured, sorted."""
    return tuple(sorted({run.scenario for run in before} & {run.scenario for run in after}))


def paired_sides(
    before: list[BenchmarkRun],
    after: list[BenchmarkRun],
    *,
    workload: Workload,
    price_kind: str,
    sla: Sla,
    at=None,
    scenario: str | None = None,
) -> tuple[str, SideCost, SideCost]:
    """(scenario, before, after): both sides costed doing the same work, in `scenario` when one is asked for
    (module docstring)."""
    scenarios = {"before": _by_scenario(before), "after": _by_scenario(after)}
    common = list(shared_scenarios(before, after))
    if not common:
        raise ComparisonError(
            "scenario",
            f"the run sets measure no scenario in common: before has {', '.join(sorted(scenarios['before']))}, "
            f"after has {', '.join(sorted(scenarios['after']))}; measure both in one scenario",
        )
    if scenario and scenario not in common:
        raise ComparisonError(
            "scenario", f"the run sets did not both measure {scenario!r}; the scenarios they share: {', '.join(common)}"
        )
    pairs, missing = [], {}
    for name in [scenario] if scenario else common:
        costed = {
            side: _cheapest(scenarios[side][name], workload=workload, price_kind=price_kind, sla=sla, at=at)
            for side in ("before", "after")
        }
        if costed["before"] is None or costed["after"] is None:
            for side in ("before", "after"):
                if costed[side] is None:
                    missing.setdefault(side, []).append(name)
            continue
        pairs.append((name, costed["before"], costed["after"]))
    if not pairs:
        side, where = next(iter(sorted(missing.items())))
        raise ComparisonError(
            side,
            f"no {side} run in the scenario(s) both sets measured ({', '.join(where)}) has a {price_kind} price "
            f"in force and a point meeting {sla}",
        )
    return min(pairs, key=lambda pair: (pair[1].cost_per_million_usd, pair[0]))


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


def verdict(before: SideCost, after: SideCost, *, after_runs: list[BenchmarkRun]) -> tuple[str, str]:
    """The verdict on a paired comparison (module docstring): accuracy, then the paired points' p99, then memory."""
    failed = [str(run.pk) for run in after_runs if run.accuracy_passed is False]
    if failed:
        return "accuracy floor breached", f"the accuracy guard failed for after run(s) {', '.join(failed)}"
    before_ms, after_ms = before.point.latency_p99_ms, after.point.latency_p99_ms
    noise = max(NOISE_FLOOR, _spread(before.point), _spread(after.point))
    change = after_ms / before_ms - 1 if before_ms > 0 else 0.0
    moved = f"p99 went from {before_ms:.3g} ms to {after_ms:.3g} ms ({change:+.0%})"
    if -change > noise:
        return "latency benefit", f"{moved}, beyond the {noise:.0%} noise"
    latency = f"latency is flat within the {noise:.0%} noise ({moved})" if change <= noise else f"latency rose: {moved}"
    memory_before = _memory_bytes(before.run)
    memory_after = _memory_bytes(after.run)
    if memory_before and memory_after and memory_after < memory_before * (1 - MEMORY_DROP):
        return "memory/concurrency only", f"{latency}; memory fell from {memory_before:,} to {memory_after:,} bytes"
    return "no benefit", f"{latency}, and memory did not fall by more than 10%"


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
    scenario: str | None = None,
) -> Comparison:
    workload = common_workload(before, after)
    try:
        sla = policy.requested_sla(workload, sla_p99_ms=sla_p99_ms, ttft_p99_ms=ttft_p99_ms, tpot_p99_ms=tpot_p99_ms)
    except policy.ParameterError as exc:
        raise ComparisonError(exc.field, str(exc)) from None
    scenario, cost_before, cost_after = paired_sides(
        before, after, workload=workload, price_kind=price_kind, sla=sla, at=at, scenario=scenario
    )
    savings = costing.annual_savings(
        cost_per_million_before=cost_before.cost_per_million_usd,
        cost_per_million_after=cost_after.cost_per_million_usd,
        annual_volume=annual_volume,
    )
    label, explanation = verdict(cost_before, cost_after, after_runs=after)
    shared = shared_scenarios(before, after)
    return Comparison(workload, sla, scenario, shared, cost_before, cost_after, savings, label, explanation)
