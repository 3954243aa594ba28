"""The measured uncertainty of a cost figure: its interval, and whether a change lies within it.

A snapshot's cost per million is its hourly cost divided by its throughput. The hourly cost comes from
price rows and assumptions, which are exact; the throughput is a measurement: every operating point is
measured in several rounds and stored as the median of its rounds with an exact order-statistic interval
(harness.rounds), which the snapshot turns into its cost interval (``CostSnapshot.cost_interval_usd``). Two
figures whose cost intervals overlap cannot be told apart by the measurement: the ranking calls them a tie,
and a change between them raises no alarm. That is one rule (``serving.economics.tie_groups``), and a figure
without an interval (a published result, a run measured before intervals were stored) is its cost alone.
"""

from __future__ import annotations

import statistics
from decimal import Decimal

from scipy import stats

from accounting.pricing.money import usd_text
from accounting.serving.economics import tie_groups


def point_rounds(run, index: int) -> dict | None:
    """The rounds block of a run's point, from the payload it was ingested from."""
    points = (getattr(run, "payload", None) or {}).get("points") or []
    return points[index].get("rounds") if 0 <= index < len(points) else None


def within_uncertainty(
    before_usd: Decimal, before_interval: tuple | None, after_usd: Decimal, after_interval: tuple | None
) -> bool:
    """True when the two figures' cost intervals overlap: the change lies within the measurement's own uncertainty.

    Worked: before $10.00 [$9.50, $10.60], after $10.80 [$10.40, $11.30]: they share $10.40-$10.60, so True;
    after $12.00 [$11.70, $12.40] starts above $10.60, so False.
    """
    figures = sorted([(before_usd, before_interval), (after_usd, after_interval)], key=lambda figure: figure[0])
    groups = tie_groups([interval or (cost, cost) for cost, interval in figures])
    return groups[0] == groups[1]


def interval_text(cost_usd: Decimal, interval: tuple | None) -> str:
    """ "$10.00 [$9.50, $10.60]", or "$10.00 (no interval)" for a figure without one."""
    if interval is None:
        return f"{usd_text(cost_usd)} (no interval)"
    return f"{usd_text(cost_usd)} [{usd_text(interval[0])}, {usd_text(interval[1])}]"


CONFIDENCE = 0.95


def confidence_half_width(rounds: dict | None) -> float | None:
    """The half-width of the 95 % confidence interval of the mean of a point's round figures, relative to that mean
    (Student's t over the rounds: t(0.975, n - 1) x s / sqrt(n) / mean); None with fewer than two rounds.

    Unlike (max - min) / median, this narrows as rounds agree and never reads a point's own latency tail as noise:
    it is how far the point's figure itself could move between measurements.
    """
    values = [float(v) for v in (rounds or {}).get("values") or [] if v is not None]
    if len(values) < 2:
        return None
    mean = statistics.fmean(values)
    if mean <= 0:
        return None
    t = stats.t.ppf((1 + CONFIDENCE) / 2, len(values) - 1)
    return float(t * stats.sem(values) / mean)
