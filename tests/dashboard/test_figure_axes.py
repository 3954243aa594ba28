"""Chart axes that hold up on real data: money as money, one date said as such, one point said as such."""

from datetime import UTC, datetime, timedelta
from types import SimpleNamespace

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


def test_legends_sit_below_the_plot():
    fig = figures.cost_series({}, title="t")
    assert fig.layout.legend.yanchor == "top" and fig.layout.legend.y < 0
