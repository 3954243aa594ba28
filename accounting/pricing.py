"""The hourly cost and energy at an operating point (prices come from hardware_catalog.selectors)."""

from hardware_catalog.models import Accelerator, OnPremAssumptions, Price, PriceKind

from . import costing
from .estimates import HourlyOffer, hourly_offer


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
