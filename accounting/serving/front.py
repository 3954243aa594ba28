"""LLM serving fronts: output tokens/s per accelerator against interactivity, read at a target speed.

Plain Python and scipy (no Django, no database), so the rules can be tested alone and reused by the
rankings, recommendations, cost series and the dashboard.

- Interactivity is tokens/s per user = 1000 / TPOT ms. A point's TPOT is its measured TPOT p99 when
  it has one; a published point whose only latency figure is its scenario's TPOT bound gets
  1000 / bound, labelled as such (a point that met TPOT p99 <= bound serves every user at least that
  fast, so the figure is a floor, never a measurement). A point with neither (an Offline result, one
  query holding every sample) has no interactivity and stays off the front, with that reason.
- Throughput per accelerator = the replica's output tokens/s / the replica's accelerator count.
- The front is the Pareto-efficient set: no other point is at least as fast per user *and* at least
  as productive per accelerator. Sorted by interactivity it rises strictly in interactivity and falls
  strictly in throughput.
- A target interactivity is read along the front with scipy's PchipInterpolator (monotone piecewise
  cubic: between two measured points it stays between their throughputs), and only inside the measured
  range: a target outside it is refused with the reason, never extrapolated.
"""

from __future__ import annotations

import math
import statistics
from collections.abc import Iterable
from dataclasses import dataclass, field
from enum import StrEnum

from scipy.interpolate import PchipInterpolator


class InteractivitySource(StrEnum):
    MEASURED_TPOT_P99 = "measured TPOT p99"
    TPOT_BOUND = "scenario TPOT bound (interactivity at least this; not a measured figure)"


class Refused(ValueError):
    """A reading the front cannot give; ``reason`` says why in words a user can act on."""

    def __init__(self, reason: str):
        super().__init__(reason)
        self.reason = reason


def _finite_positive(value, name: str) -> float:
    if value is None or isinstance(value, bool) or not math.isfinite(float(value)) or float(value) <= 0:
        raise ValueError(f"{name} must be a finite number greater than zero, got {value!r}")
    return float(value)


@dataclass(frozen=True)
class ServingPoint:
    """One measured (or published) load level of an LLM replica.

    ``key`` traces the point to what is stored (e.g. ``run <uuid> point 0``); ``label`` names it for
    people. Throughput and power are the replica's (all its accelerators together);
    ``output_tokens_per_s_values`` holds the figure of each round or run when there were several.
    """

    key: str
    label: str
    output_tokens_per_s: float
    accelerators_per_replica: int
    tpot_ms: float | None
    interactivity_source: InteractivitySource | None = None
    ttft_p99_ms: float | None = None
    scenario: str = ""
    output_tokens_per_s_values: tuple[float, ...] = ()
    power_w: float | None = None
    extra: dict = field(default_factory=dict, compare=False, hash=False)

    def __post_init__(self):
        _finite_positive(self.output_tokens_per_s, "output_tokens_per_s")
        if not isinstance(self.accelerators_per_replica, int) or self.accelerators_per_replica < 1:
            raise ValueError(
                f"accelerators_per_replica must be a whole number >= 1, got {self.accelerators_per_replica!r}"
            )
        if self.tpot_ms is not None:
            _finite_positive(self.tpot_ms, "tpot_ms")
            if self.interactivity_source is None:
                raise ValueError("a point with tpot_ms must say where it comes from (interactivity_source)")
        for value in self.output_tokens_per_s_values:
            _finite_positive(value, "output_tokens_per_s_values")
        if self.power_w is not None:
            _finite_positive(self.power_w, "power_w")

    @property
    def output_tokens_per_s_per_accelerator(self) -> float:
        return self.output_tokens_per_s / self.accelerators_per_replica

    @property
    def interactivity_tps_per_user(self) -> float | None:
        return None if self.tpot_ms is None else 1000.0 / self.tpot_ms

    @property
    def power_w_per_accelerator(self) -> float | None:
        return None if self.power_w is None else self.power_w / self.accelerators_per_replica

    @property
    def interval_per_accelerator(self) -> tuple[float, float] | None:
        """(lowest, highest) per-accelerator figure over its rounds/runs, when it has two or more."""
        if len(self.output_tokens_per_s_values) < 2:
            return None
        n = self.accelerators_per_replica
        return min(self.output_tokens_per_s_values) / n, max(self.output_tokens_per_s_values) / n


@dataclass(frozen=True)
class Front:
    """The Pareto-efficient points (by rising interactivity) and every other point with its reason."""

    points: tuple[ServingPoint, ...]
    excluded: tuple[tuple[ServingPoint, str], ...] = ()

    @property
    def interactivity_range(self) -> tuple[float, float] | None:
        if not self.points:
            return None
        return self.points[0].interactivity_tps_per_user, self.points[-1].interactivity_tps_per_user


def pareto_front(points: Iterable[ServingPoint]) -> Front:
    """The points no other point beats on both interactivity and throughput per accelerator."""
    placed, excluded = [], []
    for point in points:
        if point.interactivity_tps_per_user is None:
            why = f"no TPOT measured or bounded ({point.scenario or 'scenario unknown'}): interactivity unknown"
            excluded.append((point, why))
        else:
            placed.append(point)
    # Fastest per user first; among equals the most productive first; the key makes ties deterministic.
    placed.sort(key=lambda p: (-p.interactivity_tps_per_user, -p.output_tokens_per_s_per_accelerator, p.key))
    front, best = [], None
    for point in placed:
        if best is None or point.output_tokens_per_s_per_accelerator > best.output_tokens_per_s_per_accelerator:
            front.append(point)
            best = point
        else:
            excluded.append((point, f"dominated by {best.label} ({best.key})"))
    return Front(points=tuple(reversed(front)), excluded=tuple(excluded))


@dataclass(frozen=True)
class FrontReading:
    """Throughput per accelerator at a target interactivity, with the two measured points it lies between.

    ``lower``/``upper`` are the front points at or just below / at or just above the target (the same
    point when the target is one's interactivity: ``exact``). ``interval`` is (low, high) per
    accelerator when a bracketing point was measured in several rounds or runs (see
    ``INTERVAL_METHOD``), else None.
    """

    target_interactivity_tps_per_user: float
    output_tokens_per_s_per_accelerator: float
    lower: ServingPoint
    upper: ServingPoint
    exact: bool
    interval: tuple[float, float] | None
    method: str

    @property
    def accelerators_per_replica(self) -> int:
        """The deployable unit: the larger of the two bracketing measurements' replicas."""
        return max(self.lower.accelerators_per_replica, self.upper.accelerators_per_replica)


INTERPOLATION_METHOD = "scipy.interpolate.PchipInterpolator along the Pareto front (monotone; no extrapolation)"
INTERVAL_METHOD = (
    "range (min-max) of each front point's per-round or per-run figures, read along the same PCHIP "
    "interpolation at the target; points measured once count at their single figure. Runs of one point: "
    "the harness's rounds, or published results of the same system design, round and scenario from "
    "several submitters (the point is their median throughput and median TPOT p99)"
)


def read_at_interactivity(front: Front, target_tps_per_user) -> FrontReading:
    """Throughput per accelerator at ``target_tps_per_user`` along ``front``; Refused outside its range."""
    target = _finite_positive(target_tps_per_user, "target interactivity (tokens/s per user)")
    if not front.points:
        reasons = sorted({why for _, why in front.excluded}) or ["no points"]
        raise Refused(f"no point with a known interactivity to read from ({'; '.join(reasons)})")
    xs = [p.interactivity_tps_per_user for p in front.points]
    slowest, fastest = front.points[0], front.points[-1]
    if target > xs[-1]:
        raise Refused(
            f"target {target:g} tokens/s per user is above the fastest measured interactivity "
            f"{xs[-1]:.4g} ({fastest.label}); refusing to extrapolate"
        )
    if target < xs[0]:
        raise Refused(
            f"target {target:g} tokens/s per user is below the slowest measured interactivity "
            f"{xs[0]:.4g} ({slowest.label}); refusing to extrapolate (that point serves users faster "
            "than asked: its cost is an upper bound, not a reading)"
        )
    for point in front.points:
        if point.interactivity_tps_per_user == target:
            return FrontReading(
                target, point.output_tokens_per_s_per_accelerator, point, point, True,
                point.interval_per_accelerator, "measured point (no interpolation)",
            )  # fmt: skip
    upper_index = next(i for i, x in enumerate(xs) if x > target)
    lower, upper = front.points[upper_index - 1], front.points[upper_index]
    ys = [p.output_tokens_per_s_per_accelerator for p in front.points]
    value = float(PchipInterpolator(xs, ys)(target))
    interval = None
    if lower.interval_per_accelerator or upper.interval_per_accelerator:
        lows = [(p.interval_per_accelerator or (y, y))[0] for p, y in zip(front.points, ys, strict=True)]
        highs = [(p.interval_per_accelerator or (y, y))[1] for p, y in zip(front.points, ys, strict=True)]
        interval = (float(PchipInterpolator(xs, lows)(target)), float(PchipInterpolator(xs, highs)(target)))
    return FrontReading(target, value, lower, upper, False, interval, INTERPOLATION_METHOD)


def read_within(front: Front, target_tps_per_user, meeting: Iterable[ServingPoint]) -> FrontReading:
    """At an SLA: ``front`` read at the target speed (1000 / TPOT bound) where it reaches it; where every
    point of ``meeting`` (the points that meet the SLA, decided by the caller's SLA rule) serves users
    faster than the target asks, so the target lies below the front, the most productive of them, as
    measured (never extrapolated). Refused when ``meeting`` is empty."""
    meeting = list(meeting)
    if not meeting:
        raise Refused("no point meets the SLA")
    try:
        return read_at_interactivity(front, target_tps_per_user)
    except Refused:
        if front.points and float(target_tps_per_user) > front.points[-1].interactivity_tps_per_user:
            raise
    best = max(meeting, key=lambda p: (p.output_tokens_per_s_per_accelerator, p.key))
    return FrontReading(
        float(target_tps_per_user), best.output_tokens_per_s_per_accelerator, best, best, True,
        best.interval_per_accelerator, SLOWEST_MEETING_METHOD,
    )  # fmt: skip


SLOWEST_MEETING_METHOD = (
    "measured point (no interpolation): every point meeting the SLA serves users faster than it asks; "
    "the most productive of them"
)


def best_covered_target(fronts: Iterable[Front]) -> float | None:
    """A default target: the measured interactivity (a front's end) that the most fronts can be read at;
    among equals the slowest. None when no front has a point."""
    ranges = [front.interactivity_range for front in fronts if front.interactivity_range]
    candidates = sorted({x for pair in ranges for x in pair})
    if not candidates:
        return None
    return max(candidates, key=lambda x: (sum(low <= x <= high for low, high in ranges), -x))


def front_curve(front: Front, *, samples: int = 60) -> list[tuple[float, float]]:
    """The front as the reading sees it: the PCHIP curve through its points, for drawing."""
    if len(front.points) < 2:
        return [(p.interactivity_tps_per_user, p.output_tokens_per_s_per_accelerator) for p in front.points]
    measured = {p.interactivity_tps_per_user: p.output_tokens_per_s_per_accelerator for p in front.points}
    xs = list(measured)
    curve = PchipInterpolator(xs, list(measured.values()))
    grid = sorted({*xs, *(xs[0] + (xs[-1] - xs[0]) * i / (samples - 1) for i in range(1, samples - 1))})
    return [(x, measured[x] if x in measured else float(curve(x))) for x in grid]


def combine_runs(points: list[ServingPoint], *, key: str, label: str) -> ServingPoint:
    """Several runs of one point (same system, software and scenario) as one point: the median output
    tokens/s and median TPOT p99, the worst TTFT p99, every run's figure kept for the interval."""
    first = points[0]
    if len(points) == 1:
        return first
    if len({p.accelerators_per_replica for p in points}) != 1:
        raise ValueError("runs of one point must share the replica's accelerator count")
    tpots = [p.tpot_ms for p in points]
    measured = all(p.interactivity_source == InteractivitySource.MEASURED_TPOT_P99 for p in points)
    ttfts = [p.ttft_p99_ms for p in points]
    powers = [p.power_w for p in points]
    values = tuple(v for p in points for v in (p.output_tokens_per_s_values or (p.output_tokens_per_s,)))
    return ServingPoint(
        key=key,
        label=label,
        output_tokens_per_s=statistics.median(p.output_tokens_per_s for p in points),
        accelerators_per_replica=first.accelerators_per_replica,
        tpot_ms=None if None in tpots else statistics.median(tpots),
        interactivity_source=None
        if None in tpots
        else (InteractivitySource.MEASURED_TPOT_P99 if measured else InteractivitySource.TPOT_BOUND),
        ttft_p99_ms=None if None in ttfts else max(ttfts),
        scenario=first.scenario,
        output_tokens_per_s_values=values,
        power_w=None if None in powers else statistics.median(powers),
        extra={**first.extra, **_median_lengths(points), "runs": [p.extra for p in points]},
    )


def _median_lengths(points: list[ServingPoint]) -> dict:
    lengths = {}
    for name in ("input_tokens_per_request", "output_tokens_per_request"):
        found = [p.extra.get(name) for p in points]
        lengths[name] = None if None in found else statistics.median(found)
    return lengths
