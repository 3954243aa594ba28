"""A point's interval carried into its cost, and rows whose cost intervals overlap ranked as ties."""

from decimal import Decimal

import pytest

from accounting.rankings.ranking import ranking

pytestmark = pytest.mark.django_db


@pytest.fixture
def three_gpus(make_accelerator, make_price, make_run):
    """Each 1.80 USD/h (cloud on-demand, one accelerator an instance), measured in rounds.

    Alpha 500/s [480, 520]: cost 1.80 / (500 * 3600) * 1e6 = 1.000000 USD per million, interval 1.80 / (520 *
    3600) * 1e6 = 0.961538 to 1.80 / (480 * 3600) * 1e6 = 1.041667. Beta 490/s [470, 505]: 1.020408, interval
    0.990099 to 1.063830; it overlaps Alpha's (0.990099 < 1.041667): a tie. Gamma 400/s [395, 405]: 1.250000,
    interval 1.234568 to 1.265823, above Beta's high 1.063830: ranked apart.
    """
    for name, median, low, high in (("Alpha", 500, 480, 520), ("Beta", 490, 470, 505), ("Gamma", 400, 395, 405)):
        accelerator = make_accelerator(name)
        make_price(accelerator, "1.80")
        make_run(accelerator, [{"throughput_per_s": median, "throughput_low_per_s": low,
                                "throughput_high_per_s": high, "latency_p99_ms": 5.0}])  # fmt: skip


def test_each_rows_cost_carries_its_points_interval_and_overlapping_rows_are_a_tie(three_gpus):
    rows = ranking(price_kind="cloud_on_demand", workload="resnet50", sla_p99_ms=10).rows
    assert [str(row.accelerator.model) for row in rows] == ["Alpha", "Beta", "Gamma"]
    assert [row.cost_per_million_usd.quantize(Decimal("0.000001")) for row in rows] == [
        Decimal("1.000000"), Decimal("1.020408"), Decimal("1.250000"),
    ]  # fmt: skip
    assert [tuple(c.quantize(Decimal("0.000001")) for c in row.cost_interval_usd) for row in rows] == [
        (Decimal("0.961538"), Decimal("1.041667")),
        (Decimal("0.990099"), Decimal("1.063830")),
        (Decimal("1.234568"), Decimal("1.265823")),
    ]
    assert [row.tied_with_next for row in rows] == [True, False, False]


def test_the_api_shows_the_interval_and_the_tie(three_gpus, api):
    response = api.get("/api/v1/rankings/", {"workload": "resnet50", "price_kind": "cloud_on_demand", "sla_p99_ms": 10})
    assert response.status_code == 200, response.data
    first, second, third = response.data["rows"]
    assert (first["tied_with_next"], second["tied_with_next"], third["tied_with_next"]) == (True, False, False)
    assert [Decimal(v).quantize(Decimal("0.000001")) for v in first["cost_interval_usd"]] == [
        Decimal("0.961538"), Decimal("1.041667"),
    ]  # fmt: skip
