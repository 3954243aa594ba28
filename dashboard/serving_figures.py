"""The LLM serving chart: throughput per accelerator against interactivity, one front per hardware ×
engine × precision, the chosen interactivity as a line, and each front's reading at it (hover names the
two measured points the interpolation used). Data in, `go.Figure` out; no database access."""

import plotly.graph_objects as go

from accounting.pricing.money import usd_text
from accounting.serving.front import front_curve

from .figures import LAYOUT, LEGEND_MAX_ROWS

PALETTE = ("#3a6ea5", "#c8553d", "#5b8c5a", "#e0a030", "#7a4fa0", "#2a9d8f", "#8c564b", "#d6589f", "#6c757d")


def _point_hover(point) -> str:
    source = "" if point.interactivity_source is None else f"<br>interactivity from {point.interactivity_source}"
    return (
        f"{point.label}<br>{point.interactivity_tps_per_user:,.2f} tok/s per user"
        f"<br>{point.output_tokens_per_s_per_accelerator:,.0f} output tok/s per accelerator "
        f"({point.accelerators_per_replica} per replica){source}"
    )


def _reading_hover(row) -> str:
    reading, costs = row.reading, row.basis.costs
    total = "n/a" if costs.total_usd_per_million is None else usd_text(costs.total_usd_per_million)
    lower, upper = reading.lower, reading.upper
    used = (
        f"measured point: {lower.label}"
        if reading.exact
        else (
            f"interpolated between<br>  {lower.label} ({lower.interactivity_tps_per_user:,.2f}, "
            f"{lower.output_tokens_per_s_per_accelerator:,.0f})<br>  {upper.label} "
            f"({upper.interactivity_tps_per_user:,.2f}, {upper.output_tokens_per_s_per_accelerator:,.0f})"
        )
    )
    return (
        f"<b>{row.group.label}</b><br>{reading.output_tokens_per_s_per_accelerator:,.0f} output tok/s per accelerator"
        f"<br>{usd_text(costs.output_usd_per_million)} per 1M output, {total} per 1M total ({row.basis.price_kind})"
        f"<br>{used}"
    )


def serving_fronts(ranking) -> go.Figure:
    """One line per front (its Pareto points), faint dots for points off the front, a vertical line at the
    target interactivity, and a diamond where each front is read."""
    fig = go.Figure()
    fig.update_layout(
        title={"text": f"{ranking.workload.title}: output tokens/s per accelerator against interactivity", "x": 0},
        xaxis_title="Interactivity (output tokens/s per user = 1000 / TPOT p99 ms)",
        yaxis_title="Output tokens/s per accelerator",
        **LAYOUT,
    )
    colors = {}
    drawn = [g for g in ranking.fronts if g.front.points]
    for index, group in enumerate(drawn):
        color = colors[group.label] = PALETTE[index % len(PALETTE)]
        points, curve = group.front.points, front_curve(group.front)
        fig.add_scatter(
            x=[x for x, _ in curve], y=[y for _, y in curve], mode="lines", name=group.label,
            legendgroup=group.label, line={"color": color}, hoverinfo="skip",
            showlegend=index < LEGEND_MAX_ROWS,  # a legend never taller than its plot; the rest named on hover
        )  # fmt: skip
        fig.add_scatter(
            x=[p.interactivity_tps_per_user for p in points], y=[p.output_tokens_per_s_per_accelerator for p in points],
            mode="markers", name=f"{group.label}: measured points", legendgroup=group.label, showlegend=False,
            marker={"color": color, "size": 8}, hovertext=[_point_hover(p) for p in points], hoverinfo="text",
        )  # fmt: skip
        off = [(p, why) for p, why in group.front.excluded if p.interactivity_tps_per_user is not None]
        if off:
            fig.add_scatter(
                x=[p.interactivity_tps_per_user for p, _ in off],
                y=[p.output_tokens_per_s_per_accelerator for p, _ in off],
                mode="markers", name=f"{group.label}: off the front", legendgroup=group.label, showlegend=False,
                marker={"color": color, "opacity": 0.3, "size": 6},
                hovertext=[f"{_point_hover(p)}<br>{why}" for p, why in off], hoverinfo="text",
            )  # fmt: skip
    for row in ranking.rows:
        fig.add_scatter(
            x=[ranking.target_interactivity_tps_per_user], y=[row.reading.output_tokens_per_s_per_accelerator],
            mode="markers", name=f"{row.rank}. {row.group.label}", legendgroup=row.group.label, showlegend=False,
            marker={"symbol": "diamond", "size": 12, "color": colors.get(row.group.label, "#000"),
                    "line": {"color": "#000", "width": 1}},
            hovertext=[_reading_hover(row)], hoverinfo="text",
        )  # fmt: skip
    fig.add_vline(
        x=ranking.target_interactivity_tps_per_user, line={"color": "#444", "dash": "dash"},
        annotation_text=f"target {ranking.target_interactivity_tps_per_user:.2f} tok/s per user",
        annotation_position="top right",
    )  # fmt: skip
    fig.update_layout(legend={"orientation": "v", "y": 1, "x": 1.02}, margin={"r": 280})
    if len(drawn) > LEGEND_MAX_ROWS:
        title = fig.layout.title.text or ""
        more = len(drawn) - LEGEND_MAX_ROWS
        fig.update_layout(title_text=f"{title}<br><sup>{more} more fronts drawn, named on hover</sup>")
    return fig
