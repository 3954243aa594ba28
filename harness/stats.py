"""Small statistics helpers shared by scenarios: nanosecond samples -> millisecond summaries."""

from __future__ import annotations

import math
from collections.abc import Sequence

NS_PER_MS = 1e6
LATENCY_KEYS = ("min", "mean", "p50", "p90", "p95", "p99", "p99_9", "max")


def percentile(sorted_values: Sequence[float], fraction: float) -> float:
    """LoadGen's convention: the value at index floor(n * fraction) of the sorted samples."""
    if not sorted_values:
        raise ValueError("no samples")
    index = min(len(sorted_values) - 1, math.floor(len(sorted_values) * fraction))
    return float(sorted_values[index])


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
