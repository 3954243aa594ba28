"""Expected money figures, computed from the cost model's formula rather than pasted (see DESIGN.md)."""

from decimal import ROUND_HALF_UP, Decimal

from accounting.pricing.costing import PER_MILLION_QUANTUM


def per_million(hourly_usd, throughput_per_s, utilization=1) -> Decimal:
    """hourly / (throughput * 3600 * utilization) * 1e6, rounded as costs per million are stored."""
    hourly, throughput, share = (Decimal(str(value)) for value in (hourly_usd, throughput_per_s, utilization))
    return (hourly / (throughput * 3600 * share) * 1_000_000).quantize(PER_MILLION_QUANTUM, rounding=ROUND_HALF_UP)


def per_million_text(hourly_usd, throughput_per_s, utilization=1) -> str:
    """per_million() as the API serves it: the full Decimal string."""
    return str(per_million(hourly_usd, throughput_per_s, utilization))
