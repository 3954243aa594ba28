"""Reads for the dashboard pages: each function returns what one page shows, in a bounded number of queries.

Costs come from accounting (rankings, snapshots, alarms); this module only fetches and groups rows.
"""

from dataclasses import dataclass, field
from decimal import Decimal

from django.db.models import Count
from django.shortcuts import get_object_or_404

from accounting import costing, policy
from accounting.models import CostAlarm, CostSnapshot
from agents.models import BenchmarkRun, OperatingPoint
from hardware_catalog.models import Accelerator, Price

_HEAVY_RUN_FIELDS = ("payload", "environment", "settings", "telemetry", "accuracy")
_HEAVY_POINT_FIELDS = ("details", "loadgen_summary_log", "loadgen_detail_log")
RUNS_SHOWN = 100
SNAPSHOTS_SHOWN = 5000


def default_sla_ms(model_class: str) -> Decimal | None:
    """The tightest standard SLA of the class: the one that separates hardware most."""
    slas = [sla for sla in policy.standard_slas(model_class) if sla is not None]
    return min(slas) if slas else None


@dataclass
class RunPage:
    run: BenchmarkRun
    points: list[OperatingPoint]
    sla_p99_ms: Decimal | None
    chosen: OperatingPoint | None
    sla_reason: str
    focus: OperatingPoint | None  # the point whose latency distribution is drawn
    nvml: dict | None
    nvml_unavailable: str


def run_page(run_id, *, sla_p99_ms=None, point_index=None) -> RunPage:
    run = get_object_or_404(BenchmarkRun.objects.select_related("accelerator"), pk=run_id)
    points = list(run.points.defer(*_HEAVY_POINT_FIELDS).order_by("index"))
    sla = sla_p99_ms if sla_p99_ms is not None else default_sla_ms(run.model_class)
    chosen, reason = None, "no SLA"
    if sla is not None and points:
        choice = costing.operating_point_for_sla(points, sla_p99_ms=sla)
        chosen, reason = choice.point, choice.reason
    by_index = {point.index: point for point in points}
    focus = by_index.get(point_index) or chosen or (points[-1] if points else None)
    nvml = (run.telemetry or {}).get("nvml")
    unavailable = ""
    if not isinstance(nvml, dict):
        unavailable = nvml if isinstance(nvml, str) and nvml else "not recorded"
        nvml = None
    return RunPage(run, points, sla, chosen, reason, focus, nvml, unavailable)


@dataclass
class HardwarePage:
    accelerator: Accelerator
    prices: list[Price]
    runs: list[BenchmarkRun]
    run_count: int
    snapshots: list[CostSnapshot]
    price_kinds: list[str]
    price_kind: str | None
    series: dict[str, list[CostSnapshot]] = field(default_factory=dict)


def hardware_page(accelerator_id, *, price_kind=None) -> HardwarePage:
    accelerator = get_object_or_404(Accelerator.objects.select_related("priced_as"), pk=accelerator_id)
    prices = list(Price.objects.for_accelerator(accelerator).order_by("effective_from", "pk"))
    runs_qs = accelerator.runs.defer(*_HEAVY_RUN_FIELDS).annotate(point_count=Count("points"))
    runs = list(runs_qs.order_by("-started_at")[:RUNS_SHOWN])
    run_count = len(runs) if len(runs) < RUNS_SHOWN else accelerator.runs.count()
    kinds = sorted({price.kind for price in prices})
    chosen_kind = price_kind if price_kind in kinds else ("cloud_on_demand" if "cloud_on_demand" in kinds else None)
    chosen_kind = chosen_kind or (kinds[0] if kinds else None)
    snapshots = []
    if chosen_kind:
        snapshots = list(
            CostSnapshot.objects.filter(accelerator=accelerator, price_kind=chosen_kind, sla_p99_ms=None)
            .select_related("run", "price", "alarm")
            .defer(*(f"run__{name}" for name in _HEAVY_RUN_FIELDS))
            .order_by("effective_at", "id")[:SNAPSHOTS_SHOWN]
        )
    series: dict[str, list[CostSnapshot]] = {}
    for snapshot in snapshots:
        series.setdefault(snapshot_label(snapshot, with_accelerator=False), []).append(snapshot)
    return HardwarePage(accelerator, prices, runs, run_count, snapshots, kinds, chosen_kind, series)


def snapshot_label(snapshot: CostSnapshot, *, with_accelerator: bool) -> str:
    """One line per series (run configuration and offering), the way accounting keys its series."""
    run, price = snapshot.run, snapshot.price
    parts = [str(snapshot.accelerator)] if with_accelerator else [snapshot.workload_name]
    parts += [run.scenario, f"{run.backend}/{run.precision}", f"{price.provider} {price.instance_type}".strip()]
    return " · ".join(parts)


def open_alarms(limit: int = 10) -> list[CostAlarm]:
    return list(
        CostAlarm.objects.filter(acknowledged_at__isnull=True)
        .select_related("snapshot", "snapshot__accelerator")
        .order_by("-created_at", "-id")[:limit]
    )


def alarm_hover(alarm: CostAlarm) -> str:
    """The alarm's attribution in a few lines: how much of the change each cause explains."""
    factors = (alarm.attribution or {}).get("factors", {})
    lines = [f"+{alarm.change_fraction * 100:.1f}% vs trailing median"]
    for name in ("price", "throughput", "power"):
        part = factors.get(name)
        if part:
            lines.append(
                f"{name}: {Decimal(part['usd_per_million']):+.4f} USD/1M ({Decimal(part['share']) * 100:.0f}%)"
            )
    return "<br>".join(lines)


@dataclass
class TrendsPage:
    workloads: list[str]
    workload: str | None
    series: dict[str, list[CostSnapshot]]
    alarms: list  # AlarmMark
    snapshots: list[CostSnapshot]


@dataclass(frozen=True)
class AlarmMark:
    effective_at: object
    cost_per_million_usd: Decimal
    hover: str
    alarm: CostAlarm
    label: str


def trend_workloads() -> list[str]:
    return sorted(CostSnapshot.objects.values_list("workload_name", flat=True).distinct())


def accelerators_with_snapshots() -> list[Accelerator]:
    return list(
        Accelerator.objects.filter(pk__in=CostSnapshot.objects.values("accelerator_id")).order_by("vendor", "model")
    )


def trends_page(*, workload, price_kind, sla_p99_ms, accelerator_ids=None, workloads=None) -> TrendsPage:
    workloads = workloads if workloads is not None else trend_workloads()
    workload = workload if workload in workloads else (workloads[0] if workloads else None)
    snapshots = CostSnapshot.objects.filter(workload_name=workload, price_kind=price_kind)
    snapshots = snapshots.filter(sla_p99_ms=sla_p99_ms) if sla_p99_ms is not None else snapshots.filter(sla_p99_ms=None)
    if accelerator_ids:
        snapshots = snapshots.filter(accelerator_id__in=accelerator_ids)
    rows = list(
        snapshots.select_related("accelerator", "run", "price", "alarm")
        .defer(*(f"run__{name}" for name in _HEAVY_RUN_FIELDS))
        .order_by("effective_at", "id")[:SNAPSHOTS_SHOWN]
    )
    series: dict[str, list[CostSnapshot]] = {}
    marks = []
    for snapshot in rows:
        label = snapshot_label(snapshot, with_accelerator=True)
        series.setdefault(label, []).append(snapshot)
        alarm = getattr(snapshot, "alarm", None)
        if alarm is not None:
            hover = f"{label}<br>{alarm_hover(alarm)}"
            marks.append(AlarmMark(snapshot.effective_at, snapshot.cost_per_million_usd, hover, alarm, label))
    return TrendsPage(workloads, workload, series, marks, rows)


@dataclass(frozen=True)
class CompareSide:
    label: str
    row: object | None  # accounting.selectors.RankingRow
    reason: str


def compare_side(result, *, accelerator_id, label: str) -> CompareSide:
    """The ranking row for one run set: the given accelerator's, or the cheapest when none is given."""
    rows = [row for row in result.rows if accelerator_id is None or row.accelerator.pk == accelerator_id]
    if rows:
        return CompareSide(label, rows[0], "")
    stuck = [row for row in result.infeasible if accelerator_id is None or row.accelerator.pk == accelerator_id]
    reason = stuck[0].reason if stuck else "no eligible runs with this backend and precision"
    return CompareSide(label, None, reason)


def configuration_runs(*, model_class: str, backend: str, precision: str, accelerator_id=None) -> list:
    """The latest measured runs of one backend/precision, accuracy failures included: the verdict must see them."""
    runs = BenchmarkRun.objects.measured().filter(model_class=model_class, backend=backend, precision=precision)
    if accelerator_id is not None:
        runs = runs.filter(accelerator_id=accelerator_id)
    latest = BenchmarkRun.objects.filter(id__in=policy.latest_run_ids(runs)).defer("payload")
    return list(latest.prefetch_related("points"))


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
