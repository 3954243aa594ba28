"""The measured noise of a cost figure, and whether a change lies within it.

A snapshot's cost per million is its hourly cost divided by its throughput. The hourly cost comes from
price rows and assumptions, which are exact; the throughput is a measurement whose noise the harness
records: every operating point is measured in several rounds (the payload's ``points[].rounds``, kept
in ``BenchmarkRun.payload``), and the spread of the rounds' figures, (max - min) / median, is that
point's relative noise. A change in throughput no larger than the larger noise of the two points
compared, with the hourly cost unchanged, is noise: no alarm is raised for it.
"""

from __future__ import annotations

import statistics

from scipy import stats


def relative_spread(rounds: dict | None) -> float | None:
    """(max - min) / median of a point's round figures; None with fewer than two rounds."""
    values = [float(v) for v in (rounds or {}).get("values") or [] if v is not None]
    if len(values) < 2:
        return None
    middle = statistics.median(values)
    return (max(values) - min(values)) / middle if middle > 0 else None


def point_rounds(run, index: int) -> dict | None:
    """The rounds block of a run's point, from the payload it was ingested from."""
    points = (getattr(run, "payload", None) or {}).get("points") or []
    return points[index].get("rounds") if 0 <= index < len(points) else None


def throughput_noise(baseline_rounds: dict | None, rounds: dict | None) -> float | None:
    """The larger relative spread of the two points compared; None when neither was measured in rounds."""
    spreads = [s for s in (relative_spread(baseline_rounds), relative_spread(rounds)) if s is not None]
    return max(spreads) if spreads else None


def within_noise(
    *,
    baseline_throughput_per_s: float,
    throughput_per_s: float,
    baseline_usd_per_hour,
    usd_per_hour,
    noise_fraction: float | None,
) -> bool:
    """True when the hourly cost is unchanged and the throughput moved by no more than its measured noise."""
    if noise_fraction is None or baseline_usd_per_hour != usd_per_hour or baseline_throughput_per_s <= 0:
        return False
    change = abs(throughput_per_s - baseline_throughput_per_s) / baseline_throughput_per_s
    return change <= noise_fraction


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
