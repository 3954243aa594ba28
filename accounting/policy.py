"""Which work an answer is about, which runs count for it, and its standard SLAs: the rules stated once.

Every answer is for ONE workload of the registry (`workloads/`), stored on a run as `workload_name`:
  - `workload` names it; without one, the model class's reference workload
    (`workloads.reference_for(model_class)`) is used, and the answer names it;
  - smoke-test stand-ins (`Workload.is_smoke_test`) are only ever answered when asked for by id;
  - a run whose `workload_name` is not in the registry is its own workload (user-defined), counted in
    the unit of its model class (output tokens for llm-decoder, else inferences) with no standard SLA.
Runs that count: `BenchmarkRun.objects.that_count()` (LoadGen VALID, accuracy guard not failed), and
per series (accelerator, origin, system: agent host or published source, workload, backend, precision,
scenario; `latest_run_ids`) only the latest by `started_at`
(ties broken by id) among those started at or before `as_of`. Which published (MLPerf) results join the
measured runs is one rule, `Published` (below): by default they fill in for the accelerators that have no
measured run of the workload. Standard SLAs come from the registry: `standard_slas_ms`
(p99 bounds) and, for LLM workloads, `standard_llm_slas` (MLPerf's TTFT/TPOT bounds); the first listed is the
workload's reference SLA (`reference_sla`), the default wherever an SLA is applied unasked.
"""

from decimal import Decimal
from enum import StrEnum

from django.db.models import Exists, F, OuterRef, Q, Window
from django.db.models.functions import RowNumber

import workloads
from accounting.errors import FieldError
from accounting.pricing import costing
from accounting.pricing.utilization import default_utilization
from accounting.sla import Sla, counts_output_tokens
from results.models import BenchmarkRun, RunOrigin
from results.verdict import describe_accuracy
from workloads import LLM_DECODER, Unit, Workload


def snapshot_utilization() -> Decimal:
    """The utilization cost snapshots (history, alarms) are computed at: the configured default."""
    return default_utilization()


class ParameterError(FieldError):
    """A parameter that makes the question unanswerable (e.g. an unknown workload); `field` names it."""


class Published(StrEnum):
    """Which published (MLPerf) results an answer ranks beside the measured runs.

    FILL (the default): a published result counts for an accelerator only when that accelerator has no
    measured run of the workload among the runs the same question counts (same as_of, precision,
    backend), so every accelerator is ranked, by its own measurement where there is one. NONE: measured
    runs only. ALL: measured and published side by side. The API's older boolean `include_external`
    maps onto it: true = ALL, false = NONE (`published_rule`).
    """

    FILL = "fill"
    NONE = "none"
    ALL = "all"

    @property
    def description(self) -> str:
        return PUBLISHED_DESCRIPTIONS[self]


PUBLISHED_DESCRIPTIONS = {
    Published.FILL: "published results for accelerators with no measured run of the workload",
    Published.NONE: "measured runs only",
    Published.ALL: "measured and published results side by side",
}
DEFAULT_PUBLISHED = Published.FILL


def published_rule(
    *, published: str | None = None, include_external: bool | None = None, default: Published = DEFAULT_PUBLISHED
) -> Published:
    """The `published` rule asked for: `published` when given, else the older `include_external` flag
    (true = all, false = none), else `default`. Conflicting values are refused, naming the field."""
    implied = None if include_external is None else (Published.ALL if include_external else Published.NONE)
    if published:
        chosen = Published(published)
        if implied is not None and implied != chosen:
            raise ParameterError(
                "include_external",
                f"include_external={str(include_external).lower()} contradicts published={chosen.value}: "
                "give one of them (include_external=true is published=all, false is published=none)",
            )
        return chosen
    return implied or default


def resolve_workload(*, workload: str | None = None, model_class: str | None = None) -> Workload:
    """The workload an answer is for: `workload` when given, else the reference of `model_class`."""
    if workload:
        try:
            chosen = workloads.get(workload)
        except workloads.UnknownWorkload as exc:
            raise ParameterError("workload", str(exc)) from None
        if model_class and chosen.model_class != model_class:
            raise ParameterError(
                "workload", f"workload {chosen.id!r} is of model class {chosen.model_class!r}, not {model_class!r}"
            )
        return chosen
    if not model_class:
        raise ParameterError("workload", "give a workload (or a model_class, for its reference workload)")
    try:
        return workloads.reference_for(model_class)
    except workloads.UnknownWorkload as exc:
        raise ParameterError("model_class", str(exc)) from None


def workload_of(run: BenchmarkRun) -> Workload:
    """The registry's workload of a run, or a user-defined one named after it (see the module docstring)."""
    try:
        return workloads.get(run.workload_name)
    except workloads.UnknownWorkload:
        unit = Unit.OUTPUT_TOKENS if run.model_class == LLM_DECODER else Unit.INFERENCES
        return Workload(
            id=run.workload_name, model_class=run.model_class, title=run.workload_name, reference_model="",
            unit=unit, input_description="", quality_target="", user_defined=True,
        )  # fmt: skip


def standard_slas(workload: Workload) -> tuple[Sla, ...]:
    """The SLAs snapshots are computed under (no SLA always among them)."""
    slas = [Sla.standard(bound) for bound in (*workload.standard_llm_slas, *workload.standard_slas_ms)]
    if Sla() not in slas:
        slas.append(Sla())
    return tuple(dict.fromkeys(slas))


def reference_sla(workload: Workload) -> Sla:
    """The workload's own SLA, the default of every page that applies one: the first standard SLA the registry
    lists, which is the benchmark's own bound (MLPerf's Server bound where it has one: 2,000 ms TTFT / 200 ms TPOT
    for llama2-70b, not the tighter Interactive bound, a separate MLPerf benchmark), or no SLA when it lists none.
    The other standard SLAs stay one click away (`standard_sla_choices`)."""
    if workload.standard_llm_slas:
        return Sla.standard(workload.standard_llm_slas[0])
    bounds = [bound for bound in workload.standard_slas_ms if bound is not None]
    return Sla(p99_ms=bounds[0]) if bounds else Sla()


def standard_sla_choices(workload: Workload) -> tuple[tuple[str, Sla], ...]:
    """The workload's standard SLAs by name, the reference first: what an SLA picker offers."""
    named = [(bound.name or str(Sla.standard(bound)), Sla.standard(bound)) for bound in workload.standard_llm_slas]
    named += [(str(Sla(p99_ms=bound)), Sla(p99_ms=bound)) for bound in workload.standard_slas_ms if bound is not None]
    return (*named, ("no SLA", Sla()))


def requested_sla(workload: Workload, *, sla_p99_ms=None, ttft_p99_ms=None, tpot_p99_ms=None) -> Sla:
    """The SLA an answer is asked under, refusing bounds that do not fit the workload (errors name the parameter)."""
    bounds = {"sla_p99_ms": sla_p99_ms, "ttft_p99_ms": ttft_p99_ms, "tpot_p99_ms": tpot_p99_ms}
    values = {}
    for name, value in bounds.items():
        if value is None:
            continue
        number = costing.to_decimal(value, name)
        if number <= 0:
            raise ParameterError(name, f"{name} must be greater than zero, got {value}")
        values[name] = number
    if ("ttft_p99_ms" in values or "tpot_p99_ms" in values) and not counts_output_tokens(workload):
        raise ParameterError(
            "ttft_p99_ms" if "ttft_p99_ms" in values else "tpot_p99_ms",
            f"{workload.id} is not an LLM workload: bound its latency with sla_p99_ms",
        )
    if "sla_p99_ms" in values and workload.standard_llm_slas:
        raise ParameterError(
            "sla_p99_ms",
            f"{workload.id} is served under TTFT and TPOT bounds (MLPerf: {workload.standard_llm_slas[0]}): use "
            "ttft_p99_ms and tpot_p99_ms; a whole-request p99 grows with the output length",
        )
    return Sla(values.get("sla_p99_ms"), values.get("ttft_p99_ms"), values.get("tpot_p99_ms"))


def serving_target_tps_per_user(sla: Sla, interactivity_tps_per_user=None) -> float:
    """The speed (output tokens/s per user) an LLM serving answer reads its fronts at: the interactivity asked for,
    or the SLA's 1000 / TPOT p99 bound; with both, the stricter (faster). The serving rule of an SLA, stated once:
    an LLM SLA bounds both TTFT and TPOT or neither, and one of the two targets is given. Refusals name the
    parameter."""
    if sla.is_llm and (sla.ttft_p99_ms is None or sla.tpot_p99_ms is None):
        missing = "ttft_p99_ms" if sla.ttft_p99_ms is None else "tpot_p99_ms"
        raise ParameterError(missing, "an LLM SLA needs both ttft_p99_ms and tpot_p99_ms")
    targets = [] if interactivity_tps_per_user is None else [float(interactivity_tps_per_user)]
    if sla.tpot_p99_ms is not None:
        targets.append(1000.0 / float(sla.tpot_p99_ms))
    if not targets:
        raise ParameterError(
            "interactivity_tps_per_user", "give interactivity_tps_per_user, or ttft_p99_ms and tpot_p99_ms"
        )
    return max(targets)


def unit_for(workload: Workload) -> str:
    return workload.unit.value


def eligible_runs(
    *,
    workload: str | None,
    as_of=None,
    published: Published = DEFAULT_PUBLISHED,
    precision=None,
    backend=None,
    accelerator_ids=None,
):
    """Runs that count for `workload` (None: for each run's own workload, as snapshots use them), with the
    published results `published` asks for (see `Published`)."""
    runs = BenchmarkRun.objects.that_count()
    if workload is not None:
        runs = runs.filter(workload_name=workload)
    if as_of is not None:
        runs = runs.filter(started_at__lte=as_of)
    if precision:
        runs = runs.filter(precision=precision)
    if backend:
        runs = runs.filter(backend=backend)
    if accelerator_ids is not None:
        runs = runs.filter(accelerator_id__in=accelerator_ids)
    measured = runs.filter(origin=RunOrigin.MEASURED)
    if published == Published.NONE:
        return measured
    if published == Published.FILL:
        measured_here = measured.filter(
            accelerator_id=OuterRef("accelerator_id"), workload_name=OuterRef("workload_name")
        )
        return runs.filter(Q(origin=RunOrigin.MEASURED) | ~Exists(measured_here))
    return runs


def why_not_ranked(run: BenchmarkRun) -> list[str]:
    """The reasons ``eligible_runs`` leaves ``run`` out of every ranking (empty when it can be ranked)."""
    reasons = []
    if not run.loadgen_valid:
        reasons.append("LoadGen judged a point INVALID")
    reasons += run.not_valid_reasons
    if run.accuracy_passed is False:
        reasons.append(f"accuracy guard {describe_accuracy(run.accuracy)}")
    return reasons


# One series of results, as alarm series name theirs (history.snapshots.series_key and system_of): the configuration
# and the system that measured it, the agent host for a measured run (NULL for a run posted by hand, one system),
# the published result's source and accelerator count for a published one.
SERIES_PARTITION = (
    "accelerator_id", "origin", "agent_id", "external_source", "accelerator_count", "workload_name", "backend",
    "precision", "scenario",
)  # fmt: skip


def latest_run_ids(runs):
    """A subquery of the ids of the latest run per series (SERIES_PARTITION): two agent hosts measuring the same
    workload on the same accelerator model each keep their own latest run, as each keeps its own alarm series."""
    ranked = runs.annotate(
        recency=Window(
            RowNumber(),
            partition_by=[F(name) for name in SERIES_PARTITION],
            order_by=[F("started_at").desc(), F("id").asc()],
        )
    )
    return ranked.filter(recency=1).values("id")
