"""Stored LLM operating points as serving points, grouped into fronts (reads only).

Which runs count: the rankings' rules (``accounting.policy``: LLM model class, LoadGen VALID, accuracy
guard not failed, started at or before ``as_of``), for one workload of the registry, and the rankings'
latest-run rule (``policy.latest_run_ids``): measured runs, the latest per (accelerator, agent host, workload,
backend, precision, scenario, accelerator count); published runs, every one, because each is a different submitted
system (or round) and each is one point of the front; re-importing never duplicates them (their ids are
content digests). The choice is made in the database; only the chosen runs and points are read.
"""

from __future__ import annotations

from dataclasses import dataclass

from django.db.models import Func, JSONField, Q

from accounting import policy
from accounting import sla as sla_rule
from accounting.provenance import origin_label, published_of, source_label
from accounting.serving.front import Front, InteractivitySource, ServingPoint, combine_runs, pareto_front
from hardware_catalog.models import Accelerator
from harness.roofline import output_tokens_per_request
from results.models import BenchmarkRun, OperatingPoint, RunOrigin
from workloads import registry


def llm_workload(workload_id: str) -> registry.Workload:
    """The workload, when it is one whose unit is output tokens (an LLM of the registry, or an endpoint's
    ``endpoint:<name>``); raises UnknownWorkload for an unknown id and ValueError for any other unit."""
    workload = registry.get(workload_id)
    if not (workload.is_llm or workload.unit == registry.Unit.OUTPUT_TOKENS):
        raise ValueError(f"workload {workload_id!r} is not an LLM workload: interactivity does not apply")
    return workload


def workload_of(run: BenchmarkRun) -> str | None:
    """The registry id of the run's workload (its own id, a published benchmark name, or the harness's)."""
    name = getattr(run, "workload_id", None) or run.workload_name
    for resolve in (
        lambda: registry.get(name).id,
        lambda: registry.published_benchmark(name).workload.id,
        lambda: registry.for_harness(run.model_class, run.size).id,
    ):
        try:
            return resolve()
        except registry.UnknownWorkload:
            continue
    return None


def _replica_output_tokens_per_s(point: OperatingPoint | PointRow, run: BenchmarkRun) -> float | None:
    system = (point.details or {}).get("system_tokens_per_second")
    if system:
        return float(system)
    per_point = sla_rule.output_tokens_per_s(point)
    if per_point is None:
        return None
    # Published results are stored per accelerator (system figure / accelerators); ours per replica.
    return per_point * run.accelerator_count if run.origin == RunOrigin.EXTERNAL else per_point


def _replica_requests_per_s(point: OperatingPoint | PointRow, run: BenchmarkRun) -> float | None:
    system = (point.details or {}).get("system_samples_per_second")
    if system:
        return float(system)
    if point.throughput_unit != sla_rule.OUTPUT_TOKENS and run.origin == RunOrigin.EXTERNAL:
        return point.throughput_per_s * run.accelerator_count
    return None


def _tpot(
    point: OperatingPoint | PointRow, workload: registry.Workload
) -> tuple[float | None, InteractivitySource | None]:
    """The point's TPOT figure by the SLA rule (accounting.sla.figure): measured, or a VALID published result's
    MLPerf bound where it publishes no percentile ("met by validity"), labelled as a bound."""
    tpot_ms = sla_rule.figure(point, "tpot_p99_ms", workload)
    if tpot_ms is None:
        return None, None
    measured = point.tpot_p99_ms is not None
    return tpot_ms, InteractivitySource.MEASURED_TPOT_P99 if measured else InteractivitySource.TPOT_BOUND


def _rounds(point: OperatingPoint | PointRow, points_rounds: list | None) -> tuple[float, ...]:
    """Each round's output tokens/s, where the harness reported rounds chosen by throughput (``points_rounds``:
    the ``rounds`` block of each of the run's payload's points, in order; None for a published run, which reports
    no rounds)."""
    try:
        rounds = points_rounds[point.index]
    except (IndexError, TypeError):
        return ()
    if not isinstance(rounds, dict) or point.throughput_unit != sla_rule.OUTPUT_TOKENS:
        return ()
    if rounds.get("chosen_by") != "throughput_per_s":
        return ()
    return tuple(float(v) for v in rounds.get("values") or () if isinstance(v, int | float) and v > 0)


def _points_rounds(run: BenchmarkRun) -> list | None:
    if run.origin == RunOrigin.EXTERNAL:
        return None
    return [
        point.get("rounds") if isinstance(point, dict) else None for point in (run.payload or {}).get("points") or []
    ]


class PointsRounds(Func):
    """The ``rounds`` block of each of a payload's points (null where a point has none), in the points' order:
    all the fronts read of a measured run's payload (about 8 KB a run, whose decoding was a third of a rebuild).
    Its argument is the payload column (its SQL is used more than once, so it takes no parameters)."""

    output_field = JSONField()
    arity = 1

    POSTGRESQL = (
        "(SELECT jsonb_agg(e.point -> 'rounds' ORDER BY e.position) FROM jsonb_array_elements("
        "CASE WHEN jsonb_typeof(%(expressions)s -> 'points') = 'array' THEN %(expressions)s -> 'points' "
        "ELSE '[]'::jsonb END) WITH ORDINALITY AS e(point, position))"
    )
    # json_each walks the array in order, and json_group_array keeps it (SQLite aggregates in the order it scans).
    SQLITE = (
        "(SELECT json_group_array(json_extract(e.value, '$.rounds')) FROM json_each(%(expressions)s, '$.points') e "
        "WHERE json_type(%(expressions)s, '$.points') = 'array')"
    )

    def as_postgresql(self, compiler, connection, **extra_context):
        return self.as_sql(compiler, connection, template=self.POSTGRESQL, **extra_context)

    def as_sqlite(self, compiler, connection, **extra_context):
        return self.as_sql(compiler, connection, template=self.SQLITE, **extra_context)


def point_label(point: OperatingPoint | PointRow, run: BenchmarkRun) -> str:
    if run.origin == RunOrigin.EXTERNAL:
        return f"{source_label(run.origin, run.external_source, published=published_of(run))}, {run.scenario}"
    load = (
        f"concurrency {point.concurrency}"
        if point.concurrency
        else (f"{point.offered_rate_qps:g} req/s offered" if point.offered_rate_qps else f"batch {point.batch_size}")
    )
    where = run.agent.name if run.agent_id and run.agent else run.device_name
    return f"measured on {where}, {run.scenario}, {load}"


@dataclass(frozen=True)
class StoredPoint:
    """Where a serving point is stored: its operating point and run (what an answer cites). Kept in place of the
    model rows, which a cached serving ranking would otherwise carry by the thousand (with their JSON details)."""

    pk: int
    run_id: object  # the run's UUID


def serving_point(
    point: OperatingPoint | PointRow, run: BenchmarkRun, workload: registry.Workload, *, rounds: list | None = None
) -> ServingPoint | None:
    """The stored point as a serving point, or None when it has no output tokens/s. Its TTFT and TPOT are the
    SLA rule's figures (accounting.sla.figure), so both engines judge an SLA on the same numbers. ``rounds``: the
    ``rounds`` block of each of the run's payload's points (fronts() reads them for measured runs in one query);
    None reads them from the run."""
    output_tps = _replica_output_tokens_per_s(point, run)
    if not output_tps or output_tps <= 0:
        return None
    tpot_ms, source = _tpot(point, workload)
    requests = _replica_requests_per_s(point, run)
    llm = (point.details or {}).get("llm") or {}
    lengths = {
        "input_tokens_per_request": llm.get("prompt_tokens") or None,
        "output_tokens_per_request": output_tokens_per_request(point.details)
        or (output_tps / requests if requests else None),
    }
    power = point.power_w_mean
    return ServingPoint(
        key=f"run {run.pk} point {point.index}",
        label=point_label(point, run),
        output_tokens_per_s=output_tps,
        accelerators_per_replica=max(int(run.accelerator_count or 1), 1),
        tpot_ms=tpot_ms,
        interactivity_source=source,
        ttft_p99_ms=sla_rule.figure(point, "ttft_p99_ms", workload),
        scenario=run.scenario,
        output_tokens_per_s_values=_rounds(point, rounds if rounds is not None else _points_rounds(run)),
        power_w=power if power and power > 0 else None,
        extra={"point": StoredPoint(point.pk, point.run_id), **lengths},
    )


@dataclass(frozen=True)
class FrontGroup:
    """One front: a workload on one accelerator with one engine/backend and precision, by origin."""

    accelerator: Accelerator
    backend: str
    precision: str
    origin: str
    front: Front

    @property
    def label(self) -> str:
        return f"{self.accelerator} · {self.backend} · {self.precision} ({origin_label(self.origin)})"


# The columns a front reads (both tables are wide, with large JSON and logs): the rest stays in the database.
# A published run's TTFT/TPOT bounds come from the registry (accounting.sla.figure); measured runs' round
# figures come from their payloads in one query of their own (_measured_rounds).
_RUN_FIELDS = (
    "id", "origin", "external_source", "accelerator", "accelerator_count", "agent", "device_name", "workload_name",
    "model_class", "size", "scenario", "backend", "precision", "started_at",
)  # fmt: skip
_POINT_FIELDS = (
    "id", "run_id", "index", "batch_size", "concurrency", "offered_rate_qps", "throughput_per_s", "throughput_unit",
    "output_tokens_per_s", "ttft_p99_ms", "tpot_p99_ms", "power_w_mean", "details",
)  # fmt: skip


class PointRow:
    """The columns of an operating point a front reads, with its run: what serving_point reads of an OperatingPoint,
    without building a model instance per row (a cold serving answer reads thousands: building them was a quarter
    of the fronts' time)."""

    __slots__ = (*_POINT_FIELDS, "run")

    def __init__(self, values: tuple, runs: dict):
        for name, value in zip(_POINT_FIELDS, values, strict=True):
            setattr(self, name, value)
        self.run = runs[self.run_id]  # the run already loaded: no second read of it per point

    @property
    def pk(self) -> int:
        return self.id


def stored_names_of(workload: str, runs) -> Q:
    """The stored (workload name, size) pairs among ``runs`` that resolve to ``workload`` (its id, a published
    benchmark name, a harness name), as a filter: resolved once per distinct pair, not once per run."""
    pairs = runs.order_by().values_list("workload_name", "model_class", "size").distinct()  # no ordering column
    matching = Q(pk__in=[])
    for name, model_class, size in pairs:
        probe = BenchmarkRun(workload_name=name, model_class=model_class, size=size)
        if workload_of(probe) == workload:
            matching |= Q(workload_name=name, model_class=model_class, size=size)
    return matching


def fronts(
    *, workload: str, as_of=None, published=policy.Published.ALL, precision=None, backend=None, accelerator_ids=None
) -> list[FrontGroup]:
    """Every front of ``workload``, ordered by accelerator name, backend, precision and origin."""
    spec = llm_workload(workload)
    runs = policy.eligible_runs(
        workload=None, as_of=as_of, published=published, precision=precision,
        backend=backend, accelerator_ids=accelerator_ids,
    ).filter(model_class=spec.model_class)  # fmt: skip
    # The latest run per configuration, by the rankings' own rule (policy.latest_run_ids: each published result
    # is its own), chosen in the database: only those runs and their points are read.
    chosen_ids = policy.latest_run_ids(runs.filter(stored_names_of(workload, runs)))
    chosen_runs = (
        BenchmarkRun.objects.filter(id__in=chosen_ids)
        .select_related("accelerator", "agent", "published")
        .only(*_RUN_FIELDS, "published")  # related rows (accelerator, agent, published) whole: they are small
    )
    chosen = {run.pk: run for run in chosen_runs}
    rounds = _measured_rounds(chosen_ids)
    groups: dict[tuple, dict[tuple, list[ServingPoint]]] = {}
    rows = OperatingPoint.objects.filter(run_id__in=chosen_ids).order_by("run_id", "index").values_list(*_POINT_FIELDS)
    for values in rows:
        point = PointRow(values, chosen)
        run = point.run
        serving = serving_point(point, run, spec, rounds=rounds.get(run.pk) or [])
        if serving is not None:
            group = groups.setdefault((run.accelerator_id, run.backend, run.precision, run.origin), {})
            group.setdefault(_repeat_key(run, point, serving), []).append(serving)
    accelerators = {run.accelerator_id: run.accelerator for run in chosen.values()}
    result = [
        FrontGroup(accelerators[acc], backend_, precision_, origin, pareto_front(_combined(repeats, chosen)))
        for (acc, backend_, precision_, origin), repeats in groups.items()
    ]
    return sorted(result, key=lambda g: (str(g.accelerator), g.backend, g.precision, g.origin))


def _measured_rounds(run_ids) -> dict:
    """{run id: its payload's points' rounds blocks} of the measured runs among ``run_ids`` (a subquery), read in
    one query, and only those blocks (PointsRounds): a published run reports no rounds, and its payload is never
    read."""
    measured = BenchmarkRun.objects.filter(id__in=run_ids).exclude(origin=RunOrigin.EXTERNAL)
    return dict(measured.annotate(points_rounds=PointsRounds("payload")).values_list("pk", "points_rounds"))


def _repeat_key(run: BenchmarkRun, point: OperatingPoint | PointRow, serving: ServingPoint) -> tuple:
    """Published results of one system design in one round and scenario, from several submitters, are
    runs of one point; everything else is a point of its own."""
    published = getattr(run, "published", None) if run.origin == RunOrigin.EXTERNAL else None
    if published is None or serving.tpot_ms is None:
        return ("point", serving.key)
    return ("published", published.round, published.system, run.scenario, serving.accelerators_per_replica)


def _combined(repeats: dict[tuple, list[ServingPoint]], chosen: dict) -> list[ServingPoint]:
    """One point per repeat; ``chosen``: the chosen runs by id (each with its published record)."""
    combined = []
    for key, points in repeats.items():
        if len(points) == 1:
            combined.append(points[0])
            continue
        _, round_name, system, scenario, _ = key
        published = [chosen[p.extra["point"].run_id].published for p in points]
        submitters = ", ".join(sorted({record.submitter for record in published}))
        divisions = "/".join(sorted({record.division for record in published}))
        label = f"published: MLPerf {round_name} {divisions}, {system} ({submitters}: {len(points)} runs), {scenario}"
        runs = ",".join(sorted(str(p.extra["point"].run_id) for p in points))
        combined.append(combine_runs(points, key=f"runs {runs} point 0", label=label))
    return combined
