"""The operating point an answer uses, stated once: the Python rule and its SQL form, side by side.

Throughput counts the workload's unit of work: output tokens/s for LLM workloads (the point's
`output_tokens_per_s`, or `throughput_per_s` when the point's unit is already output tokens; NULL
otherwise), else `throughput_per_s` (inferences or samples per second). All figures are per accelerator.

A point meets an SLA when every bound the SLA states holds:
  - `p99_ms`: the whole-request latency p99 (`latency_p99_ms`);
  - `ttft_p99_ms` and `tpot_p99_ms` (LLM workloads): the point's TTFT p99 and TPOT p99. A published
    (MLPerf) Server or Interactive result is VALID only if MLPerf's TTFT/TPOT bounds for that scenario
    held, so where it publishes no percentiles (a summary-only tree) it carries those bounds as its
    figures ("met by validity": it meets an SLA at least as loose as MLPerf's, and no tighter one);
    where it publishes them they are used, like our measurements. A point with no figure at all (MLPerf
    Offline results, our Offline points) does not meet a TTFT/TPOT bound: under such an SLA it is listed
    as infeasible saying so, and it ranks only with no SLA.
The chosen point: among the points with a positive throughput that meet the SLA, the highest throughput;
ties go to the lower p99, then to the lower id. Bounds are compared in floating point, as the database
compares the stored floats, so the two forms agree to the last bit (tests/accounting/test_operating_points.py).
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from decimal import Decimal

from django.db.models import Case, F, FloatField, Min, Value, When, Window
from django.db.models.functions import RowNumber

from accounting.pricing import costing
from workloads import LlmSla, Unit, Workload

# SLA bound name -> the OperatingPoint field it bounds.
_BOUNDED_FIELDS = {"p99_ms": "latency_p99_ms", "ttft_p99_ms": "ttft_p99_ms", "tpot_p99_ms": "tpot_p99_ms"}
_LABELS = {"p99_ms": "p99", "ttft_p99_ms": "TTFT p99", "tpot_p99_ms": "TPOT p99"}
OUTPUT_TOKENS = Unit.OUTPUT_TOKENS.value


@dataclass(frozen=True)
class Sla:
    """Latency bounds in ms; a bound left None is not constrained. Sla() is "no SLA"."""

    p99_ms: Decimal | None = None
    ttft_p99_ms: Decimal | None = None
    tpot_p99_ms: Decimal | None = None

    @classmethod
    def standard(cls, bound: Decimal | LlmSla | None) -> Sla:
        """One of the registry's standard SLAs (a p99 bound, an LlmSla, or None) as an Sla."""
        if isinstance(bound, LlmSla):
            return cls(ttft_p99_ms=bound.ttft_p99_ms, tpot_p99_ms=bound.tpot_p99_ms)
        return cls(p99_ms=bound)

    @property
    def bounds(self) -> dict[str, Decimal]:
        return {name: getattr(self, name) for name in _BOUNDED_FIELDS if getattr(self, name) is not None}

    @property
    def is_llm(self) -> bool:
        return self.ttft_p99_ms is not None or self.tpot_p99_ms is not None

    def __bool__(self) -> bool:
        return bool(self.bounds)

    def __str__(self) -> str:
        if not self:
            return "no SLA"
        return " and ".join(f"{_LABELS[name]} <= {bound} ms" for name, bound in self.bounds.items())

    def meets(self, point, workload: Workload) -> bool:
        """The Python form: every stated bound holds at the point (figure() for each bounded field)."""
        return self.holds({name: figure(point, name, workload) for name in self.bounds})

    def holds(self, figures: Mapping[str, float | None]) -> bool:
        """Every stated bound holds for these figures (keyed by bound name; a missing or None figure fails).

        The comparison itself, for any engine that already holds a point's figures (the serving fronts read
        figure() into their points): one rule, so the rankings and the serving ranking cannot disagree."""
        for name, bound in self.bounds.items():
            value = figures.get(name)
            if value is None or not value <= float(bound):
                return False
        return True

    def without(self, *names: str) -> Sla:
        """This SLA with the named bounds dropped (e.g. only its TTFT bound, to build a front)."""
        return Sla(**{name: None if name in names else value for name, value in self.bounds.items()})

    def filter(self, points, workload: Workload):
        """The SQL form of meets() on an OperatingPoint queryset: NULL figures fail a bound, as in Python."""
        if not self:
            return points
        annotated = points.annotate(**{f"sla_{name}": figure_expression(name, workload) for name in self.bounds})
        return annotated.filter(**{f"sla_{name}__lte": float(bound) for name, bound in self.bounds.items()})


# Published scenarios whose VALID verdict means MLPerf's TTFT/TPOT bounds (named so in the registry) held.
_VALIDITY_SCENARIOS = {"server": "MLPerf Server", "interactive": "MLPerf Interactive"}
EXTERNAL = "external"


def validity_bounds(workload: Workload) -> dict[str, LlmSla]:
    """Scenario -> the MLPerf TTFT/TPOT bounds a VALID published result of the workload met."""
    named = {sla.name: sla for sla in workload.standard_llm_slas}
    return {scenario: named[name] for scenario, name in _VALIDITY_SCENARIOS.items() if name in named}


def figure(point, name: str, workload: Workload) -> float | None:
    """The Python form: the point's figure for a bound (p99_ms, ttft_p99_ms or tpot_p99_ms)."""
    value = getattr(point, _BOUNDED_FIELDS[name])
    if value is not None or name == "p99_ms":
        return value
    run = point.run
    bound = validity_bounds(workload).get(run.scenario) if run.origin == EXTERNAL else None
    return None if bound is None else float(getattr(bound, name))


def figure_expression(name: str, workload: Workload):
    """The SQL form of figure()."""
    field = _BOUNDED_FIELDS[name]
    if name == "p99_ms":
        return F(field)
    whens = [When(**{f"{field}__isnull": False}, then=F(field))]
    for scenario, bound in validity_bounds(workload).items():
        value = Value(float(getattr(bound, name)), output_field=FloatField())
        whens.append(When(run__origin=EXTERNAL, run__scenario=scenario, then=value))
    return Case(*whens, default=Value(None, output_field=FloatField()), output_field=FloatField())


def counts_output_tokens(workload: Workload) -> bool:
    return workload.unit == Unit.OUTPUT_TOKENS


def output_tokens_per_s(point) -> float | None:
    """A point's output tokens/s per accelerator, or None when it counts no tokens."""
    if point.output_tokens_per_s is not None:
        return point.output_tokens_per_s
    return point.throughput_per_s if point.throughput_unit == OUTPUT_TOKENS else None


def throughput_in_unit(point, workload: Workload) -> float | None:
    """The Python form: the point's throughput per accelerator in the workload's unit (None when it has none)."""
    return output_tokens_per_s(point) if counts_output_tokens(workload) else point.throughput_per_s


def throughput_expression(workload: Workload, prefix: str = ""):
    """The SQL form of throughput_in_unit."""
    if not counts_output_tokens(workload):
        return F(f"{prefix}throughput_per_s")
    return Case(
        When(**{f"{prefix}output_tokens_per_s__isnull": False}, then=F(f"{prefix}output_tokens_per_s")),
        When(**{f"{prefix}throughput_unit": OUTPUT_TOKENS}, then=F(f"{prefix}throughput_per_s")),
        default=Value(None),
        output_field=FloatField(),
    )


@dataclass(frozen=True)
class SlaChoice:
    point: object | None
    throughput_per_s: float | None
    feasible: bool
    reason: str


def _usable(throughput) -> bool:
    return throughput is not None and math.isfinite(throughput) and throughput > 0


def choose(points: Iterable, *, workload: Workload, sla: Sla) -> SlaChoice:
    """The Python form of the rule: the point an answer uses under `sla`, or why there is none."""
    candidates = [(p, t) for p in points if _usable(t := throughput_in_unit(p, workload))]
    if not candidates:
        return SlaChoice(None, None, False, f"no operating point with a throughput in {workload.unit.value}")
    meeting = [(p, t) for p, t in candidates if sla.meets(p, workload)]
    if not meeting:
        best = {name: _min(figure(p, name, workload) for p, _ in candidates) for name in sla.bounds}
        return SlaChoice(None, None, False, unmet_reason(sla, best))
    point, throughput = min(meeting, key=lambda pair: _order_key(pair[0], pair[1]))
    return SlaChoice(point, throughput, True, f"highest throughput with {sla}")


def _order_key(point, throughput):
    point_id = getattr(point, "pk", None)
    return (-throughput, point.latency_p99_ms, point_id if point_id is not None else 0)


def _min(values):
    present = [value for value in values if value is not None]
    return min(present) if present else None


def unmet_reason(sla: Sla, best: dict[str, float | None]) -> str:
    """Why no point meets `sla`, given the best (lowest) figure measured for each bounded field."""
    missing = [name for name in sla.bounds if best.get(name) is None]
    if missing:
        names = " or ".join(_LABELS[name] for name in missing)
        return (
            f"no operating point reports {names} (an Offline result measures throughput only); "
            f"it ranks only with no SLA, or under a p99 bound"
        )
    figures = ", ".join(f"{_LABELS[name]} is {best[name]:.3f} ms" for name in sla.bounds)
    if not sla.is_llm:
        return f"no operating point meets {sla} (best measured {figures})"
    # A published Server/Interactive result without percentiles counts as MLPerf's bounds (see above).
    return f"no operating point meets {sla} (best {figures}; a VALID MLPerf result without percentiles: its bounds)"


def chosen_points(points, *, workload: Workload, sla: Sla, partition: list[str]):
    """The SQL form of choose(), applied per partition of `points` (an OperatingPoint queryset).

    Returns the ids of the chosen points, one per partition (e.g. per accelerator and source).
    """
    usable = points.annotate(unit_throughput=throughput_expression(workload)).filter(unit_throughput__gt=0)
    ranked = sla.filter(usable, workload).annotate(
        choice=Window(
            RowNumber(),
            partition_by=[F(name) for name in partition],
            order_by=[F("unit_throughput").desc(), F("latency_p99_ms").asc(), F("id").asc()],
        )
    )
    return ranked.filter(choice=1).values("id")


def best_figures(points, *, workload: Workload, partition: list[str]) -> list[dict]:
    """Per partition: the partition's values and the lowest p99, TTFT p99 and TPOT p99 (keyed by bound name)
    among the points with a throughput in the workload's unit."""
    usable = points.annotate(unit_throughput=throughput_expression(workload)).filter(unit_throughput__gt=0)
    best = {f"best_{name}": Min(figure_expression(name, workload)) for name in _BOUNDED_FIELDS}
    rows = usable.values(*partition).annotate(**best)
    return [
        {key.removeprefix("best_") if key.startswith("best_") else key: value for key, value in row.items()}
        for row in rows.order_by()
    ]


def energy_j(point, throughput_per_s: float, power_w) -> float | None:
    """Joules per unit of work (inference, sample or output token): the stored figure, else power / throughput."""
    if point.energy_j_per_inference is not None:
        return point.energy_j_per_inference
    if power_w is None or not throughput_per_s:
        return None
    return float(costing.energy_j_per_inference(power_w=power_w, throughput_per_s=throughput_per_s))
