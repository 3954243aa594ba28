"""The hourly cost of an offering, stated once: one accelerator under one price row (and, for a purchase,
one on-prem assumption set), at a stated throughput or at a measured operating point.

The arithmetic is in costing (cloud_hourly_cost, onprem_hourly_cost); the price in force and the assumption
set in force come from hardware_catalog.selectors. Everything that needs an hourly cost (rankings,
snapshots, comparisons, recommendations, the cost-estimate endpoint) goes through hourly_offer.
"""

from dataclasses import dataclass
from datetime import datetime
from decimal import Decimal

from accounting.pricing import costing
from hardware_catalog.models import Accelerator, OnPremAssumptions, Price, PriceKind
from hardware_catalog.selectors import cheapest_price_in_force, onprem_assumptions_in_force


class NoPriceError(ValueError):
    """The catalog has no price of the asked kind in force for the accelerator at that time."""


def no_price_reason(price_kind: str, at: datetime, *, region=None, provider=None) -> str:
    """Why an accelerator has no cost on `price_kind`, as a ranking lists it (the filters asked for named)."""
    named = [f"region {region}" if region else "", f"provider {provider}" if provider else ""]
    where = "".join(f" in {part}" for part in named if part)
    return f"no {price_kind} price in force at {at.date().isoformat()}{where}"


@dataclass(frozen=True)
class HourlyOffer:
    """An accelerator's hourly cost, with the price row and assumption set that produced it."""

    accelerator: Accelerator
    price_kind: str
    price: Price | None
    assumptions: OnPremAssumptions | None
    hourly: costing.HourlyCost


def hourly_offer(
    accelerator: Accelerator,
    *,
    price_kind: str,
    at: datetime | None = None,
    measured_power_w=None,
    assumptions: OnPremAssumptions | None = None,
    price: Price | None = None,
) -> HourlyOffer:
    """Cloud kinds: the cheapest offering in force. Purchase: on-prem amortization with the assumptions."""
    price = price or cheapest_price_in_force(accelerator, kind=price_kind, at=at)
    if price is None:
        raise NoPriceError(f"no {price_kind} price for {accelerator} is in force at {at or 'the current time'}")
    if price_kind != PriceKind.PURCHASE:
        hourly = costing.cloud_hourly_cost(
            instance_price_usd_per_hour=price.price_usd,
            accelerators_per_instance=price.accelerators_per_instance,
        )
        return HourlyOffer(accelerator, price_kind, price, None, hourly)
    assumptions = assumptions or onprem_assumptions_in_force(at=at)
    hourly = costing.onprem_hourly_cost(
        accelerator_price_usd=price.usd_per_accelerator,
        host_capex_share_usd=assumptions.host_capex_share_usd,
        amortization_years=assumptions.amortization_years,
        opex_fraction_per_year=assumptions.opex_fraction_per_year,
        usd_per_kwh=assumptions.usd_per_kwh,
        pue=assumptions.pue,
        measured_power_w=measured_power_w,
        tdp_w=accelerator.tdp_w,
    )
    return HourlyOffer(accelerator, price_kind, price, assumptions, hourly)


@dataclass(frozen=True)
class CostEstimate:
    offer: HourlyOffer
    throughput_per_s: Decimal
    utilization: Decimal
    cost_per_million_usd: Decimal


def estimate_cost(
    accelerator: Accelerator,
    *,
    price_kind: str,
    throughput_per_s,
    utilization=Decimal("1"),
    measured_power_w=None,
    at: datetime | None = None,
    assumptions: OnPremAssumptions | None = None,
) -> CostEstimate:
    offer = hourly_offer(
        accelerator, price_kind=price_kind, at=at, measured_power_w=measured_power_w, assumptions=assumptions
    )
    per_million = costing.cost_per_million(
        hourly_usd=offer.hourly.total_usd_per_hour, throughput_per_s=throughput_per_s, utilization=utilization
    )
    return CostEstimate(
        offer=offer,
        throughput_per_s=costing.to_decimal(throughput_per_s, "throughput_per_s"),
        utilization=costing.to_decimal(utilization, "utilization"),
        cost_per_million_usd=per_million,
    )


def offer_at_point(
    accelerator: Accelerator, point, *, price: Price, assumptions: OnPremAssumptions | None
) -> HourlyOffer:
    """The hourly cost of running at `point`: measured mean power when the point has it, else TDP."""
    return hourly_offer(
        accelerator,
        price_kind=price.kind,
        price=price,
        assumptions=assumptions if price.kind == PriceKind.PURCHASE else None,
        measured_power_w=point.power_w_mean,
    )
