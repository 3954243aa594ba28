"""Which hardware to buy or rent for a target load of ONE workload, and whether tuning would beat buying.

Options come from the ranking (same workload, same runs, same SLA rule), sized with costing.capacity at
a stated maximum utilization, in the workload's unit: for LLM workloads the target is requests/s converted
to output tokens/s with the output tokens per request (the request's, else the workload's), or output
tokens/s as stated (token_model.target_load). The deployment unit comes from the model, not the submission
(deployable_unit: weights at the run's precision plus the LLM KV cache against the accelerator's memory), its
throughput is the result's per-accelerator throughput times the unit's size, and it is priced as it is sold
(offerings.unit_offer: an instance of the unit's size where the catalog has one). Each option states both.
The *optimisation runway* compares the measured throughput with the device's roofline for the run's precision
(harness.roofline, the rule the run page's latency split reads too):
  compute bound = peak FLOP/s (Accelerator.peak_tflops(precision) * 1e12) / flops_per_inference
  memory bound  = memory bandwidth (GB/s * 1e9) * batch_size / (weight_bytes * forward passes per inference)
  roofline      = the lower of the two (that bound "applies"), in the workload's unit; runway = roofline / measured.
For an LLM an inference is a request of N output tokens (N forward passes; its FLOPs are the whole request's), so
the roofline in output tokens/s is N times the one in requests/s.
A runway of 2 or more means the measured point uses under half of what the device allows: tuning
(batching, kernels, precision) is likely cheaper than buying more units.
"""

from dataclasses import dataclass, field
from decimal import Decimal

from accounting import deployable_unit
from accounting import sla as sla_rule
from accounting import tokens as token_model
from accounting.pricing import costing
from accounting.pricing.offerings import UnitOffer, unit_offer
from accounting.question import CostQuestion
from accounting.rankings.ranking import RankingRow, rank
from harness.roofline import Roofline, output_tokens_per_request
from workloads import Workload

TUNE_FIRST_RUNWAY = 2.0


@dataclass(frozen=True)
class Runway:
    roofline_throughput_per_s: float | None
    bound: str | None  # "compute" or "memory"
    runway: float | None
    sentence: str


@dataclass(frozen=True)
class Option:
    row: RankingRow
    capacity: costing.Capacity
    over_budget: bool
    runway: Runway
    unit: deployable_unit.DeployableUnit
    priced: UnitOffer
    unit_assumption: str

    @property
    def deployment(self) -> str:
        """The fleet in its deployment unit, e.g. '2 x 4-accelerator NVIDIA H100 SXM5 80GB units (8 in all)'."""
        size, per_unit = self.capacity.units, self.capacity.accelerators_per_unit
        if per_unit == 1:
            return f"{size} x {self.row.accelerator}"
        plural = "unit" if size == 1 else "units"
        return f"{size} x {per_unit}-accelerator {self.row.accelerator} {plural} ({self.capacity.accelerators} in all)"


@dataclass(frozen=True)
class LeftOut:
    """A ranked row purchase advice leaves out, and why."""

    row: RankingRow
    reason: str


@dataclass(frozen=True)
class Plan:
    workload: Workload
    target: token_model.TargetLoad
    token_lengths: token_model.TokenLengths | None
    options: list[Option]
    left_out: list[LeftOut] = field(default_factory=list)


# MLPerf's availability categories: 'preview' systems were not yet available when submitted (they must be within
# 180 days), 'rdi' ones are research, development or internal; purchase advice rests on what can be bought.
PREVIEW = "preview"
PREVIEW_REASON = (
    "a preview system (not yet available when its result was submitted): left out of purchase advice; "
    "include_preview=true to include it"
)


def optimisation_runway(row: RankingRow, workload: Workload) -> Runway:
    """The device's roofline (harness.roofline) against the row's measured throughput, both in the workload's unit.
    An LLM's unit is output tokens and its FLOPs per inference are a whole request's: a request makes one forward
    pass per output token, so its ceilings in requests/s times its output tokens are ceilings in output tokens/s."""
    run, point = row.run, row.point
    units_per_inference = 1
    if sla_rule.counts_output_tokens(workload):
        output_tokens = output_tokens_per_request(point.details)
        if output_tokens is None:
            return Runway(None, None, None, "No roofline: the point states no output tokens per request.")
        units_per_inference = output_tokens
    roofline = Roofline(
        flops_per_inference=run.flops_per_inference, weight_bytes=run.weight_bytes,
        peak_tflops=row.accelerator.peak_tflops(run.precision),
        memory_bandwidth_gbps=row.accelerator.memory_bandwidth_gbps, passes_per_inference=units_per_inference,
    )  # fmt: skip
    found = roofline.binding(point.batch_size)
    if found is None:
        return Runway(None, None, None, "No roofline: the run lacks FLOPs or weight bytes, or the device its peaks.")
    bound, inferences_per_s = found
    ceiling, measured = inferences_per_s * units_per_inference, row.throughput_per_s  # per accelerator, in the unit
    runway = ceiling / measured
    if runway >= TUNE_FIRST_RUNWAY:
        advice = "tuning (batching, kernels, precision) is likely to beat buying more units"
    else:
        advice = "the point is near the device's limit: scale out rather than tune"
    sentence = (
        f"{bound.capitalize()}-bound roofline is {ceiling:,.0f}/s against {measured:,.0f}/s measured "
        f"({runway:.1f}x runway): {advice}."
    )
    return Runway(ceiling, bound, runway, sentence)


def target_for(
    workload: Workload, *, target_qps=None, target_output_tokens_per_s=None, input_tokens_per_request=None,
    output_tokens_per_request=None,
) -> tuple[token_model.TargetLoad, token_model.TokenLengths | None]:  # fmt: skip
    """The target load in the workload's unit, with the token lengths used (LLM workloads)."""
    if not sla_rule.counts_output_tokens(workload):
        if target_output_tokens_per_s is not None:
            raise token_model.TargetError(
                "target_output_tokens_per_s", f"{workload.id} is not an LLM workload: use target_qps"
            )
        if target_qps is None:
            raise token_model.TargetError("target_qps", "target_qps is required")
        rate = costing.to_decimal(target_qps, "target_qps")
        return token_model.TargetLoad(rate, f"{rate} {workload.unit.value}/s, as stated"), None
    lengths = token_model.token_lengths(
        workload, input_tokens_per_request=input_tokens_per_request, output_tokens_per_request=output_tokens_per_request
    )
    target = token_model.target_load(
        workload, target_requests_per_s=target_qps, target_output_tokens_per_s=target_output_tokens_per_s,
        lengths=lengths,
    )  # fmt: skip
    return target, lengths


def recommend(
    question: CostQuestion,
    *,
    annual_volume=None,
    price_kinds: list[str],
    target_qps=None,
    target_output_tokens_per_s=None,
    max_utilization=Decimal("0.7"),
    budget_usd_per_month=None,
    concurrent_sequences: int | None = None,
    include_preview: bool = False,
) -> Plan:
    """Options for the question (its workload, SLA, token lengths, as_of and published rule: accounting.question)
    asked on each of the allowed price kinds, cheapest per month first; over-budget ones flagged, not hidden;
    published results of preview systems left out (with the reason) unless `include_preview`. The fleet is sized
    from the target rate alone: `annual_volume`, optional, is only checked here (it prices the volume served)."""
    if annual_volume is not None:
        costing.to_decimal(annual_volume, "annual_volume")
    chosen = question.workload
    target, lengths = target_for(
        chosen, target_qps=target_qps, target_output_tokens_per_s=target_output_tokens_per_s,
        input_tokens_per_request=question.input_tokens_per_request,
        output_tokens_per_request=question.output_tokens_per_request,
    )  # fmt: skip
    options, left_out = [], []
    for kind in price_kinds:
        result = rank(question.priced_as(kind))
        for row in result.rows:
            if not include_preview and row.published is not None and row.published.availability == PREVIEW:
                left_out.append(LeftOut(row, PREVIEW_REASON))
                continue
            unit = deployable_unit.smallest_unit(
                chosen, row.accelerator, precision=row.run.precision, measured_accelerators=row.accelerator_count,
                concurrent_sequences=concurrent_sequences,
            )  # fmt: skip
            priced = unit_offer(
                row.accelerator, accelerators=unit.accelerators, price_kind=kind, at=result.as_of,
                measured_power_w=row.point.power_w_mean, assumptions=row.assumptions,
            )  # fmt: skip
            size = costing.capacity(
                target_qps=target.throughput_per_s,
                throughput_per_s=row.throughput_per_s,
                max_utilization=max_utilization,
                hourly_usd=priced.offer.hourly.total_usd_per_hour,
                accelerators_per_unit=unit.accelerators,
            )
            over = budget_usd_per_month is not None and size.monthly_usd > budget_usd_per_month
            assumption = f"{unit.assumption(chosen, row.accelerator)}; sold as {priced.sold_as}"
            options.append(Option(row, size, over, optimisation_runway(row, chosen), unit, priced, assumption))
    options.sort(key=lambda option: (option.capacity.monthly_usd, str(option.row.accelerator), option.row.source))
    return Plan(chosen, target, lengths, options, left_out)


def cost_per_million_at_load(option: Option, *, target_qps, annual_volume) -> Decimal | None:
    """What the fleet costs per million inferences actually served in a year (annual cost / volume); None when
    no annual volume is given (the fleet is sized from the target rate alone)."""
    if annual_volume is None:
        return None
    volume = costing.to_decimal(annual_volume, "annual_volume")
    if volume <= 0:
        return Decimal("0")
    value = option.capacity.annual_usd / volume * costing.MILLION
    return costing.per_million_rounded(value)
