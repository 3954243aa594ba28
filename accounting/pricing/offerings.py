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
from accounting.pricing.utilization import default_utilization
from hardware_catalog.models import Accelerator, OnPremAssumptions, Price, PriceKind
from hardware_catalog.selectors import cheapest_price_in_force, onprem_assumptions_in_force, prices_in_force


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
    utilization=None,
    measured_power_w=None,
    at: datetime | None = None,
    assumptions: OnPremAssumptions | None = None,
) -> CostEstimate:
    offer = hourly_offer(
        accelerator, price_kind=price_kind, at=at, measured_power_w=measured_power_w, assumptions=assumptions
    )
    share = costing.to_decimal(default_utilization() if utilization is None else utilization, "utilization")
    per_million = costing.cost_per_million(
        hourly_usd=offer.hourly.total_usd_per_hour, throughput_per_s=throughput_per_s, utilization=share
    )
    return CostEstimate(
        offer=offer,
        throughput_per_s=costing.to_decimal(throughput_per_s, "throughput_per_s"),
        utilization=share,
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


@dataclass(frozen=True)
class UnitOffer:
    """A deployable unit of `accelerators` accelerators as it is sold: the price row used, and how it was read."""

    offer: HourlyOffer  # per accelerator, from the row that sells the unit
    accelerators: int
    instances: int  # instances of the row's size that make one unit
    sold_as: str

    @property
    def usd_per_hour(self) -> Decimal:
        """What the whole unit costs per hour (the stored per-accelerator total, times its accelerators)."""
        return self.offer.hourly.total_usd_per_hour * self.accelerators


def unit_offer(
    accelerator: Accelerator,
    *,
    accelerators: int,
    price_kind: str,
    at: datetime,
    measured_power_w=None,
    assumptions: OnPremAssumptions | None = None,
) -> UnitOffer:
    """The cheapest way the catalog sells a unit of `accelerators`, in this order:

    1. one instance of exactly that many accelerators (a tensor-parallel unit needs them in one host, on one
       interconnect: eight single-GPU VMs are not an 8-GPU server);
    2. whole instances of a size that divides the unit (8 = 8 x 1 or 4 x 2), labelled as such;
    3. a share of a larger instance, per accelerator, labelled as such (the instance would be bought whole).
    Within a step the lowest price per accelerator wins, ties to the older row (as cheapest_prices_in_force).
    """
    rows = [p for p in prices_in_force([accelerator], at=at)[accelerator.pk] if p.kind == price_kind]
    if not rows:
        raise NoPriceError(f"no {price_kind} price for {accelerator} is in force at {at}")
    whole = [p for p in rows if p.accelerators_per_instance == accelerators]
    divides = [p for p in rows if accelerators % p.accelerators_per_instance == 0]
    price = _cheapest(whole or divides or rows)
    per_instance = price.accelerators_per_instance
    row = f"price row {price.pk}: {price.provider} {price.instance_type or price_kind}".rstrip()
    if whole:
        instances, sold_as = 1, f"one {accelerators}-accelerator instance ({row})"
    elif divides:
        instances = accelerators // per_instance
        size = "single-accelerator" if per_instance == 1 else f"{per_instance}-accelerator"
        sold_as = f"{instances} {size} offerings ({row}): the catalog has no {accelerators}-accelerator instance"
    else:
        instances = 1
        sold_as = (
            f"{accelerators} of the {per_instance} accelerators of one instance, priced per accelerator ({row}): "
            f"the catalog has no instance of {accelerators} or a size that divides it"
        )
    offer = hourly_offer(
        accelerator,
        price_kind=price_kind,
        price=price,
        assumptions=assumptions if price_kind == PriceKind.PURCHASE else None,
        measured_power_w=measured_power_w,
        at=at,
    )
    return UnitOffer(offer, accelerators, instances, sold_as)


def _cheapest(rows: list[Price]) -> Price:
    return min(rows, key=lambda price: (price.usd_per_accelerator, price.pk))
