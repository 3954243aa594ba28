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
  - "cost benefit": the cost per million fell by more than the noise, named in money (per million and a year
    at the stated volume), with what latency or throughput did;
  - "throughput benefit" (offline, judged on throughput) or "latency benefit" (other scenarios, judged on p99):
    the after point better by more than the noise;
  - "memory/concurrency only": neither, but the weights at the run's precision (the registry's parameter count
    x bytes per parameter, deployable_unit) are more than 10 % smaller, else telemetry peak memory;
  - "no benefit" otherwise; the explanation says whether the figure was flat within noise or worse, and a cost
    rise beyond noise in money.
noise = max(10 %, the two points' rounds' 95 % confidence intervals combined, sqrt(a^2 + b^2)): each point's
rounds (its figure of merit in every round, the payload's points[].rounds) give how far its figure could move
between measurements (history.noise.confidence_half_width). A point's own latency tail, (p90 - p50) / p50, is not
noise: under load it exceeds 100 %, and no latency gain could ever clear it.
DEFAULTS is the one default set the API and the compare page share: without SLA bounds, the workload's
reference SLA (policy.reference_sla); the cost basis and annual volume the page starts from and the API assumes.
The rest of what a comparison is asked (SLA, cost basis, utilization, as-of) is a CostQuestion (accounting.question,
`comparison_question`), so a comparison is priced at the utilization every other answer assumes (the configured
default, INFERLEDGER_UTILIZATION, unless asked) and says which (`Comparison.utilization`).
"""

import math
from dataclasses import dataclass
from decimal import Decimal

from accounting import deployable_unit, policy
from accounting import sla as sla_rule
from accounting.errors import FieldError
from accounting.history.noise import confidence_half_width, point_rounds
from accounting.pricing import costing
from accounting.pricing.money import usd_text
from accounting.pricing.offerings import offer_at_point
from accounting.question import CostQuestion
from accounting.sla import Sla
from hardware_catalog.selectors import cheapest_prices_in_force, onprem_assumptions_in_force
from results.models import BenchmarkRun
from workloads import Workload

NOISE_FLOOR = 0.10
MEMORY_DROP = 0.10
VERDICTS = (
    "accuracy floor breached", "cost benefit", "throughput benefit", "latency benefit", "memory/concurrency only",
    "no benefit",
)  # fmt: skip


@dataclass(frozen=True)
class Defaults:
    """What a comparison assumes when not told: the page's initial values and the API's defaults."""

    price_kind: str = "cloud_on_demand"
    annual_volume: int = 1_000_000_000
    sla: str = "the workload's reference SLA"


DEFAULTS = Defaults()


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
    utilization: Decimal  # the share of paid accelerator-hours both sides' costs assume


def comparison_question(
    before: list[BenchmarkRun], after: list[BenchmarkRun], *, no_sla: bool = False, **asked
) -> CostQuestion:
    """The cost question a comparison of these run sets answers: for the one workload both measure
    (`common_workload`), under the bounds asked, else the workload's reference SLA (DEFAULTS), or no SLA with
    `no_sla`; `asked` is the rest of the question (price_kind, utilization, as_of). Refusals name the parameter."""
    return CostQuestion.ask(workload=common_workload(before, after), reference_sla_by_default=not no_sla, **asked)


class ComparisonError(FieldError):
    """A side (or parameter) of a comparison that cannot be costed; `field` names it."""


def _cheapest(runs: list[BenchmarkRun], question: CostQuestion) -> SideCost | None:
    """The cheapest of `runs` at its chosen point, or None where none has a price in force and a feasible point."""
    workload, sla, price_kind, at = question.workload, question.sla, question.price_kind, question.as_of
    prices = cheapest_prices_in_force([run.accelerator for run in runs], kind=price_kind, at=at)
    assumptions = onprem_assumptions_in_force(at=at) if price_kind == "purchase" else None
    best = None
    for run in runs:
        price = prices.get(run.accelerator_id)
        choice = sla_rule.choose(run.points.all(), workload=workload, sla=sla)
        if price is None or not choice.feasible:
            continue
        hourly = offer_at_point(run.accelerator, choice.point, price=price, assumptions=assumptions).hourly
        cost = costing.cost_per_million(
            hourly_usd=hourly.total_usd_per_hour, throughput_per_s=choice.throughput_per_s,
            utilization=question.utilization,
        )  # fmt: skip
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
    before: list[BenchmarkRun], after: list[BenchmarkRun], question: CostQuestion, *, scenario: str | None = None
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
        costed = {side: _cheapest(scenarios[side][name], question) for side in ("before", "after")}
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
            f"no {side} run in the scenario(s) both sets measured ({', '.join(where)}) has a {question.price_kind} "
            f"price in force and a point meeting {question.sla}",
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


def weight_bytes_at_precision(run: BenchmarkRun, workload: Workload) -> int | None:
    """The run's weights at its own precision: parameters x bytes per parameter (deployable_unit). Parameters from
    the registry, else from the run's weight_bytes, which the harness records for the fp32 model (4 bytes each)."""
    parameters = workload.parameter_count or (run.weight_bytes // 4 if run.weight_bytes else None)
    if not parameters or run.precision not in deployable_unit.BYTES_PER_PARAMETER:
        return None
    return int(parameters * deployable_unit.BYTES_PER_PARAMETER[run.precision])


def _memory_bytes(run: BenchmarkRun, workload: Workload):
    telemetry = run.telemetry or {}
    return (
        weight_bytes_at_precision(run, workload)
        or telemetry.get("peak_rss_bytes")
        or telemetry.get("gpu_memory_peak_bytes")
    )


def noise_of(before: SideCost, after: SideCost) -> tuple[float, str]:
    """(noise fraction, how it was found): the module docstring's rule."""
    widths = [confidence_half_width(point_rounds(side.run, side.point.index)) for side in (before, after)]
    measured = [width for width in widths if width is not None]
    combined = math.hypot(*measured) if measured else 0.0
    if combined > NOISE_FLOOR:
        return combined, "the rounds' 95% confidence intervals"
    source = "the rounds' 95% confidence intervals are narrower" if measured else "no rounds measured"
    return NOISE_FLOOR, f"the {NOISE_FLOOR:.0%} floor; {source}"


def verdict(
    before: SideCost,
    after: SideCost,
    *,
    after_runs: list[BenchmarkRun],
    workload: Workload,
    scenario: str,
    annual_savings_usd: Decimal,
    annual_volume,
) -> tuple[str, str]:
    """The verdict on a paired comparison (module docstring): accuracy, cost in money, the scenario's figure, memory."""
    failed = [str(run.pk) for run in after_runs if run.accuracy_passed is False]
    if failed:
        return "accuracy floor breached", f"the accuracy guard failed for after run(s) {', '.join(failed)}"
    noise, noise_source = noise_of(before, after)
    within = f"the {noise:.0%} noise ({noise_source})"
    if scenario == "offline":
        gain = after.throughput_per_s / before.throughput_per_s - 1
        moved = (
            f"throughput went from {before.throughput_per_s:,.4g}/s to {after.throughput_per_s:,.4g}/s ({gain:+.0%})"
        )
        figure_label, better, worse = "throughput benefit", gain > noise, -gain > noise
    else:
        before_ms, after_ms = before.point.latency_p99_ms, after.point.latency_p99_ms
        gain = 1 - after_ms / before_ms if before_ms > 0 else 0.0
        moved = f"p99 went from {before_ms:.3g} ms to {after_ms:.3g} ms ({-gain:+.0%})"
        figure_label, better, worse = "latency benefit", gain > noise, -gain > noise
    figure = f"{moved}, beyond {within}" if better or worse else f"flat within {within} ({moved})"
    if worse:
        figure = f"{'throughput fell' if scenario == 'offline' else 'latency rose'}: {figure}"
    cost_before, cost_after = before.cost_per_million_usd, after.cost_per_million_usd
    cost_change = float(cost_after / cost_before - 1) if cost_before else 0.0
    per = f"per 1M {policy.unit_for(workload).replace('_', ' ')}"
    money = (
        f"cost {per} {'fell' if cost_change < 0 else 'rose'} {abs(cost_change):.0%} ({usd_text(cost_before)} -> "
        f"{usd_text(cost_after)}), {usd_text(abs(annual_savings_usd))} a year "
        f"{'saved' if cost_change < 0 else 'more'} at {int(annual_volume):,} a year"
    )
    if -cost_change > noise:
        return "cost benefit", f"{money}; {figure}"
    if better:
        return figure_label, figure
    cost_note = f"; {money}" if cost_change > noise else ""
    memory_before, memory_after = _memory_bytes(before.run, workload), _memory_bytes(after.run, workload)
    if memory_before and memory_after and memory_after < memory_before * (1 - MEMORY_DROP):
        return "memory/concurrency only", (
            f"{figure}; memory fell from {int(memory_before):,} to {int(memory_after):,} bytes{cost_note}"
        )
    return "no benefit", f"{figure}, and memory did not fall by more than {MEMORY_DROP:.0%}{cost_note}"


def compare(
    question: CostQuestion,
    *,
    before: list[BenchmarkRun],
    after: list[BenchmarkRun],
    annual_volume,
    scenario: str | None = None,
) -> Comparison:
    """The run sets compared under `question` (comparison_question: its SLA, cost basis, utilization, as-of)."""
    workload = common_workload(before, after)
    if workload.id != question.workload.id:
        raise ComparisonError(
            "workload", f"the runs measure {workload.id}, the question is about {question.workload.id}"
        )
    scenario, cost_before, cost_after = paired_sides(before, after, question, scenario=scenario)
    savings = costing.annual_savings(
        cost_per_million_before=cost_before.cost_per_million_usd,
        cost_per_million_after=cost_after.cost_per_million_usd,
        annual_volume=annual_volume,
    )
    label, explanation = verdict(
        cost_before, cost_after, after_runs=after, workload=workload, scenario=scenario, annual_savings_usd=savings,
        annual_volume=annual_volume,
    )  # fmt: skip
    shared = shared_scenarios(before, after)
    return Comparison(
        workload, question.sla, scenario, shared, cost_before, cost_after, savings, label, explanation,
        question.utilization,
    )  # fmt: skip
