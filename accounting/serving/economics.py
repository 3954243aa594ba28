"""Money, energy and capacity at a front reading (plain functions over Decimal money, no database).

Cost per 1M tokens charges the whole accelerator-hour to the token kind asked for, as InferenceX
does: per 1M output tokens = hourly / (output tokens/s x 3600 x utilization) x 1e6; per 1M input
tokens the same over input tokens/s; per 1M total tokens over input + output tokens/s. The three are
alternative views of one hour, not shares of it. Input tokens/s = output tokens/s x the workload's
input tokens per output token (its mean input and output tokens per request: the token model,
`accounting.tokens`, converts); where that ratio is unknown the input and total figures are refused with
the reason, never guessed.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from decimal import Decimal

from accounting.pricing import costing
from accounting.serving.front import FrontReading
from accounting.tokens import output_tokens_per_s_for_requests


@dataclass(frozen=True)
class TokenCosts:
    """USD per 1M input/output/total tokens on one accelerator-hour price, with intervals when known."""

    output_usd_per_million: Decimal
    input_usd_per_million: Decimal | None
    total_usd_per_million: Decimal | None
    input_total_refused: str
    # (low, high) cost: the high cost comes from the low throughput of the reading's interval.
    output_interval_usd_per_million: tuple[Decimal, Decimal] | None
    total_interval_usd_per_million: tuple[Decimal, Decimal] | None


def token_costs(
    *,
    hourly_usd_per_accelerator,
    output_tokens_per_s_per_accelerator,
    input_per_output_token: Decimal | None,
    utilization=Decimal("1"),
    interval: tuple[float, float] | None = None,
) -> TokenCosts:
    hourly = costing.to_decimal(hourly_usd_per_accelerator, "hourly_usd_per_accelerator")
    output_tps = costing.to_decimal(output_tokens_per_s_per_accelerator, "output_tokens_per_s_per_accelerator")

    def per_million(tps) -> Decimal:
        return costing.cost_per_million(hourly_usd=hourly, throughput_per_s=tps, utilization=utilization)

    def cost_interval(multiplier: Decimal) -> tuple[Decimal, Decimal] | None:
        if interval is None:
            return None
        low_tps, high_tps = (costing.to_decimal(v, "interval") * multiplier for v in interval)
        return per_million(high_tps), per_million(low_tps)

    if input_per_output_token is None:
        refused = (
            "no mean input and output tokens per request: the workload states none, the points measured none "
            "and the request gave no input_tokens_per_request"
        )
        return TokenCosts(per_million(output_tps), None, None, refused, cost_interval(Decimal(1)), None)
    ratio = costing.to_decimal(input_per_output_token, "input_per_output_token")
    if ratio <= 0:
        raise ValueError(f"input_per_output_token must be greater than zero, got {input_per_output_token}")
    return TokenCosts(
        output_usd_per_million=per_million(output_tps),
        input_usd_per_million=per_million(output_tps * ratio),
        total_usd_per_million=per_million(output_tps * (1 + ratio)),
        input_total_refused="",
        output_interval_usd_per_million=cost_interval(Decimal(1)),
        total_interval_usd_per_million=cost_interval(1 + ratio),
    )


@dataclass(frozen=True)
class Energy:
    """Output tokens per joule and per second per MW of accelerator power at a reading."""

    power_w_per_accelerator: float
    power_source: str  # "measured" or "tdp"
    output_tokens_per_joule: float
    output_tokens_per_s_per_mw: float


def energy_at(reading: FrontReading, *, tdp_w=None) -> Energy | None:
    """Measured power where both bracketing points measured it (linear in interactivity between them),
    else the TDP, marked "tdp"; None when neither exists."""
    low_w, high_w = reading.lower.power_w_per_accelerator, reading.upper.power_w_per_accelerator
    if low_w is not None and high_w is not None:
        x0, x1 = reading.lower.interactivity_tps_per_user, reading.upper.interactivity_tps_per_user
        share = 0.0 if x1 == x0 else (reading.target_interactivity_tps_per_user - x0) / (x1 - x0)
        power_w, source = low_w + share * (high_w - low_w), "measured"
    elif tdp_w is not None and float(tdp_w) > 0:
        power_w, source = float(tdp_w), "tdp"
    else:
        return None
    per_joule = reading.output_tokens_per_s_per_accelerator / power_w
    return Energy(power_w, source, per_joule, per_joule * 1e6)


@dataclass(frozen=True)
class ServingCapacity:
    """Replicas for a demand at a target interactivity, and what they cost."""

    demand_output_tokens_per_s: Decimal
    replicas: int
    accelerators_per_replica: int
    accelerators: int
    monthly_usd: Decimal
    annual_usd: Decimal
    headroom_fraction: Decimal


def capacity_at(
    reading: FrontReading,
    *,
    demand_output_tokens_per_s,
    hourly_usd_per_accelerator,
    max_utilization,
    accelerators_per_replica: int | None = None,
) -> ServingCapacity:
    """replicas = ceil(demand / (replica output tokens/s at the target x max utilization)).

    A replica is `accelerators_per_replica` (the deployable unit), else the larger of the two bracketing
    measurements' systems; demand is in output tokens/s (N concurrent users x tokens/s per user, or
    requests/s x output tokens per request).
    """
    demand = costing.to_decimal(demand_output_tokens_per_s, "demand_output_tokens_per_s")
    per_replica = accelerators_per_replica or reading.accelerators_per_replica
    replica_tps = costing.to_decimal(reading.output_tokens_per_s_per_accelerator, "throughput") * per_replica
    hourly = costing.to_decimal(hourly_usd_per_accelerator, "hourly_usd_per_accelerator") * per_replica
    sized = costing.capacity(
        target_qps=demand, throughput_per_s=replica_tps, max_utilization=max_utilization, hourly_usd=hourly
    )
    return ServingCapacity(
        demand, sized.units, per_replica, sized.units * per_replica, sized.monthly_usd, sized.annual_usd,
        sized.headroom_fraction,
    )  # fmt: skip


def _positive_product(**factors) -> Decimal:
    """The product of two named figures, each of which must be greater than zero (the error names both)."""
    (first_name, first), (second_name, second) = ((name, costing.to_decimal(v, name)) for name, v in factors.items())
    if first <= 0 or second <= 0:
        raise ValueError(f"{first_name} and {second_name} must be greater than zero")
    return first * second


def users_demand(*, concurrent_users, tokens_per_s_per_user) -> Decimal:
    """Output tokens/s that N users each streaming at X tokens/s need."""
    return _positive_product(concurrent_users=concurrent_users, tokens_per_s_per_user=tokens_per_s_per_user)


def requests_demand(*, requests_per_s, output_tokens_per_request) -> Decimal:
    """Output tokens/s that R requests/s of a stated output length need (the token model's conversion)."""
    return output_tokens_per_s_for_requests(
        requests_per_s=requests_per_s, output_tokens_per_request=output_tokens_per_request
    )


def tie_groups(intervals: Sequence[tuple[Decimal, Decimal]]) -> list[int]:
    """Group numbers for rows sorted by cost: a row whose (low, high) interval overlaps the next row's
    shares its group (chains included). A row with no interval passes (cost, cost)."""
    groups, group, reach = [], 0, None
    for low, high in intervals:
        if reach is not None and low > reach:
            group += 1
            reach = None
        groups.append(group)
        reach = high if reach is None else max(reach, high)
    return groups
