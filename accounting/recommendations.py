"""Which hardware to buy or rent for a target load, and whether tuning would beat buying.

Options come from the ranking (same runs, same SLA rule), sized with costing.capacity at a stated
maximum utilization. The *optimisation runway* compares the measured throughput with the device's
roofline bound for the run's precision:
  compute bound = peak FLOP/s (Accelerator.peak_tflops(precision) * 1e12) / flops_per_inference
  memory bound  = memory bandwidth (GB/s * 1e9) * batch_size / weight_bytes   (weights read once per batch)
  roofline      = the lower of the two (that bound "applies"); runway = roofline / measured.
A runway of 2 or more means the measured point uses under half of what the device allows: tuning
(batching, kernels, precision) is likely cheaper than buying more units.
"""

from dataclasses import dataclass
from decimal import ROUND_HALF_UP, Decimal

from . import costing
from .selectors import RankingRow, ranking

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


def optimisation_runway(row: RankingRow) -> Runway:
    run, accelerator, point = row.run, row.accelerator, row.point
    bounds = {}
    peak = accelerator.peak_tflops(run.precision)
    if peak and run.flops_per_inference:
        bounds["compute"] = peak * 1e12 / run.flops_per_inference
    if accelerator.memory_bandwidth_gbps and run.weight_bytes:
        bounds["memory"] = accelerator.memory_bandwidth_gbps * 1e9 * point.batch_size / run.weight_bytes
    if not bounds:
        return Runway(None, None, None, "No roofline: the run lacks FLOPs or weight bytes, or the device its peaks.")
    bound = min(bounds, key=bounds.get)
    roofline, measured = bounds[bound], row.point.throughput_per_s
    runway = roofline / measured
    if runway >= TUNE_FIRST_RUNWAY:
        advice = "tuning (batching, kernels, precision) is likely to beat buying more units"
    else:
        advice = "the point is near the device's limit: scale out rather than tune"
    sentence = (
        f"{bound.capitalize()}-bound roofline is {roofline:,.0f}/s against {measured:,.0f}/s measured "
        f"({runway:.1f}x runway): {advice}."
    )
    return Runway(roofline, bound, runway, sentence)


def recommend(
    *,
    model_class: str,
    target_qps,
    sla_p99_ms,
    annual_volume,
    price_kinds: list[str],
    max_utilization=Decimal("0.7"),
    budget_usd_per_month=None,
    as_of=None,
    include_external=False,
) -> list[Option]:
    """Options across the allowed price kinds, cheapest per month first; over-budget ones flagged, not hidden."""
    costing.to_decimal(annual_volume, "annual_volume")
    options = []
    for kind in price_kinds:
        result = ranking(
            model_class=model_class, sla_p99_ms=sla_p99_ms, price_kind=kind, as_of=as_of,
            include_external=include_external,
        )  # fmt: skip
        for row in result.rows:
            size = costing.capacity(
                target_qps=target_qps,
                throughput_per_s=row.throughput_per_s,
                max_utilization=max_utilization,
                hourly_usd=row.hourly.total_usd_per_hour,
            )
            over = budget_usd_per_month is not None and size.monthly_usd > budget_usd_per_month
            options.append(Option(row, size, over, optimisation_runway(row)))
    options.sort(key=lambda option: (option.capacity.monthly_usd, str(option.row.accelerator)))
    return options


def cost_per_million_at_load(option: Option, *, target_qps, annual_volume) -> Decimal:
    """What the fleet costs per million inferences actually served in a year (annual cost / volume)."""
    volume = costing.to_decimal(annual_volume, "annual_volume")
    if volume <= 0:
        return Decimal("0")
    value = option.capacity.annual_usd / volume * costing.MILLION
    return value.quantize(costing.PER_MILLION_QUANTUM, rounding=ROUND_HALF_UP)
