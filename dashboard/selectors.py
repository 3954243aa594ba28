"""Reads for the dashboard pages: each function returns what one page shows, in a bounded number of queries.

Costs come from accounting (rankings, snapshots, alarms); this module only fetches and groups rows.
"""

from dataclasses import dataclass, field
from datetime import datetime
from decimal import Decimal

from django.db.models import Count
from django.shortcuts import get_object_or_404

from accounting import policy
from accounting import sla as sla_rule
from accounting.empty_answers import why_no_snapshots
from accounting.models import OPEN_ALARM, CostAlarm, CostSnapshot
from accounting.pricing.money import usd_text
from accounting.provenance import origin_label, published_label, published_of
from accounting.sla import Sla
from hardware_catalog.models import Accelerator, Price
from harness.latency_layers import LatencyLayers
from results.latency_layers import NoLatencyLayers, point_latency_layers
from results.models import BenchmarkRun, OperatingPoint
from results.point_logs import with_log_flags

_HEAVY_RUN_FIELDS = ("payload", "environment", "settings", "telemetry", "accuracy")
RUNS_SHOWN = 100
NO_SLA = {"sla_p99_ms": None, "sla_ttft_p99_ms": None, "sla_tpot_p99_ms": None}
SNAPSHOTS_SHOWN = 5000


@dataclass(frozen=True)
class PublishedFigure:
    """A published run's system figure exactly as published, the per-accelerator figure derived from it
    (results.mlperf: system figure / accelerators; a latency is not divided), and where it was published."""

    value: str
    unit: str
    metric: str
    accelerators: int
    round: str = ""
    division: str = ""
    submitter: str = ""
    system: str = ""
    source_path: str = ""
    availability: str = ""  # available, preview or rdi, as MLPerf states it

    @property
    def is_throughput(self) -> bool:
        return self.unit.endswith("/s")

    @property
    def per_accelerator(self) -> float | None:
        return float(self.value) / self.accelerators if self.is_throughput else None


@dataclass
class RunPage:
    run: BenchmarkRun
    points: list[OperatingPoint]
    sla_p99_ms: Decimal | None
    sla: Sla
    chosen: OperatingPoint | None
    sla_reason: str
    focus: OperatingPoint | None  # the point whose latency distribution is drawn
    nvml: dict | None
    nvml_unavailable: str
    unit: str = "inferences"  # of `throughput_per_s`
    throughput_per_s: dict[int, float | None] = field(default_factory=dict)  # per accelerator, by point index
    published: PublishedFigure | None = None
    # The focus point's p99 split into layers (results.latency_layers); None for a published result.
    layers: LatencyLayers | None = None


def shown_throughput(points, workload, *, endpoint: bool = False) -> tuple[str, dict[int, float | None]]:
    """The unit and each point's throughput per accelerator the run page shows: in the workload's unit of work
    (output tokens/s for LLM workloads: a published point's `throughput_per_s` counts samples beside its tokens),
    else, for an endpoint or a point with no figure in that unit, in the points' own unit."""
    in_unit = {point.index: sla_rule.throughput_in_unit(point, workload) for point in points}
    if not endpoint and all(value is not None for value in in_unit.values()):
        return policy.unit_for(workload), in_unit
    unit = points[0].throughput_unit if points else policy.unit_for(workload)
    return unit, {point.index: point.throughput_per_s for point in points}


def run_page(run_id, *, sla: Sla | None = None, point_index=None) -> RunPage:
    """The run, its points and the point chosen under `sla` (None: the workload's reference SLA)."""
    run = get_object_or_404(BenchmarkRun.objects.select_related("accelerator", "published"), pk=run_id)
    # The logs themselves stay deferred: the page links to them.
    points = list(with_log_flags(run.points.defer("details")).order_by("index"))
    workload = policy.workload_of(run)
    sla = sla if sla is not None else policy.reference_sla(workload)
    chosen, reason = None, "no operating points"
    if points:
        choice = sla_rule.choose(points, workload=workload, sla=sla)
        chosen, reason = choice.point, choice.reason
    by_index = {point.index: point for point in points}
    focus = by_index.get(point_index) or chosen or (points[-1] if points else None)
    nvml = (run.telemetry or {}).get("nvml")
    unavailable = ""
    if not isinstance(nvml, dict):
        unavailable = nvml if isinstance(nvml, str) and nvml else "not recorded"
        nvml = None
    unit, throughput = shown_throughput(points, workload, endpoint=bool((run.payload or {}).get("endpoint")))
    record = published_of(run)
    published = None
    if record is not None:
        published = PublishedFigure(
            record.value, record.unit, record.metric, record.accelerators_per_system, round=record.round,
            division=record.division, submitter=record.submitter, system=record.system_name or record.system,
            source_path=record.source_path, availability=record.availability,
        )  # fmt: skip
    layers = None
    if focus is not None and record is None:
        try:
            layers = point_latency_layers(run, focus.index)
        except NoLatencyLayers:
            layers = None
    return RunPage(
        run, points, sla.p99_ms, sla, chosen, reason, focus, nvml, unavailable, unit.replace("_", " "), throughput,
        published, layers,
    )  # fmt: skip


@dataclass
class HardwarePage:
    accelerator: Accelerator
    prices: list[Price]
    runs: list[BenchmarkRun]
    run_count: int
    snapshots: list[CostSnapshot]
    price_kinds: list[str]
    price_kind: str | None
    series: dict[str, dict[str, list[CostSnapshot]]] = field(default_factory=dict)  # by unit, then label
    # The page answers for one workload at a time: {workload: runs of it on this accelerator}, most runs first.
    workloads: dict[str, int] = field(default_factory=dict)
    workload: str | None = None
    as_of: datetime | None = None  # None: now
    empty_reason: str = ""  # why the cost history shows nothing (accounting.empty_answers)


def hardware_page(accelerator_id, *, price_kind=None, workload=None, as_of=None) -> HardwarePage:
    """One accelerator: its prices, and for ONE workload (asked for, else the one with the most runs on it) its
    runs and cost over time, so a chart never mixes workloads and the page stays readable. With ``as_of``, only
    what was known then: prices in effect from then or before, runs started by then, costs in effect by then."""
    accelerator = get_object_or_404(Accelerator.objects.select_related("priced_as"), pk=accelerator_id)
    every_price = list(Price.objects.for_accelerator(accelerator).order_by("effective_from", "pk"))
    prices = [price for price in every_price if as_of is None or price.effective_from <= as_of]
    counts = accelerator.runs.values("workload_name").annotate(runs=Count("id")).order_by("-runs", "workload_name")
    workloads = {row["workload_name"]: row["runs"] for row in counts}
    chosen_workload = workload if workload in workloads else next(iter(workloads), None)
    runs_qs = (
        accelerator.runs.filter(workload_name=chosen_workload)
        .select_related("agent", "published")
        .defer(*_HEAVY_RUN_FIELDS)
        .annotate(point_count=Count("points"))
    )
    if as_of is not None:
        runs_qs = runs_qs.filter(started_at__lte=as_of)
    runs = list(runs_qs.order_by("-started_at")[:RUNS_SHOWN])
    run_count = sum(workloads.values())
    kinds = sorted({price.kind for price in every_price})  # a kind priced later still says why it is empty
    chosen_kind = price_kind if price_kind in kinds else ("cloud_on_demand" if "cloud_on_demand" in kinds else None)
    chosen_kind = chosen_kind or (kinds[0] if kinds else None)
    snapshots, empty_reason = [], ""
    if chosen_kind and chosen_workload:
        history = CostSnapshot.objects.filter(
            accelerator=accelerator, price_kind=chosen_kind, workload_name=chosen_workload, **NO_SLA
        )
        shown = history.filter(effective_at__lte=as_of) if as_of is not None else history
        snapshots = list(
            shown.select_related("run", "run__agent", "run__published", "price", "alarm")
            .defer(*(f"run__{name}" for name in _HEAVY_RUN_FIELDS))
            .order_by("effective_at", "id")[:SNAPSHOTS_SHOWN]
        )
        if not snapshots:
            what = f"{accelerator} on {chosen_workload}, {chosen_kind} prices"
            empty_reason = why_no_snapshots(history, as_of=as_of, what=what)
    series = series_by_unit(snapshots, with_accelerator=False)
    return HardwarePage(
        accelerator, prices, runs, run_count, snapshots, kinds, chosen_kind, series, workloads, chosen_workload,
        as_of, empty_reason,
    )  # fmt: skip


def series_by_unit(snapshots, *, with_accelerator: bool) -> dict[str, dict[str, list[CostSnapshot]]]:
    """{unit of work: {series label: snapshots}}: one chart per unit, so tokens and inferences never share an axis."""
    by_unit: dict[str, dict[str, list[CostSnapshot]]] = {}
    for snapshot in snapshots:
        label = snapshot_label(snapshot, with_accelerator=with_accelerator)
        by_unit.setdefault(snapshot.unit, {}).setdefault(label, []).append(snapshot)
    return by_unit


def snapshot_label(snapshot: CostSnapshot, *, with_accelerator: bool) -> str:
    """One line per series (run configuration and offering), the way accounting keys its series."""
    run, price = snapshot.run, snapshot.price
    parts = [str(snapshot.accelerator)] if with_accelerator else [snapshot.workload_name]
    parts += [run.scenario, f"{run.backend}/{run.precision}", f"{price.provider} {price.instance_type}".strip()]
    record = published_of(run)
    parts.append(f"published ({published_label(record)})" if record else origin_label(run.origin))
    return " · ".join(parts)


def open_alarms(limit: int = 10) -> tuple[list[CostAlarm], int]:
    """The newest `limit` open cost alarms (neither acknowledged nor withdrawn), and how many are open."""
    still_open = CostAlarm.objects.filter(OPEN_ALARM)
    newest = (
        still_open.select_related(
            "snapshot", "snapshot__accelerator", "snapshot__run__agent", "snapshot__run__published"
        )
        .defer(*(f"snapshot__run__{name}" for name in _HEAVY_RUN_FIELDS))
        .order_by("-created_at", "-id")[:limit]
    )
    return list(newest), still_open.count()


def alarm_hover(alarm: CostAlarm) -> str:
    """The alarm's attribution in a few lines: how much of the change each cause explains."""
    snapshot = alarm.snapshot
    lines = [f"+{alarm.change_fraction * 100:.1f}% vs trailing median", f"{snapshot.sla_label}, {snapshot.cost_basis}"]
    per = f"per 1M {snapshot.unit.replace('_', ' ')}"
    for name, usd_per_million, share in attribution_parts(alarm):
        lines.append(f"{name}: {usd_text(usd_per_million, signed=True)} {per} ({share * 100:.0f}%)")
    return "<br>".join(lines)


def attribution_parts(alarm: CostAlarm) -> list[tuple[str, Decimal, Decimal]]:
    """(cause, USD per million, share) for each cause that moved the cost, as the alarm stored them."""
    factors = (alarm.attribution or {}).get("factors", {})
    parts = [(name, Decimal(part["usd_per_million"]), Decimal(part["share"])) for name, part in factors.items()]
    return [part for part in parts if part[1]]


@dataclass
class TrendsPage:
    workloads: list[str]
    workload: str | None
    series: dict[str, dict[str, list[CostSnapshot]]]  # by unit of work, then series label
    alarms: list  # AlarmMark
    snapshots: list[CostSnapshot]
    as_of: datetime | None = None  # None: now
    empty_reason: str = ""  # why the page draws nothing (accounting.empty_answers)


@dataclass(frozen=True)
class AlarmMark:
    effective_at: object
    cost_per_million_usd: Decimal
    hover: str
    alarm: CostAlarm
    label: str
    unit: str


def trend_workloads() -> list[str]:
    return sorted(CostSnapshot.objects.values_list("workload_name", flat=True).distinct())


def accelerators_with_snapshots() -> list[Accelerator]:
    return list(
        Accelerator.objects.filter(pk__in=CostSnapshot.objects.values("accelerator_id")).order_by("vendor", "model")
    )


def trends_page(*, workload, price_kind, sla: Sla, accelerator_ids=None, workloads=None, as_of=None) -> TrendsPage:
    workloads = workloads if workloads is not None else trend_workloads()
    workload = workload if workload in workloads else (workloads[0] if workloads else None)
    snapshots = CostSnapshot.objects.filter(workload_name=workload, price_kind=price_kind)
    # One SLA per chart: exactly its bounds (a p99 bound, or TTFT and TPOT bounds for an LLM), or no SLA at all.
    snapshots = snapshots.filter(
        sla_p99_ms=sla.p99_ms, sla_ttft_p99_ms=sla.ttft_p99_ms, sla_tpot_p99_ms=sla.tpot_p99_ms
    )
    if accelerator_ids:
        snapshots = snapshots.filter(accelerator_id__in=accelerator_ids)
    history = snapshots
    if as_of is not None:  # only the costs in effect by then
        snapshots = snapshots.filter(effective_at__lte=as_of)
    rows = list(
        snapshots.select_related("accelerator", "run", "run__agent", "run__published", "price", "alarm")
        .defer(*(f"run__{name}" for name in _HEAVY_RUN_FIELDS))
        .order_by("effective_at", "id")[:SNAPSHOTS_SHOWN]
    )
    marks = []
    for snapshot in rows:
        alarm = getattr(snapshot, "alarm", None)
        if alarm is not None and alarm.withdrawn_at is None:
            label = snapshot_label(snapshot, with_accelerator=True)
            hover = f"{label}<br>{alarm_hover(alarm)}"
            marks.append(
                AlarmMark(snapshot.effective_at, snapshot.cost_per_million_usd, hover, alarm, label, snapshot.unit)
            )
    reason = "" if rows else why_no_snapshots(history, as_of=as_of, what=f"{workload}, {price_kind} prices")
    return TrendsPage(workloads, workload, series_by_unit(rows, with_accelerator=True), marks, rows, as_of, reason)


@dataclass(frozen=True)
class CompareSide:
    label: str
    row: object | None  # accounting.comparisons.SideCost
    reason: str


def configuration_runs(*, workload: str, backend: str, precision: str, accelerator_id=None, as_of=None) -> list:
    """The latest VALID measured runs of one workload at one backend/precision (started by ``as_of``, if given),
    accuracy failures included: the verdict must see them."""
    runs = BenchmarkRun.objects.measured().filter(
        workload_name=workload, backend=backend, precision=precision, loadgen_valid=True
    )
    if as_of is not None:
        runs = runs.filter(started_at__lte=as_of)
    if accelerator_id is not None:
        runs = runs.filter(accelerator_id=accelerator_id)
    latest = BenchmarkRun.objects.filter(id__in=policy.latest_run_ids(runs)).defer("payload")
    return list(latest.select_related("accelerator", "accelerator__priced_as", "agent").prefetch_related("points"))


def measured_scenarios() -> list[str]:
    return sorted(set(BenchmarkRun.objects.measured().values_list("scenario", flat=True).distinct()))


def measured_accelerators() -> list[Accelerator]:
    return list(
        Accelerator.objects.filter(pk__in=BenchmarkRun.objects.values("accelerator_id")).order_by("vendor", "model")
    )


def jobs_page(*, recent: int = 20):
    from agents.models import ACTIVE_JOB_STATES, Agent, Job

    jobs = Job.objects.select_related("agent").order_by("-created_at")
    active = list(jobs.filter(state__in=ACTIVE_JOB_STATES)[:100])
    finished = list(jobs.exclude(state__in=ACTIVE_JOB_STATES)[:recent])
    agents = list(Agent.objects.order_by("name")[:100])
    return active, finished, agents


def job_progress(job_ids) -> list[dict]:
    from agents.models import Job

    rows = Job.objects.filter(pk__in=job_ids).values("id", "state", "progress_pct", "current_point", "error")
    return [row | {"id": str(row["id"])} for row in rows]
