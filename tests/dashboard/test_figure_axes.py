"""Chart axes that hold up on real data: money as money, one date said as such, one point said as such."""

from datetime import UTC, datetime, timedelta
from decimal import Decimal
from types import SimpleNamespace

import pytest

from dashboard import figures


def _annotations(fig) -> list[str]:
    return [a.text for a in fig.layout.annotations]


def test_it_formats_small_money_as_plain_decimals_never_si_prefixes():
    assert figures.money_tickformat([0.0006, 0.0004]) == ",.5f"  # ticks of $0.0001 show, not "600µ"
    assert figures.money_tickformat([1234.5]) == ",.2f"
    assert "~s" not in figures.money_tickformat([0.0000012]) and "s" not in figures.money_tickformat([3.0])


def test_it_puts_a_dollar_prefix_and_no_exponent_on_cost_axes():
    snapshot = SimpleNamespace(effective_at=datetime(2026, 11, 23, 4, tzinfo=UTC), cost_per_million_usd=0.0006)
    fig = figures.cost_series({"cpu": [snapshot]}, title="t")
    assert fig.layout.yaxis.tickprefix == "$" and fig.layout.yaxis.exponentformat == "none"


def test_a_series_with_one_timestamp_spans_a_day_and_says_it_has_one_date():
    at = datetime(2026, 11, 23, 4, 30, tzinfo=UTC)
    snapshots = [SimpleNamespace(effective_at=at, cost_per_million_usd=0.0006)]
    fig = figures.cost_series({"cpu": snapshots}, title="t")
    start, end = fig.layout.xaxis.range
    assert end - start >= timedelta(days=1)
    assert "One date only: 2026-11-23" in _annotations(fig)
    assert "One snapshot per series only: no curve to draw" in _annotations(fig)
    assert fig.data[0].mode == "markers"


def test_years_of_snapshots_keep_plotlys_own_date_axis():
    rows = [SimpleNamespace(effective_at=datetime(2024 + i, 1, 1, tzinfo=UTC), cost_per_million_usd=1.0 + i)
            for i in range(3)]  # fmt: skip
    fig = figures.cost_series({"a100": rows}, title="t")
    assert fig.layout.xaxis.range is None and not _annotations(fig)
    assert fig.data[0].mode == "lines+markers"


def test_a_pareto_with_one_operating_point_says_so():
    point = SimpleNamespace(
        throughput_per_s=100.0, latency_p99_ms=3.0, index=0, batch_size=1, offered_rate_qps=None, concurrency=None
    )
    fig = figures.pareto([point], sla_p99_ms=None, chosen_index=None)
    assert "One operating point only: no curve to draw" in _annotations(fig)
    assert fig.layout.xaxis.rangemode == "tozero"  # not an axis 1.5 units wide around the point


def test_legends_sit_below_the_plot():
    fig = figures.ranking_bars([], unit="inferences")
    assert fig.layout.legend.yanchor == "top" and fig.layout.legend.y < 0


@pytest.mark.parametrize("entries", [1, 4, 30])
def test_a_price_charts_legend_sits_at_the_bottom_and_the_plot_keeps_its_height(entries):
    """The legend is anchored to the chart's bottom edge, in a margin grown by a row per entry: the plot area
    (height - top and bottom margins) stays the same however many entries, so the axis titles never reach it."""
    prices = [
        SimpleNamespace(
            get_kind_display=lambda: "Cloud on-demand",
            provider=f"cloud-{n}",
            region="",
            instance_type="",
            effective_from=datetime(2026, 1, 1, tzinfo=UTC),
            usd_per_accelerator=Decimal("2.5"),
        )  # fmt: skip
        for n in range(entries)
    ]
    fig = figures.price_history(prices, purchase=False)
    legend, margin = fig.layout.legend, fig.layout.margin
    legend_rows = min(entries, figures.LEGEND_MAX_ROWS)  # 30 entries: 10 named in the legend, 20 on hover
    assert (legend.yref, legend.y, legend.yanchor) == ("container", 0, "bottom")
    assert margin.b - figures.LEGEND_ROW_PX * legend_rows >= 80  # the x-axis ticks and title above the legend
    assert fig.layout.height - margin.t - margin.b == 360 - 40 - 80  # the plot's own 240 px, whatever the legend
    # The legend is never taller than the plot above it: 10 rows x 20 px + 10 = 210 px <= 240 px.
    assert figures.LEGEND_ROW_PX * legend_rows + 10 <= 360 - 40 - 80
    assert sum(trace.showlegend is not False for trace in fig.data) == legend_rows
    if entries > figures.LEGEND_MAX_ROWS:
        assert f"{entries - figures.LEGEND_MAX_ROWS} more series drawn, named on hover" in fig.layout.title.text


def test_it_keeps_tokens_and_inferences_on_separate_charts():
    from dashboard.selectors import series_by_unit

    def snapshot(workload, unit):
        run = SimpleNamespace(scenario="offline", backend="eager", precision="fp32", origin="measured")
        price = SimpleNamespace(provider="TestCloud", instance_type="t.1")
        return SimpleNamespace(
            workload_name=workload, unit=unit, run=run, price=price, accelerator="H100",
            effective_at=datetime(2026, 11, 23, tzinfo=UTC), cost_per_million_usd=0.5,
        )  # fmt: skip

    by_unit = series_by_unit(
        [snapshot("resnet50", "samples"), snapshot("llama3.1-8b", "output_tokens"), snapshot("bert", "samples")],
        with_accelerator=False,
    )
    assert {unit: sorted(series) for unit, series in by_unit.items()} == {
        "samples": [
            "bert · offline · eager/fp32 · TestCloud t.1 · measured",
            "resnet50 · offline · eager/fp32 · TestCloud t.1 · measured",
        ],
        "output_tokens": ["llama3.1-8b · offline · eager/fp32 · TestCloud t.1 · measured"],
    }
    fig = figures.cost_series(by_unit["output_tokens"], title="t", unit="output_tokens")
    assert fig.layout.yaxis.title.text == "USD per 1M output tokens"


class _Accelerator(SimpleNamespace):
    def __str__(self):
        return self.name


def _row(rank, accelerator_pk, name, cost):
    """A ranked row as the chart reads it: all its hourly cost is cloud rent."""
    hourly = SimpleNamespace(
        total_usd_per_hour=Decimal("2.00"),
        capex_usd_per_hour=Decimal("0"),
        opex_usd_per_hour=Decimal("0"),
        power_usd_per_hour=Decimal("0"),
        cloud_usd_per_hour=Decimal("2.00"),
    )
    return SimpleNamespace(
        rank=rank,
        accelerator=_Accelerator(pk=accelerator_pk, name=name),
        origin="external",
        source=f"MLPerf {name}",
        cost_per_million_usd=Decimal(cost),
        hourly=hourly,
    )


def test_the_overview_draws_one_bar_per_accelerator_its_best_system():
    # H100 appears three times (three published systems): ranks 1, 3 and 4. One bar each: H100 (rank 1), H200 (rank 2).
    rows = [
        _row(1, 1, "H100", "0.50"),
        _row(2, 2, "H200", "0.60"),
        _row(3, 1, "H100", "0.70"),
        _row(4, 1, "H100", "0.90"),
    ]
    fig = figures.ranking_bars(rows, unit="output_tokens")
    assert [list(bar.x) for bar in fig.data] == [["1. H100 · published", "2. H200 · published"]]
    assert list(fig.data[0].y) == [0.50, 0.60]
    assert "2 more systems in the table" in fig.layout.title.text
    assert fig.layout.yaxis.type != "log"  # 0.60 / 0.50 = 1.2x: a linear axis reads fine


def test_a_bar_more_than_ten_times_the_cheapest_puts_the_chart_on_a_labelled_log_axis():
    # $3.75 / $0.25 = 15x > LOG_AXIS_SPREAD (10): on a linear axis the $0.25 and $0.30 bars would be slivers.
    rows = [_row(1, 1, "B200", "0.25"), _row(2, 2, "H100", "0.30"), _row(3, 3, "L40S", "3.75")]
    fig = figures.ranking_bars(rows, unit="output_tokens")
    assert fig.layout.yaxis.type == "log"
    assert "log scale: the dearest is 15x the cheapest" in fig.layout.title.text
    assert len(fig.data) == 1 and list(fig.data[0].y) == [0.25, 0.30, 3.75]  # totals, no stack on a log axis
    assert "cloud: $0.25" in fig.data[0].customdata[0][2]  # the split stays in the hover
