"""The serving fronts read under an LLM SLA, deciding which points meet it by the one SLA rule
(``accounting.sla``): the serving ranking and the rankings cannot disagree on whether a point meets an SLA.

A serving point carries the figures ``accounting.sla.figure`` gives its stored point (its measured TTFT and
TPOT p99, or a published result's MLPerf bounds where it is VALID without percentiles: "met by validity").
Under TTFT <= a and TPOT <= b: the front is built from the points meeting the TTFT bound and read at
1000 / b tokens/s per user; a front whose every point meeting the SLA serves users faster than that is read
at the most productive of those points; a front with no point meeting the SLA is refused with the reason
``accounting.sla.unmet_reason`` gives (the rankings' words).
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

from accounting.policy import serving_target_tps_per_user
from accounting.serving.front import Front, FrontReading, Refused, ServingPoint, pareto_front, read_within
from accounting.sla import Sla, unmet_reason


def figures(point: ServingPoint) -> dict[str, float | None]:
    """The point's figures keyed by SLA bound name (a serving point has no whole-request p99)."""
    return {"ttft_p99_ms": point.ttft_p99_ms, "tpot_p99_ms": point.tpot_ms}


@dataclass(frozen=True)
class SlaReading:
    sla: Sla
    front: Front
    meeting: tuple[ServingPoint, ...]
    reading: FrontReading


def read_at_sla(points: Iterable[ServingPoint], sla: Sla) -> SlaReading:
    """Throughput per accelerator under ``sla`` (TTFT and TPOT p99 bounds); Refused, with the reason, when
    no point meets it."""
    target = serving_target_tps_per_user(sla)  # an LLM SLA states both bounds (the one rule, policy)
    points = list(points)
    ttft_only = sla.without("tpot_p99_ms")
    meeting_ttft = [p for p in points if ttft_only.holds(figures(p))]
    excluded = tuple((p, _why_not(p, ttft_only)) for p in points if p not in meeting_ttft)
    built = pareto_front(meeting_ttft)
    front = Front(built.points, built.excluded + excluded)
    meeting = tuple(p for p in meeting_ttft if sla.holds(figures(p)))
    if not meeting:
        best = {name: min(_present(figures(p)[name] for p in points), default=None) for name in sla.bounds}
        raise Refused(unmet_reason(sla, best))
    return SlaReading(sla, front, meeting, read_within(front, target, meeting))


def _present(values):
    return [value for value in values if value is not None]


def _why_not(point: ServingPoint, ttft_only: Sla) -> str:
    if point.ttft_p99_ms is None:
        return "no TTFT p99 measured or bounded: cannot show it meets the TTFT bound"
    return f"TTFT p99 {point.ttft_p99_ms:.4g} ms > {ttft_only.ttft_p99_ms} ms"
