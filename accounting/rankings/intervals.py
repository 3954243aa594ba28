"""The measured interval of a point carried into cost, and ties between ranked rows whose intervals overlap.

A point's throughput is the median of its rounds with an interval (harness.rounds: an exact order-statistic
interval, stored as ``OperatingPoint.throughput_low_per_s``/``throughput_high_per_s``). Cost per million is
hourly / throughput, so the interval's high throughput gives the low cost and its low throughput the high
cost. Rows sorted by cost whose cost intervals overlap are ties (``serving.economics.tie_groups``, the one
rule for ties): the ranking cannot say which of them is cheaper.
"""

from __future__ import annotations

from decimal import Decimal

from accounting.pricing import costing
from accounting.serving.economics import tie_groups


def cost_interval_per_million(
    *, hourly_usd, point, unit_throughput_per_s: float, utilization
) -> tuple[Decimal, Decimal] | None:
    """(low, high) USD per million units at the point's throughput interval; None where it has none."""
    low, high, median = point.throughput_low_per_s, point.throughput_high_per_s, point.throughput_per_s
    if low is None or high is None or not median or low <= 0:
        return None
    # The interval is of the point's own figure; the ranking's is per accelerator, in the workload's unit.
    scale = unit_throughput_per_s / median
    return (
        costing.cost_per_million(hourly_usd=hourly_usd, throughput_per_s=high * scale, utilization=utilization),
        costing.cost_per_million(hourly_usd=hourly_usd, throughput_per_s=low * scale, utilization=utilization),
    )


def tied_with_next(costs: list[Decimal], intervals: list[tuple[Decimal, Decimal] | None]) -> list[bool]:
    """For rows sorted by cost: whether each row's cost interval overlaps the next row's (a row without an
    interval is its cost alone)."""
    groups = tie_groups([interval or (cost, cost) for cost, interval in zip(costs, intervals, strict=True)])
    return [n + 1 < len(groups) and groups[n] == groups[n + 1] for n in range(len(groups))]
