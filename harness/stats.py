"""Small statistics helpers shared by scenarios: nanosecond samples -> millisecond summaries."""

from __future__ import annotations

import math
import statistics
from collections.abc import Sequence

from scipy.stats import binom

NS_PER_MS = 1e6
LATENCY_KEYS = ("min", "mean", "p50", "p90", "p95", "p99", "p99_9", "max")


def percentile(sorted_values: Sequence[float], fraction: float) -> float:
    """LoadGen's convention: the value at index floor(n * fraction) of the sorted samples."""
    if not sorted_values:
        raise ValueError("no samples")
    index = min(len(sorted_values) - 1, math.floor(len(sorted_values) * fraction))
    return float(sorted_values[index])


def p99_index(values: Sequence[float]) -> int:
    """The index (into ``values``, unsorted) of the value at their p99 by LoadGen's convention (``percentile``)."""
    if not values:
        raise ValueError("no samples")
    order = sorted(range(len(values)), key=values.__getitem__)
    return order[min(len(values) - 1, math.floor(len(values) * 0.99))]


def split_summary_ms(values_ns: Sequence[int]) -> dict | None:
    """{"mean", "p50", "p99"} in ms for one component of the SUT's split (None when empty)."""
    if not values_ns:
        return None
    ordered = sorted(values_ns)
    return {
        "mean": sum(ordered) / len(ordered) / NS_PER_MS,
        "p50": percentile(ordered, 0.50) / NS_PER_MS,
        "p99": percentile(ordered, 0.99) / NS_PER_MS,
    }


def latency_summary_ms(values_ns: Sequence[int]) -> dict:
    """The full latency block (min, mean, p50..p99.9, max) in ms from raw samples."""
    ordered = sorted(values_ns)
    out = {
        "min": ordered[0] / NS_PER_MS,
        "max": ordered[-1] / NS_PER_MS,
        "mean": sum(ordered) / len(ordered) / NS_PER_MS,
    }
    for key, fraction in (("p50", 0.5), ("p90", 0.9), ("p95", 0.95), ("p99", 0.99), ("p99_9", 0.999)):
        out[key] = percentile(ordered, fraction) / NS_PER_MS
    return out


def loadgen_latency_ms(latency_ns: dict) -> dict:
    """LoadGen's parsed latency block (ns) -> the payload's ``latency_ms`` keys."""
    missing = [k for k in LATENCY_KEYS if k not in latency_ns]
    if missing:
        raise ValueError(f"LoadGen log lacks latency fields {missing}")
    return {k: float(latency_ns[k]) / NS_PER_MS for k in LATENCY_KEYS}


# The confidence asked of a point's interval; with few rounds the exact interval cannot reach it and states
# the confidence it has (3 rounds: 75%; 6 or more reach 95%).
ROUNDS_CONFIDENCE = 0.95
MEDIAN_INTERVAL_METHOD = "exact binomial order-statistic interval for the median (scipy.stats.binom)"


def relative_spread(values: Sequence[float]) -> float:
    """(max - min) / median: how far a point's rounds disagree (0 for one round)."""
    middle = statistics.median(values)
    return (max(values) - min(values)) / middle if middle > 0 else math.inf


def median_interval(values: Sequence[float], confidence: float = ROUNDS_CONFIDENCE) -> dict:
    """The median of ``values`` with a distribution-free interval: the k-th smallest and k-th largest value,
    k the largest whose coverage 1 - 2 * P(Binomial(n, 1/2) <= k - 1) reaches ``confidence`` (else k = 1,
    min to max, with the coverage it has). Exact for any continuous distribution of rounds, unlike a
    bootstrap, which with 2-6 rounds resamples too few values to mean anything.

    Worked: 3 rounds [300, 350, 380] -> median 350, interval [300, 380] at 1 - 2 * (1/2)**3 = 75%.
    """
    ordered, n = sorted(float(v) for v in values), len(values)
    if n == 0:
        raise ValueError("no rounds")
    k = 1
    while k + 1 <= n // 2 and 1 - 2 * binom.cdf(k, n, 0.5) >= confidence:
        k += 1
    coverage = float(1 - 2 * binom.cdf(k - 1, n, 0.5)) if n > 1 else 0.0
    return {"median": statistics.median(ordered), "low": ordered[k - 1], "high": ordered[n - k],
            "confidence": coverage, "method": MEDIAN_INTERVAL_METHOD}  # fmt: skip


# LoadGen's early stopping (loadgen/early_stopping.cc) proves a latency percentile with this confidence.
EARLY_STOPPING_CONFIDENCE = 0.99


def early_stopping_min_queries(percentile_fraction: float, confidence: float = EARLY_STOPPING_CONFIDENCE) -> int:
    """The fewest queries with which LoadGen's early stopping can prove ``percentile_fraction`` (0.99 for the
    Server scenario's p99) when no query is over latency: the smallest n with ``percentile_fraction ** n <=
    1 - confidence`` (the binomial chance of n queries all under latency if the true percentile were just
    met). Any query over latency raises it. p99: ln(0.01) / ln(0.99) = 458.2, so 459."""
    return math.ceil(math.log(1 - confidence) / math.log(percentile_fraction))
