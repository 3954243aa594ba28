"""Prices and assumption sets for many accelerators at once, and the hourly cost at an operating point.

Bulk lookups keep the rankings at a fixed number of SQL queries however many accelerators there are.
"""

from datetime import datetime

from django.utils import timezone

from hardware_catalog.models import Accelerator, OnPremAssumptions, Price, PriceKind
from hardware_catalog.selectors import onprem_assumptions_in_force

from . import costing
from .estimates import HourlyOffer, hourly_offer


def cheapest_prices_in_force(
    accelerators: list[Accelerator], *, kind: str, at: datetime | None = None, region=None, provider=None
) -> dict[int, Price]:
    """{accelerator id: cheapest offering of `kind` in force at `at`}, in one query.

    Prices are looked up on the accelerator each one is priced as (a local CPU on its cloud slice).
    """
    pricing_ids = {accelerator.pricing_accelerator.pk for accelerator in accelerators}
    rows = Price.objects.filter(kind=kind, accelerator_id__in=pricing_ids).in_force(at or timezone.now())
    rows = rows.select_related("accelerator")
    if region:
        rows = rows.filter(region=region)
    if provider:
        rows = rows.filter(provider__iexact=provider)
    cheapest: dict[int, Price] = {}
    for price in rows:
        held = cheapest.get(price.accelerator_id)
        if held is None or (price.usd_per_accelerator, price.pk) < (held.usd_per_accelerator, held.pk):
            cheapest[price.accelerator_id] = price
    return {
        accelerator.pk: cheapest[accelerator.pricing_accelerator.pk]
        for accelerator in accelerators
        if accelerator.pricing_accelerator.pk in cheapest
    }


def assumptions_in_force(at: datetime | None = None, name: str = "default") -> OnPremAssumptions:
    """The latest version of the set created at or before `at`; the current set when none is that old."""
    if at is not None:
        found = OnPremAssumptions.objects.filter(name=name, created_at__lte=at).order_by("-version").first()
        if found is not None:
            return found
    return onprem_assumptions_in_force(name)


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


def energy_j(point, throughput_per_s: float, power_w) -> float | None:
    """Joules per inference (or per output token): the stored figure, else power / throughput."""
    if point.energy_j_per_inference is not None:
        return point.energy_j_per_inference
    if power_w is None or not throughput_per_s:
        return None
    return float(costing.energy_j_per_inference(power_w=power_w, throughput_per_s=throughput_per_s))
