"""The tables of each page, built from selector data (shown as HTML and downloadable as CSV)."""

from urllib.parse import urlencode

from django.urls import reverse

from accounting.pricing.money import usd_text
from accounting.provenance import origin_label, run_source
from results.point_logs import has_log

from .selectors import attribution_parts
from .tables import Column, Table


def _run_link(run) -> str:
    return reverse("dashboard:run", args=[run.pk])


def _accelerator_link(accelerator) -> str:
    return reverse("dashboard:hardware", args=[accelerator.pk])


# What our harness measures about a point and a published result does not state (MLPerf publishes the system
# figure and LoadGen's percentiles): a published run's table leaves them out rather than show filler.
HARNESS_ONLY_COLUMNS = ("Batch size", "Queue wait mean (ms)", "Compute mean (ms)", "Queries (count)")


def points_table(points, throughput_per_s: dict, *, unit: str, chosen_index, published: bool = False) -> Table:
    """`throughput_per_s`: each point's throughput per accelerator in `unit`, by index (selectors.shown_throughput).
    A published run's table has no harness-only columns (HARNESS_ONLY_COLUMNS)."""
    columns = [
        Column("Point", lambda p: p.index, "int"),
        Column("Batch size", lambda p: p.batch_size, "int"),
        Column("Offered rate (queries/s)", lambda p: p.offered_rate_qps, "number"),
        Column(f"Throughput ({unit}/s per accelerator)", lambda p: throughput_per_s[p.index], "number"),
        Column("p50 (ms)", lambda p: p.latency_p50_ms, "ms"),
        Column("p99 (ms)", lambda p: p.latency_p99_ms, "ms"),
        Column("p99.9 (ms)", lambda p: p.latency_p99_9_ms, "ms"),
        Column("Queue wait mean (ms)", lambda p: p.queue_wait_mean_ms, "ms"),
        Column("Compute mean (ms)", lambda p: p.compute_mean_ms, "ms"),
        Column("Power mean (W)", lambda p: p.power_w_mean, "number"),
        Column("Queries (count)", lambda p: p.query_count, "int"),
        Column("LoadGen", loadgen_verdict),
        Column("Chosen under SLA", lambda p: "yes" if p.index == chosen_index else ""),
    ]
    if any(p.ttft_p99_ms is not None or p.tpot_p99_ms is not None for p in points):  # LLM runs
        columns[-2:-2] = [
            Column("TTFT p50 (ms)", lambda p: p.ttft_p50_ms, "ms"),
            Column("TTFT p99 (ms)", lambda p: p.ttft_p99_ms, "ms"),
            Column("TPOT p50 (ms)", lambda p: p.tpot_p50_ms, "ms"),
            Column("TPOT p99 (ms)", lambda p: p.tpot_p99_ms, "ms"),
            Column("Interactivity p99 (tokens/s per user)", _interactivity_tokens_per_s, "number"),
        ]
    if published:
        columns = [column for column in columns if column.header not in HARNESS_ONLY_COLUMNS]
    for kind in ("summary", "detail"):
        columns.append(
            Column(
                f"LoadGen {kind} log",
                lambda p, kind=kind: f"loadgen-{kind}-point-{p.index}.txt" if has_log(p, kind) else "",
                link=lambda p, kind=kind: _log_link(p, kind),
            )
        )
    return Table("points", "Operating points", columns, points, empty="This run has no operating points.")


def loadgen_verdict(point) -> str:
    """VALID, or INVALID with LoadGen's reasons in words."""
    if point.loadgen_valid:
        return "VALID"
    reasons = "; ".join(str(reason) for reason in point.loadgen_reasons or [])
    return f"INVALID: {reasons}" if reasons else "INVALID (LoadGen gave no reason)"


def _interactivity_tokens_per_s(point):
    """Tokens per second one user sees after the first token: 1000 / TPOT p99."""
    return 1000.0 / point.tpot_p99_ms if point.tpot_p99_ms else None


def _log_link(point, kind: str) -> str | None:
    if not has_log(point, kind):
        return None
    return reverse("dashboard:loadgen-log", args=[point.run_id, point.index, kind])


def endpoint_points_table(points) -> Table:
    """An endpoint's points: the client's figures, goodput, and latency split into the server's own timing
    (from its metrics) and the rest, transport and serialisation, with the stages the server's own time spans."""
    columns = [
        Column("Point", lambda p: p.index, "int"),
        Column("Concurrency (requests in flight)", lambda p: p.concurrency, "int"),
        Column("Offered rate (queries/s)", lambda p: p.offered_rate_qps, "number"),
        Column("Requests (count)", lambda p: p.sample_count, "int"),
        Column("Failed requests (count)", lambda p: p.request_errors, "int"),
        Column("TTFT p50 (ms)", lambda p: p.ttft_p50_ms, "ms"),
        Column("TTFT p99 (ms)", lambda p: p.ttft_p99_ms, "ms"),
        Column("TPOT p50 (ms)", lambda p: p.tpot_p50_ms, "ms"),
        Column("Output tokens/s", lambda p: p.output_tokens_per_s, "number"),
        Column("Goodput (requests/s)", lambda p: p.goodput_requests_per_s, "number"),
        Column("Client end-to-end mean (ms)", lambda p: p.client_e2e_mean_ms, "ms"),
        Column("Server queue mean (ms)", lambda p: p.server_queue_mean_ms, "ms"),
        Column("Server compute mean (ms)", lambda p: p.server_compute_mean_ms, "ms"),
        Column("Server end-to-end mean (ms)", lambda p: p.server_e2e_mean_ms, "ms"),
        Column("Server's own time mean (ms)", lambda p: p.server_own_time[0], "ms"),
        Column("Server's own time spans", lambda p: " + ".join(p.server_own_time[1])),
        Column("Transport and serialisation mean (ms)", lambda p: p.transport_mean_ms, "ms"),
        Column(
            "Transport share (%)", lambda p: None if p.transport_share is None else 100 * p.transport_share, "number"
        ),
    ]
    return Table("endpoint", "Endpoint: client and server timing", columns, points, empty="No endpoint points.")


def latency_layers_table(split) -> Table:
    """The Pareto chart's figures: each part of the p99, largest first, with its layer, share, running share,
    and whether it was measured for the p99 request or apportioned, and from what."""
    columns = [
        Column("Part", lambda r: r["name"]),
        Column("Layer", lambda r: r["layer"]),
        Column("Time in p99 (ms)", lambda r: r["ms"], "ms"),
        Column("Share of p99 (%)", lambda r: 100 * r["share"], "number"),
        Column("Cumulative share (%)", lambda r: 100 * r["cumulative_share"], "number"),
        Column("Measured or apportioned", lambda r: "measured" if r["measured"] else "apportioned"),
        Column("Source", lambda r: r["source"]),
    ]
    return Table("latency_layers", "Where the p99 goes", columns, split.pareto(), empty="No latency split.")


def key_value_table(name: str, title: str, mapping: dict) -> Table:
    rows = sorted((mapping or {}).items())
    columns = [Column("Key", lambda kv: kv[0]), Column("Value", lambda kv: kv[1] if kv[1] is not None else "")]
    return Table(name, title, columns, rows, empty="Not recorded.")


SPEC_FIELDS = (
    ("Vendor", "vendor"),
    ("Model", "model"),
    ("Kind", "kind"),
    ("Architecture", "architecture"),
    ("Form factor", "form_factor"),
    ("Memory (GiB)", "memory_gib"),
    ("Memory bandwidth (GB/s)", "memory_bandwidth_gbps"),
    ("FP32 (TFLOPS)", "fp32_tflops"),
    ("BF16 dense (TFLOPS)", "bf16_tflops_dense"),
    ("FP16 dense (TFLOPS)", "fp16_tflops_dense"),
    ("FP8 dense (TFLOPS)", "fp8_tflops_dense"),
    ("INT8 dense (TOPS)", "int8_tops_dense"),
    ("TDP (W)", "tdp_w"),
    ("vCPUs (count)", "vcpu_count"),
    ("Launch year", "launch_year"),
    ("Priced as", "priced_as"),
    ("Source", "source"),
)


def specs_table(accelerator) -> Table:
    rows = [(label, getattr(accelerator, field)) for label, field in SPEC_FIELDS]
    rows = [(label, value) for label, value in rows if value not in (None, "")]
    columns = [Column("Specification", lambda kv: kv[0]), Column("Value", lambda kv: kv[1])]
    return Table("specs", "Specifications", columns, rows)


def prices_table(prices) -> Table:
    columns = [
        Column("Effective from (UTC)", lambda p: p.effective_from.strftime("%Y-%m-%d %H:%M")),
        Column("Kind", lambda p: p.get_kind_display()),
        Column("Provider", lambda p: p.provider),
        Column("Region", lambda p: p.region),
        Column("Instance", lambda p: p.instance_type),
        Column("Accelerators per instance (count)", lambda p: p.accelerators_per_instance, "int"),
        Column("Price (USD)", lambda p: p.price_usd, "usd"),
        Column("Unit", lambda p: p.get_unit_display()),
        Column("Per accelerator (USD)", lambda p: p.usd_per_accelerator, "usd"),
        Column("Source", lambda p: p.source, "note"),
    ]
    return Table("prices", "Price history", columns, list(reversed(prices)), empty="No prices in the catalog yet.")


def runs_table(runs, *, with_accelerator: bool = False) -> Table:
    columns = [
        Column("Started (UTC)", lambda r: r.started_at.strftime("%Y-%m-%d %H:%M:%S"), link=_run_link),
        Column("Workload", lambda r: r.workload_name),
        Column("Scenario", lambda r: r.scenario),
        Column("Backend", lambda r: r.backend),
        Column("Precision", lambda r: r.precision),
        Column("Points (count)", lambda r: getattr(r, "point_count", None), "int"),
        Column("LoadGen", lambda r: "VALID" if r.loadgen_valid else "INVALID"),
        Column("Origin", lambda r: origin_label(r.origin)),
        Column("Source", run_source),
    ]
    if with_accelerator:
        columns.insert(
            1, Column("Accelerator", lambda r: str(r.accelerator), link=lambda r: _accelerator_link(r.accelerator))
        )
    return Table("runs", "Runs", columns, runs, empty="No runs yet: run `make run` or enqueue a job.")


def snapshots_table(snapshots) -> Table:
    columns = [
        Column("Effective at (UTC)", lambda s: s.effective_at.strftime("%Y-%m-%d %H:%M")),
        Column("Workload", lambda s: s.workload_name),
        Column("Origin", lambda s: origin_label(s.run.origin)),
        Column("Source", lambda s: run_source(s.run)),
        Column("Scenario", lambda s: s.run.scenario),
        Column("Backend/precision", lambda s: f"{s.run.backend}/{s.run.precision}", link=lambda s: _run_link(s.run)),
        Column("SLA p99 (ms)", lambda s: s.sla_p99_ms, "ms"),
        Column("SLA TTFT p99 (ms)", lambda s: s.sla_ttft_p99_ms, "ms"),
        Column("SLA TPOT p99 (ms)", lambda s: s.sla_tpot_p99_ms, "ms"),
        Column("Unit of work", lambda s: s.unit.replace("_", " ")),
        Column("Throughput (units of work/s)", lambda s: s.throughput_per_s, "number"),
        Column("p99 (ms)", lambda s: s.latency_p99_ms, "ms"),
        Column("Total (USD/h)", lambda s: s.total_usd_per_hour, "usd"),
        Column("Cost per 1M (USD)", lambda s: s.cost_per_million_usd, "usd"),
        Column("Alarm", _snapshot_alarm),
    ]
    rows = list(reversed(snapshots))
    return Table(
        "snapshots",
        "Cost snapshots",
        columns,
        rows,
        empty="No cost snapshots yet: they appear when runs are ingested and priced.",
    )


def _one(unit: str) -> str:
    """'output tokens' -> 'output token', 'inferences' -> 'inference': the unit of work, singular."""
    return unit[:-1] if unit.endswith("s") else unit


def _latency_columns(ranking, feasible) -> list[Column]:
    """The latency an answer is judged on: TTFT and TPOT p99 for an LLM (whole-request latency of a long
    generation is minutes and decides nothing), p99 per query otherwise; an LLM row adds its cost per 1M total
    tokens beside the headline per 1M output tokens."""
    if not ranking.sla.is_llm:
        return [
            Column(
                "p99 (ms)", lambda r: r["row"].latency_p99_ms if r["feasible"] else r["row"].best_latency_p99_ms, "ms"
            )
        ]
    return [
        Column("TTFT p99 (ms)", lambda r: r["row"].point.ttft_p99_ms if r["feasible"] else None, "ms"),
        Column("TPOT p99 (ms)", lambda r: r["row"].point.tpot_p99_ms if r["feasible"] else None, "ms"),
        Column(
            "Cost per 1M total tokens (USD)",
            lambda r: r["row"].tokens.cost_per_million_total_tokens_usd if r["feasible"] and r["row"].tokens else None,
            "usd",
        ),
    ]


def ranking_table(ranking, *, empty_reason: str | None = None) -> Table:
    """Feasible rows in rank order, then the infeasible hardware greyed out with its reason."""
    rows = [{"feasible": True, "row": row, "accelerator": row.accelerator} for row in ranking.rows]
    rows += [{"feasible": False, "row": row, "accelerator": row.accelerator} for row in ranking.infeasible]
    unit = ranking.unit.replace("_", " ")

    def feasible(attr, source=None):
        return lambda r: getattr(source(r["row"]) if source else r["row"], attr) if r["feasible"] else None

    columns = [
        Column("Rank", lambda r: r["row"].rank if r["feasible"] else "—"),
        Column("Accelerator", lambda r: str(r["accelerator"]), link=lambda r: _accelerator_link(r["accelerator"])),
        # The answer first: on a narrow screen the component columns scroll, the cost stays in view.
        Column(f"Cost per 1M {unit} (USD)", feasible("cost_per_million_usd"), "usd"),
        Column("Origin", lambda r: origin_label(r["row"].origin)),
        Column("Source", lambda r: r["row"].source),
        Column("Accelerators (count)", lambda r: r["row"].accelerator_count, "int"),
        Column(
            "Run / why not",
            lambda r: (
                f"{r['row'].run.backend}/{r['row'].run.precision} {r['row'].run.scenario}"
                if r["feasible"]
                else r["row"].reason
            ),
            link=lambda r: _run_link(r["row"].run) if r["feasible"] else None,
        ),
        Column(f"Throughput ({unit}/s per accelerator)", feasible("throughput_per_s"), "number"),
        *_latency_columns(ranking, feasible),
        Column(f"Energy (J per {_one(unit)})", feasible("energy_j_per_inference"), "number"),
        Column("Capex (USD/h)", feasible("capex_usd_per_hour", lambda row: row.hourly), "usd"),
        Column("Opex (USD/h)", feasible("opex_usd_per_hour", lambda row: row.hourly), "usd"),
        Column("Power (USD/h)", feasible("power_usd_per_hour", lambda row: row.hourly), "usd"),
        Column("Cloud (USD/h)", feasible("cloud_usd_per_hour", lambda row: row.hourly), "usd"),
        Column("Total (USD/h)", feasible("total_usd_per_hour", lambda row: row.hourly), "usd"),
        Column(
            "Price used",
            lambda r: f"{r['row'].price.provider} {r['row'].price.instance_type}".strip() if r["feasible"] else "",
        ),
    ]
    return Table(
        "ranking",
        "Ranking",
        columns,
        rows,
        empty=f"Nothing to rank: {empty_reason}." if empty_reason else "No runs yet: run `make run` or enqueue a job.",
        muted=lambda r: not r["feasible"],
    )


def _snapshot_alarm(snapshot) -> str:
    alarm = getattr(snapshot, "alarm", None)
    if alarm is None:
        return ""
    return f"withdrawn: {alarm.withdrawn_reason}" if alarm.withdrawn_at else "yes"


def _alarm_causes(alarm) -> str:
    return "; ".join(
        f"{name} {usd_text(usd, signed=True)} ({share:.0%})" for name, usd, share in attribution_parts(alarm)
    )


# What every alarm table shows alike, of a cost alarm and of a metered deployment's: when it was raised, the change,
# the change split by cause (both kinds store accounting.history.attribution's parts), and why in words.
ALARM_RAISED = Column("Raised (UTC)", lambda a: a.created_at.strftime("%Y-%m-%d %H:%M"))
ALARM_CHANGE = Column("Change (%)", lambda a: a.change_fraction, "pct")
ALARM_CAUSES = Column("Change by cause (USD per 1M)", _alarm_causes)
ALARM_WHY = Column("Why", lambda a: a.explanation, "note")


def _open_alarms_table(name: str, title: str, columns, alarms, open_count: int, *, api_path: str, empty: str):
    """A table of the newest open alarms. When it shows fewer than are open, its title says so and where all of them
    are. Its rows state their own workload, SLA and cost basis."""
    if open_count > len(alarms):
        title = f"{title}: the {len(alarms)} newest of {open_count} open (all: GET {api_path}?acknowledged=false)"
    return Table(name, title, columns, alarms, empty=empty, rows_state_context=True)


def alarms_table(alarms, open_count: int) -> Table:
    """The newest open cost alarms (`open_count` open in all)."""
    columns = [
        ALARM_RAISED,
        Column(
            "Accelerator",
            lambda a: str(a.snapshot.accelerator),
            link=lambda a: _accelerator_link(a.snapshot.accelerator),
        ),
        Column("Workload", lambda a: a.snapshot.workload_name),
        Column("Origin", lambda a: origin_label(a.snapshot.run.origin)),
        Column("Source", lambda a: run_source(a.snapshot.run)),
        Column("SLA", lambda a: a.snapshot.sla_label),
        Column("Cost basis", lambda a: a.snapshot.cost_basis),
        ALARM_CHANGE,
        Column("Cost per 1M (USD)", lambda a: a.snapshot.cost_per_million_usd, "usd"),
        ALARM_CAUSES,
        ALARM_WHY,
    ]
    return _open_alarms_table(
        "alarms", "Open cost alarms: measured and published figures", columns, alarms, open_count,
        api_path="/api/v1/alarms/",
        empty="No open cost alarm: every measured or published cost is within its trailing median.",
    )  # fmt: skip


# A metered period's cost is what production served at whatever latency it had: no SLA chose it.
METERED_SLA = "none (as served in production)"


def metered_alarms_table(alarms, open_count: int) -> Table:
    """The newest open alarms of metered deployments (metering.regressions; `open_count` open in all): a period's
    cost per 1M units above the deployment's earlier periods. Each row states its deployment, workload and cost
    basis."""
    columns = [
        ALARM_RAISED,
        Column("Deployment", lambda a: a.period.deployment.name, link=_metered_trend_link),
        Column("Workload", lambda a: a.period.deployment.workload_name),
        Column("Hardware", lambda a: f"{a.period.deployment.accelerator_count} x {a.period.deployment.accelerator}"),
        Column("SLA", lambda a: METERED_SLA),
        Column("Cost basis", lambda a: a.period.deployment.price_kind),
        Column("Period (UTC)", lambda a: f"{a.period.start:%Y-%m-%d %H:%M}..{a.period.end:%Y-%m-%d %H:%M}"),
        Column("Unit", lambda a: a.period.unit.replace("_", " ")),
        ALARM_CHANGE,
        Column("Metered cost per 1M (USD)", lambda a: a.period.cost_per_million_units_usd, "usd"),
        # The period the change is measured against: the one whose cost is the trailing median.
        Column("Trailing median per 1M (USD)", lambda a: a.baseline.cost_per_million_units_usd, "usd"),
        ALARM_CAUSES,
        ALARM_WHY,
    ]
    return _open_alarms_table(
        "metered_alarms", "Open cost alarms: metered production deployments", columns, alarms, open_count,
        api_path="/api/v1/metered-alarms/", empty="No open alarm on a metered deployment.",
    )  # fmt: skip


def _metered_trend_link(alarm) -> str:
    return f"{reverse('dashboard:trends')}?{urlencode({'deployment': alarm.period.deployment.name})}#metered-trend"


def agents_table(agents) -> Table:
    columns = [
        Column("Agent", lambda a: a.name),
        Column("Host", lambda a: a.hostname),
        Column("State", lambda a: a.status),
        Column(
            "Last seen (UTC)", lambda a: a.last_seen_at.strftime("%Y-%m-%d %H:%M:%S") if a.last_seen_at else "never"
        ),
        Column(
            "Devices", lambda a: ", ".join(str(d.get("name", "?")) for d in (a.devices or []) if isinstance(d, dict))
        ),
    ]
    return Table(
        "agents", "Agents", columns, agents,
        empty="No agents registered: start a Celery worker on a GPU host (see the README).",
        muted=lambda a: a.status != "online",
    )  # fmt: skip


def jobs_table(jobs, *, name: str = "jobs", title: str = "Recent jobs") -> Table:
    columns = [
        Column("Created (UTC)", lambda j: j.created_at.strftime("%Y-%m-%d %H:%M:%S")),
        Column("Agent", lambda j: str(j.agent) if j.agent_id else "any"),
        Column("Suite", lambda j: j.suite),
        Column("State", lambda j: j.state),
        Column("Progress (%)", lambda j: j.progress_pct, "number"),
        Column("Current point", lambda j: j.current_point),
        Column("Error", lambda j: j.error[:200]),
    ]
    return Table(name, title, columns, jobs, empty="No jobs yet: enqueue one on the Jobs page, or run `make run`.")


def compare_table(sides) -> Table:
    def row_value(attr, source=None):
        return lambda side: getattr(source(side.row) if source else side.row, attr) if side.row else None

    columns = [
        Column("Run set", lambda side: side.label),
        Column("Accelerator", lambda side: str(side.row.accelerator) if side.row else ""),
        Column("Origin", lambda side: origin_label(side.row.run.origin) if side.row else ""),
        Column("Source", lambda side: run_source(side.row.run) if side.row else ""),
        Column("Scenario", lambda side: side.row.run.scenario if side.row else ""),
        Column("Throughput (/s)", row_value("throughput_per_s"), "number"),
        Column("p99 (ms)", row_value("latency_p99_ms"), "ms"),
        Column("Total (USD/h)", row_value("total_usd_per_hour", lambda row: row.hourly), "usd"),
        Column("Cost per 1M (USD)", row_value("cost_per_million_usd"), "usd"),
        Column("Accuracy guard", lambda side: _accuracy(side.row.run) if side.row else side.reason),
        Column(
            "Run",
            lambda side: "open" if side.row else "",
            link=lambda side: _run_link(side.row.run) if side.row else None,
        ),
    ]
    return Table("compare", "Run sets", columns, sides, muted=lambda side: side.row is None)


def _accuracy(run) -> str:
    accuracy = run.accuracy or {}
    if run.accuracy_passed is None:
        return "fp32 reference"
    verdict = "passed" if run.accuracy_passed else "failed"
    details = [f"max abs error {accuracy['max_abs_error']:.3g}" if accuracy.get("max_abs_error") is not None else ""]
    if accuracy.get("top1_agreement") is not None:
        details.append(f"top-1 agreement {accuracy['top1_agreement']:.1%}")
    return f"{verdict} ({', '.join(d for d in details if d)})"


def metered_months_table(deployment, months) -> Table:
    """A deployment's metered months: what it served, what it cost, the benchmark's figure beside it. Each row
    names its deployment and cost basis (a CSV row copied elsewhere still says what it is)."""
    columns = [
        Column("Deployment", lambda m: deployment.name),
        Column("Workload", lambda m: deployment.workload_name),
        Column("Hardware", lambda m: f"{deployment.accelerator_count} x {deployment.accelerator}"),
        Column("Cost basis", lambda m: deployment.price_kind),
        Column("Month (UTC)", lambda m: m.month),
        Column("Unit", lambda m: m.unit.replace("_", " ")),
        Column("Periods", lambda m: len(m.periods), "int"),
        Column("Hours metered", lambda m: m.hours_metered, "number"),
        Column("Units served", lambda m: m.units_served, "number"),
        Column("Cost (USD)", lambda m: m.cost_usd, "usd"),
        Column("Metered cost per 1M (USD)", lambda m: m.cost_per_million_units_usd, "usd"),
        Column("Predicted cost per 1M (USD)", lambda m: m.predicted_cost_per_million_units_usd, "usd"),
        Column("Alarm", lambda m: " ".join(alarm.explanation for alarm in m.alarms), "note"),
        Column("Left out", lambda m: ", ".join(f"period {p.pk} overlaps one counted" for p in m.overlapping), "note"),
    ]
    return Table(
        "metered_months", "Metered cost month by month", columns, months,
        empty="No metered period for this deployment yet: its daily schedule meters each previous UTC day.",
        rows_state_context=True,
    )  # fmt: skip
