"""Plotly figures for the dashboard, as plain functions: data in, `go.Figure` out, no database access.

`render()` turns a figure into an HTML fragment: a <div> and the figure as a JSON data block, drawn by the
static dashboard/figures.js once plotly.js is loaded (from the project's static files, see
dashboard.staticfiles): figures never pull a script from a CDN, and no inline script runs (the
Content-Security-Policy allows none).
"""

import json
import math
from collections.abc import Iterable
from datetime import timedelta
from decimal import Decimal

import plotly.graph_objects as go
from django.utils.html import format_html, json_script
from django.utils.safestring import SafeString

from accounting.pricing.money import usd_text
from accounting.provenance import origin_label
from results.models import RunOrigin

COLORS = {
    "capex": "#3a6ea5",
    "opex": "#7aa6d6",
    "power": "#e0a030",
    "cloud": "#5b8c5a",
    "queue": "#c8553d",
    "batch": "#e0a030",
    "compute": "#3a6ea5",
    "sla": "#c8553d",
    "chosen": "#c8553d",
}
LAYOUT = {
    "template": "plotly_white",
    "margin": {"l": 70, "r": 20, "t": 40, "b": 110},
    "font": {"family": "system-ui, -apple-system, Segoe UI, Roboto, sans-serif", "size": 12},
    # Below the axis title, anchored by its top: a legend never covers the plot.
    "legend": {"orientation": "h", "x": 0, "xanchor": "left", "y": -0.28, "yanchor": "top"},
    "hoverlabel": {"align": "left"},
}


def render(fig: go.Figure, div_id: str, *, height: int | None = None) -> SafeString:
    """The figure as a <div> and a JSON data block that figures.js draws with plotly.js.
    Height: `height`, else the figure's own (legend_below sets one), else 360 px."""
    fig.update_layout(height=height or fig.layout.height or 360)
    spec = json.loads(fig.to_json())  # plotly's encoder (numpy, dates), then plain JSON for json_script
    spec["config"] = {"displaylogo": False, "responsive": True}
    return format_html(
        '<div id="{}" class="plotly-graph-div" style="height:{}px; width:100%;" data-figure="{}"></div>{}',
        div_id,
        fig.layout.height,
        f"{div_id}-figure",
        json_script(spec, f"{div_id}-figure"),
    )


def unit_words(unit: str) -> str:
    """A unit of work as words: output_tokens -> "output tokens"."""
    return unit.replace("_", " ")


def _figure(title: str, *, x_title: str, y_title: str) -> go.Figure:
    fig = go.Figure()
    fig.update_layout(title={"text": title, "x": 0}, xaxis_title=x_title, yaxis_title=y_title, **LAYOUT)
    return fig


def money_tickformat(values: Iterable[float]) -> str:
    """A d3 format for a dollar axis: plain decimals (never SI prefixes such as "600µ"), as many as the
    smallest tick step needs to show two significant digits (ticks are about a fifth of the largest value)."""
    largest = max((abs(float(v)) for v in values if v is not None), default=0.0)
    if largest <= 0:
        return ",.2f"
    decimals = max(2, math.ceil(-math.log10(largest / 5)) + 1)
    return f",.{min(decimals, 10)}f"


def money_axis(fig: go.Figure, values: Iterable[float], *, axis: str = "y") -> None:
    """Format an axis as US dollars."""
    update = fig.update_yaxes if axis == "y" else fig.update_xaxes
    update(tickprefix="$", tickformat=money_tickformat(values), exponentformat="none")


LEGEND_ROW_PX = 20
# A legend of at most this many rows (10 x 20 px + 10) stays shorter than the 240 px plot above it (360 px
# chart - 40 px top - 80 px for the x axis); the entries past it are drawn but named only on hover, and the
# chart says how many.
LEGEND_MAX_ROWS = 10
CAP_NOTE_PX = 24


def legend_below(fig: go.Figure, rows: int, *, height_px: int = 360) -> None:
    """The legend under the x-axis title, anchored to the bottom of the chart, in a bottom margin grown by a row
    per entry (the worst case: one entry a row), and the chart grown by as much: however many entries, the plot
    keeps its height, so neither axis title reaches the legend or the chart's title. Past LEGEND_MAX_ROWS
    entries, the later traces leave the legend (cap_legend)."""
    capped = rows > LEGEND_MAX_ROWS
    rows = cap_legend(fig, rows)
    legend_px = LEGEND_ROW_PX * max(rows, 1) + 10
    title_px = CAP_NOTE_PX if capped else 0  # the title's second line, so the plot keeps its height
    fig.update_layout(
        legend={"orientation": "h", "x": 0, "xanchor": "left", "yref": "container", "y": 0, "yanchor": "bottom"},
        margin={**LAYOUT["margin"], "t": LAYOUT["margin"]["t"] + title_px, "b": 80 + legend_px},
        height=height_px + legend_px + title_px,
    )


def cap_legend(fig: go.Figure, rows: int) -> int:
    """Keep the first LEGEND_MAX_ROWS traces in the legend and name the others on hover only, saying so."""
    if rows <= LEGEND_MAX_ROWS:
        return rows
    for trace in fig.data[LEGEND_MAX_ROWS:]:
        trace.showlegend = False
    title = fig.layout.title.text or ""
    fig.update_layout(title_text=f"{title}<br><sup>{rows - LEGEND_MAX_ROWS} more series drawn, named on hover</sup>")
    return LEGEND_MAX_ROWS


def say_single_point(fig: go.Figure, what: str) -> None:
    """A chart with one point says so instead of drawing a degenerate curve."""
    fig.add_annotation(
        text=f"One {what} only: no curve to draw",
        xref="paper",
        yref="paper",
        x=0.5,
        y=1.0,
        yanchor="bottom",
        showarrow=False,
        font={"color": "#666"},
        name="single-point",
    )


def time_axis(fig: go.Figure, times: list) -> None:
    """A date axis that makes sense for one timestamp (a day around it, labelled) and for years."""
    times = [t for t in times if t is not None]
    if not times:
        return
    first, last = min(times), max(times)
    if last - first < timedelta(days=1):
        middle = first + (last - first) / 2
        fig.update_xaxes(
            range=[middle - timedelta(hours=12), middle + timedelta(hours=12)], tickformat="%H:%M\n%b %d, %Y"
        )
        fig.add_annotation(
            text=f"One date only: {first:%Y-%m-%d}",
            xref="paper",
            yref="paper",
            x=1.0,
            xanchor="right",
            y=1.0,
            yanchor="bottom",
            showarrow=False,
            font={"color": "#666"},
            name="one-date",
        )


# Beyond this ratio of the dearest bar to the cheapest, a linear axis flattens the cheap bars into the floor
# (one L40S at $3.75 per 1M made H100 vs H200 vs B200 unreadable): the chart switches to a labelled log axis.
LOG_AXIS_SPREAD = 10


def best_row_per_accelerator(rows) -> list:
    """The first (cheapest-ranked) row of each accelerator, in rank order: its best system."""
    seen: set = set()
    best = []
    for row in rows:
        if row.accelerator.pk not in seen:
            seen.add(row.accelerator.pk)
            best.append(row)
    return best


def ranking_bars(rows, *, unit: str) -> go.Figure:
    """Cost per 1M, one bar per accelerator (its best system; the others are in the table) in rank order.

    On a linear axis each bar is split by where the hourly money goes: each segment is the cost per million
    times that component's share of the hourly total, so the stack adds up to the ranked figure. When the
    dearest bar is more than LOG_AXIS_SPREAD times the cheapest, the axis is logarithmic and says so, and each
    bar is its total (segments of a stack cannot be read on a log axis); the split stays in the hover.
    """
    best = best_row_per_accelerator(rows)
    labels = [f"{row.rank}. {row.accelerator} · {origin_label(row.origin)}" for row in best]
    # Published bars are hatched, and every bar's hover names its source (round, division, submitter, system).
    patterns = ["/" if row.origin != RunOrigin.MEASURED else "" for row in best]
    sources = [row.source for row in best]
    costs = [float(row.cost_per_million_usd) for row in best]
    log_axis = bool(costs) and min(costs) > 0 and max(costs) / min(costs) > LOG_AXIS_SPREAD
    notes = []
    if len(best) < len(rows):
        notes.append(f"{len(rows) - len(best)} more systems in the table")
    if any(patterns):
        notes.append("hatched: published (MLPerf) results")
    if log_axis:
        notes.append(f"log scale: the dearest is {max(costs) / min(costs):.0f}x the cheapest")
    title = f"Cost per 1M {unit.replace('_', ' ')} (USD), cheapest first, best system per accelerator"
    fig = _figure(title + (f"<br><sup>{' · '.join(notes)}</sup>" if notes else ""), x_title="", y_title="USD per 1M")
    if notes:  # room for the title's second line
        fig.update_layout(margin={**LAYOUT["margin"], "t": LAYOUT["margin"]["t"] + CAP_NOTE_PX})
    splits = {component: [_share(row, field) for row in best] for component, field in COST_COMPONENTS}
    if log_axis:
        split_lines = [
            "<br>".join(f"{name}: {usd_text(values[i])}" for name, values in splits.items() if values[i])
            for i in range(len(best))
        ]
        customdata = [[sources[i], usd_text(costs[i]), split_lines[i]] for i in range(len(best))]
        fig.add_bar(
            name="total",
            x=labels,
            y=costs,
            customdata=customdata,
            marker={"color": COLORS["cloud"], "pattern": {"shape": patterns, "fillmode": "overlay"}},
            hovertemplate="%{x}<br>%{customdata[0]}<br>total: %{customdata[1]} per 1M<br>%{customdata[2]}"
            "<extra></extra>",
        )
        fig.update_yaxes(type="log")
    else:
        _add_component_bars(fig, splits, labels=labels, sources=sources, patterns=patterns)
    fig.update_layout(barmode="stack", bargap=0.4)
    money_axis(fig, costs)
    return fig


def _add_component_bars(fig: go.Figure, splits: dict, *, labels, sources, patterns) -> None:
    for component, values in splits.items():
        if any(values):
            fig.add_bar(
                name=component,
                x=labels,
                y=values,
                customdata=[[source, usd_text(value)] for source, value in zip(sources, values, strict=True)],
                marker={"color": COLORS[component], "pattern": {"shape": patterns, "fillmode": "overlay"}},
                hovertemplate=f"%{{x}}<br>%{{customdata[0]}}<br>{component}: %{{customdata[1]}} per 1M<extra></extra>",
            )


COST_COMPONENTS = (
    ("capex", "capex_usd_per_hour"),
    ("opex", "opex_usd_per_hour"),
    ("power", "power_usd_per_hour"),
    ("cloud", "cloud_usd_per_hour"),
)


def _share(row, field: str) -> float:
    """The part of the row's cost per million that this hourly component pays for."""
    total = row.hourly.total_usd_per_hour
    share = getattr(row.hourly, field) / total if total else Decimal("0")
    return float(row.cost_per_million_usd * share)


def pareto(
    points,
    throughput_per_s: dict | None = None,
    *,
    sla_p99_ms: float | None,
    chosen_index: int | None,
    unit: str = "inferences",
) -> go.Figure:
    """p99 latency against throughput per accelerator (`throughput_per_s` by point index, default each point's
    own) across operating points, with the SLA line and the chosen point."""
    throughput = throughput_per_s or {p.index: p.throughput_per_s for p in points}
    points = sorted(points, key=lambda p: throughput[p.index] or 0)
    fig = _figure("Latency vs throughput", x_title=f"Throughput ({unit}/s per accelerator)", y_title="p99 latency (ms)")
    if len(points) == 1:
        say_single_point(fig, "operating point")
    fig.add_scatter(
        x=[throughput[p.index] for p in points],
        y=[p.latency_p99_ms for p in points],
        mode="lines+markers" if len(points) > 1 else "markers",
        name="operating points",
        text=[_point_label(p) for p in points],
        hovertemplate="%{text}<br>%{x:,.1f}/s, p99 %{y:,.3f} ms<extra></extra>",
    )
    if sla_p99_ms is not None:
        fig.add_hline(
            y=float(sla_p99_ms),
            line_dash="dash",
            line_color=COLORS["sla"],
            annotation_text=f"SLA p99 ≤ {float(sla_p99_ms):g} ms",
            annotation_position="top left",
        )
    chosen = [p for p in points if p.index == chosen_index]
    if chosen:
        fig.add_scatter(
            x=[throughput[chosen[0].index]],
            y=[chosen[0].latency_p99_ms],
            mode="markers",
            name="chosen under SLA",
            marker={"symbol": "star", "size": 16, "color": COLORS["chosen"]},
            hovertemplate="chosen: %{x:,.1f}/s, p99 %{y:,.3f} ms<extra></extra>",
        )
    fig.update_yaxes(rangemode="tozero")
    # From zero: one point (or points close together) would otherwise sit on an axis a few units wide.
    fig.update_xaxes(rangemode="tozero")
    return fig


def _point_label(point) -> str:
    if point.offered_rate_qps:
        return f"point {point.index}: {point.offered_rate_qps:,.0f} q/s offered"
    if point.concurrency:
        return f"point {point.index}: concurrency {point.concurrency}"
    return f"point {point.index}: batch {point.batch_size}"


PERCENTILES = (
    ("min", "latency_min_ms", 0.0),
    ("p50", "latency_p50_ms", 0.5),
    ("p90", "latency_p90_ms", 0.9),
    ("p95", "latency_p95_ms", 0.95),
    ("p99", "latency_p99_ms", 0.99),
    ("p99.9", "latency_p99_9_ms", 0.999),
    ("max", "latency_max_ms", 1.0),
)


CDF_LABELS = {"p50": "bottom right", "p90": "bottom right", "p99": "bottom right", "max": "top left"}


def latency_cdf(point) -> go.Figure:
    """The latency distribution at one point, drawn through the stored percentiles (not every sample)."""
    stored = [(name, getattr(point, field), q) for name, field, q in PERCENTILES if getattr(point, field) is not None]
    fig = _figure(f"Latency distribution at {_point_label(point)}", x_title="Latency (ms)", y_title="Share of queries")
    fig.add_scatter(
        x=[value for _, value, _ in stored],
        y=[q for _, _, q in stored],
        mode="lines+markers+text",
        # The tail's percentiles sit a few pixels apart: p95 and p99.9 are left to the hover, and max is
        # labelled above the line where p99 is labelled below, so no two labels overlap.
        text=[name if name in CDF_LABELS else "" for name, _, _ in stored],
        textposition=[CDF_LABELS.get(name, "bottom right") for name, _, _ in stored],
        customdata=[name for name, _, _ in stored],
        cliponaxis=False,  # "max" sits at 100%, its label above the plot's top edge
        line_shape="linear",
        name="CDF",
        hovertemplate="%{customdata}: %{x:,.3f} ms<extra></extra>",
    )
    fig.update_yaxes(range=[0, 1.05], tickformat=".0%")
    return fig


def latency_budget(points) -> go.Figure:
    """Where a server query's time goes at each load level: queue wait, batch formation, compute (means)."""
    labels = [_point_label(p) for p in points]
    fig = _figure("Latency budget per load level (mean)", x_title="", y_title="Time (ms)")
    for name, field, color in (
        ("queue wait", "queue_wait_mean_ms", COLORS["queue"]),
        ("batch formation", "batch_formation_mean_ms", COLORS["batch"]),
        ("compute", "compute_mean_ms", COLORS["compute"]),
    ):
        fig.add_bar(
            name=name,
            x=labels,
            y=[getattr(p, field) or 0 for p in points],
            marker_color=color,
            hovertemplate=f"{name}: %{{y:,.3f}} ms<extra></extra>",
        )
    fig.update_layout(barmode="stack")
    return fig


LAYER_COLORS = {"compute": "#3a6ea5", "memory": "#7aa6d6", "batching/queue": "#c8553d", "transport": "#e0a030",
                "unsplit": "#999999"}  # fmt: skip


def latency_layers_pareto(split, point_label: str) -> go.Figure:
    """Where one point's p99 goes (harness.latency_layers): one bar per part, largest first, coloured by layer,
    and the cumulative share of the p99 as a line on a second axis (the Pareto chart). The bars add up to the
    p99; each hover names the part's source and whether it was measured or apportioned."""
    rows = split.pareto()
    fig = _figure(
        f"Where the p99 goes at {point_label}: {split.p99_ms:,.3f} ms, the sum of its parts",
        x_title="Part of the p99, largest first", y_title="Time in the p99 (ms)",
    )  # fmt: skip
    shown_layers = set()
    for row in rows:
        layer = row["layer"]
        fig.add_bar(
            x=[row["name"]], y=[row["ms"]], name=layer, legendgroup=layer, showlegend=layer not in shown_layers,
            marker_color=LAYER_COLORS.get(layer, "#999999"),
            customdata=[[row["share"], "measured" if row["measured"] else "apportioned", row["source"]]],
            hovertemplate="%{x}: %{y:,.4f} ms (%{customdata[0]:.1%} of p99)<br>%{customdata[1]}: %{customdata[2]}"
            "<extra>" + layer + "</extra>",
        )  # fmt: skip
        shown_layers.add(layer)
    fig.add_scatter(
        x=[row["name"] for row in rows], y=[row["cumulative_share"] for row in rows], mode="lines+markers",
        name="cumulative share of p99", yaxis="y2", line={"color": "#333333"},
        hovertemplate="up to %{x}: %{y:.1%} of p99<extra></extra>",
    )  # fmt: skip
    fig.update_layout(
        barmode="group", bargap=0.15,
        yaxis2={"title": "Cumulative share of p99", "overlaying": "y", "side": "right", "range": [0, 1.05],
                "tickformat": ".0%", "dtick": 0.25, "showgrid": False},
        xaxis={"categoryorder": "array", "categoryarray": [row["name"] for row in rows], "tickangle": -20,
               "automargin": True},
        margin={**LAYOUT["margin"], "r": 70, "b": 150},
        height=460,
    )  # fmt: skip
    fig.update_yaxes(rangemode="tozero", tickformat=",.3f", selector={"anchor": "x"})
    return fig


def point_power(points) -> go.Figure:
    """Mean power at each point, in measurement order (the harness samples power per point)."""
    measured = [p for p in points if p.power_w_mean is not None]
    fig = _figure("Power while measuring", x_title="Operating point (measurement order)", y_title="Mean power (W)")
    fig.add_scatter(
        x=[_point_label(p) for p in measured], y=[p.power_w_mean for p in measured], mode="lines+markers", name="W"
    )
    fig.update_yaxes(rangemode="tozero")
    return fig


def price_history(prices, *, purchase: bool) -> go.Figure:
    """One step line per (price kind, provider): cloud in USD per accelerator-hour, purchase in USD per unit."""
    if purchase:
        fig = _figure("Purchase price", x_title="Effective from", y_title="USD per unit")
    else:
        fig = _figure("Cloud price", x_title="Effective from", y_title="USD per accelerator-hour")
    series: dict[str, list] = {}
    for price in prices:
        label = f"{price.get_kind_display()} · {price.provider}" + (f" · {price.region}" if price.region else "")
        series.setdefault(label, []).append(price)
    for label, rows in series.items():
        rows.sort(key=lambda p: p.effective_from)
        fig.add_scatter(
            x=[p.effective_from for p in rows],
            y=[float(p.usd_per_accelerator) for p in rows],
            mode="lines+markers",
            line_shape="hv",
            name=label,
            text=[f"{usd_text(p.usd_per_accelerator)} {p.instance_type or ''}" for p in rows],
            hovertemplate="%{x|%Y-%m-%d}: %{text}<extra>" + label + "</extra>",
        )
    money_axis(fig, [float(p.usd_per_accelerator) for p in prices])
    time_axis(fig, [p.effective_from for p in prices])
    legend_below(fig, len(series))
    if len(prices) == 1:
        say_single_point(fig, "price")
    return fig


def cost_series(
    series: dict[str, list], *, alarms: Iterable = (), title: str, unit: str = "inferences", height_px: int = 360
) -> go.Figure:
    """Cost per 1M over time, a line per series; alarms as markers whose hover text explains the change.

    `series` maps a label to snapshots (effective_at, cost_per_million_usd); `alarms` are objects with
    `effective_at`, `cost_per_million_usd`, `label` and `hover` (the attribution, already worded).
    """
    fig = _figure(title, x_title="Effective from", y_title=f"USD per 1M {unit_words(unit)}")
    alarms = list(alarms)
    if alarms:  # first, so that a capped legend still names the alarms
        fig.add_scatter(
            x=[alarm.effective_at for alarm in alarms],
            y=[float(alarm.cost_per_million_usd) for alarm in alarms],
            mode="markers",
            name="alarm",
            marker={"symbol": "triangle-up", "size": 14, "color": COLORS["sla"]},
            meta={"unit": unit},
            text=[alarm.hover for alarm in alarms],
            hovertemplate="%{text}<extra>alarm</extra>",
        )
    # Cheapest latest cost first: the series a reader compares against come first in a capped legend.
    for label, rows in sorted(series.items(), key=lambda item: item[1][-1].cost_per_million_usd if item[1] else 0):
        fig.add_scatter(
            x=[row.effective_at for row in rows],
            y=[float(row.cost_per_million_usd) for row in rows],
            mode="lines+markers" if len(rows) > 1 else "markers",
            line_shape="hv",
            name=label,
            meta={"unit": unit},  # what the y values count, read back by the browser tests: one unit per axis
            text=[usd_text(row.cost_per_million_usd) for row in rows],
            hovertemplate="%{x|%Y-%m-%d %H:%M}: %{text} per 1M<extra>" + label + "</extra>",
        )
    fig.update_yaxes(rangemode="tozero")
    all_rows = [row for rows in series.values() for row in rows]
    money_axis(fig, [float(row.cost_per_million_usd) for row in all_rows])
    time_axis(fig, [row.effective_at for row in all_rows])
    legend_below(fig, len(series) + (1 if alarms else 0), height_px=height_px)
    if series and all(len(rows) == 1 for rows in series.values()):
        say_single_point(fig, "snapshot per series")
    return fig


def metered_trend(months: list, *, title: str, unit: str, height_px: int = 360) -> go.Figure:
    """A deployment's metered cost per 1M month by month, the benchmark's prediction for the same units beside it,
    and a triangle on each month with a metered alarm.

    `months` are objects with `month` (YYYY-MM), `cost_per_million_units_usd`, `predicted_cost_per_million_units_usd`
    (either may be None: that month's point is left out, never drawn as zero) and `alarms` (each with `explanation`).
    """
    fig = _figure(title, x_title="Month (UTC)", y_title=f"USD per 1M {unit_words(unit)}")
    traces = [
        ("metered (actual)", "cost_per_million_units_usd", COLORS["capex"], "solid"),
        ("predicted by the benchmark", "predicted_cost_per_million_units_usd", COLORS["cloud"], "dash"),
    ]
    values = []
    for name, attribute, color, dash in traces:
        rows = [m for m in months if getattr(m, attribute) is not None]
        values += [float(getattr(m, attribute)) for m in rows]
        fig.add_scatter(
            x=[m.month for m in rows],
            y=[float(getattr(m, attribute)) for m in rows],
            mode="lines+markers",
            name=name,
            line={"color": color, "dash": dash},
            meta={"unit": unit},
            text=[usd_text(getattr(m, attribute)) for m in rows],
            hovertemplate="%{x}: %{text} per 1M<extra>" + name + "</extra>",
        )
    alarmed = [m for m in months if m.alarms and m.cost_per_million_units_usd is not None]
    if alarmed:
        fig.add_scatter(
            x=[m.month for m in alarmed],
            y=[float(m.cost_per_million_units_usd) for m in alarmed],
            mode="markers",
            name="alarm",
            marker={"symbol": "triangle-up", "size": 14, "color": COLORS["sla"]},
            meta={"unit": unit},
            text=["<br>".join(alarm.explanation for alarm in m.alarms) for m in alarmed],
            hovertemplate="%{text}<extra>alarm</extra>",
        )
    fig.update_xaxes(type="category", categoryorder="array", categoryarray=[m.month for m in months])
    fig.update_yaxes(rangemode="tozero")
    money_axis(fig, values)
    legend_below(fig, len(traces) + (1 if alarmed else 0), height_px=height_px)
    if len(months) == 1:
        say_single_point(fig, "month")
    return fig


def before_after(*, before_usd, after_usd, unit: str = "inferences") -> go.Figure:
    fig = _figure(f"Cost per 1M {unit.replace('_', ' ')}: before and after", x_title="", y_title="USD per 1M")
    fig.add_bar(
        x=["before", "after"],
        y=[float(before_usd), float(after_usd)],
        marker_color=[COLORS["opex"], COLORS["capex"]],
        text=[usd_text(before_usd), usd_text(after_usd)],
        textposition="auto",
        hovertemplate="%{x}: %{text} per 1M<extra></extra>",
    )
    money_axis(fig, [float(before_usd), float(after_usd)])
    return fig
