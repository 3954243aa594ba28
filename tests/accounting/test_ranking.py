"""The SLA-constrained ranking, checked against arithmetic written out by hand."""

from datetime import UTC, datetime
from decimal import Decimal

import pytest

from accounting.rankings.ranking import ranking
from tests.money import per_million

pytestmark = pytest.mark.django_db


@pytest.fixture
def fleet(make_accelerator, make_price, make_run):
    """Alpha and Beta meet a 10 ms SLA, Gamma does not; only Alpha has a purchase price."""
    alpha = make_accelerator("Alpha", tdp_w=300)
    beta = make_accelerator("Beta", tdp_w=350)
    gamma = make_accelerator("Gamma", tdp_w=400)
    make_price(alpha, "2.00")  # cloud on-demand, 1 accelerator per instance: 2.00 USD/h
    make_price(beta, "6.00", accelerators_per_instance=2)  # 6.00 / 2 = 3.00 USD/h
    make_price(gamma, "1.00")
    make_price(alpha, "10000", kind="purchase", provider="Vendor")
    make_run(
        alpha,
        [
            {"throughput_per_s": 100, "latency_p99_ms": 5.0, "power_w_mean": 120},
            {"throughput_per_s": 400, "latency_p99_ms": 9.0, "power_w_mean": 250},
            {"throughput_per_s": 900, "latency_p99_ms": 25.0, "power_w_mean": 290},
        ],
    )
    make_run(
        beta,
        [
            {"throughput_per_s": 300, "latency_p99_ms": 4.0},
            {"throughput_per_s": 500, "latency_p99_ms": 8.0},
            {"throughput_per_s": 700, "latency_p99_ms": 14.0},
        ],
    )
    make_run(
        gamma, [{"throughput_per_s": 1000, "latency_p99_ms": 20.0}, {"throughput_per_s": 600, "latency_p99_ms": 12}]
    )
    return alpha, beta, gamma


def test_it_ranks_cheapest_feasible_first_for_cloud_prices(fleet):
    alpha, beta, gamma = fleet
    result = ranking(model_class="cv-classification", sla_p99_ms=10, price_kind="cloud_on_demand")

    # Alpha: best point with p99 <= 10 ms is 400/s (9 ms); 2.00 / (400 * 3600) * 1e6 = 2 / 1.44 = 1.38888…
    # Beta:  best point with p99 <= 10 ms is 500/s (8 ms); 3.00 / (500 * 3600) * 1e6 = 3 / 1.8  = 1.66666…
    assert [(row.rank, row.accelerator, row.cost_per_million_usd) for row in result.rows] == [
        (1, alpha, per_million("2.00", 400)),
        (2, beta, per_million("3.00", 500)),
    ]
    assert [row.throughput_per_s for row in result.rows] == [400, 500]
    assert result.rows[1].hourly.total_usd_per_hour == Decimal("3.000000")
    assert result.rows[0].price.price_usd == Decimal("2.00")
    # Gamma's fastest point under 10 ms does not exist: its best p99 is 12 ms.
    assert [(row.accelerator, row.best_latency_p99_ms) for row in result.infeasible] == [(gamma, 12.0)]
    assert "best measured p99 is 12.000 ms" in result.infeasible[0].reason
    assert result.unit == "samples"  # resnet50 counts samples (images), as MLPerf does


def test_it_scales_cost_by_utilization(fleet):
    result = ranking(model_class="cv-classification", sla_p99_ms=10, price_kind="cloud_on_demand", utilization="0.5")
    # Half the paid hours serve: 1.38888… / 0.5 = 2.7777… and 1.66666… / 0.5 = 3.3333…
    assert [row.cost_per_million_usd for row in result.rows] == [
        per_million("2.00", 400, "0.5"),
        per_million("3.00", 500, "0.5"),
    ]


def test_it_costs_purchase_with_measured_power_and_lists_unpriced_hardware(fleet):
    alpha, beta, gamma = fleet
    result = ranking(model_class="cv-classification", sla_p99_ms=10, price_kind="purchase")

    # Default assumptions: 4 years, 10 % opex, 0.12 USD/kWh, PUE 1.4, 5,000 USD host share.
    # capex  = 10,000 + 5,000 = 15,000 USD;  15,000 / (4 * 8,766)     = 0.427789 USD/h
    # opex   = 15,000 * 0.10 / 8,766                                   = 0.171116 USD/h
    # power  = 250 W measured at the 400/s point: 0.250 * 1.4 * 0.12   = 0.042000 USD/h
    # total  = 0.640905 USD/h;  0.640905 / (400 * 3600) * 1e6 = 0.640905 / 1.44 = 0.44507…
    (row,) = result.rows
    assert row.accelerator == alpha
    assert row.hourly.capex_usd_per_hour == Decimal("0.427789")
    assert row.hourly.opex_usd_per_hour == Decimal("0.171116")
    assert row.hourly.power_usd_per_hour == Decimal("0.042000")
    assert row.hourly.power_source == "measured"
    assert row.cost_per_million_usd == per_million("0.640905", 400)
    # 250 W / 400 per second = 0.625 J per inference
    assert row.energy_j_per_inference == pytest.approx(0.625)
    reasons = {row.accelerator: row.reason for row in result.infeasible}
    assert reasons[beta].startswith("no purchase price in force")
    assert "no operating point meets p99 <= 10 ms" in reasons[gamma]


def test_it_uses_the_fastest_point_when_there_is_no_sla(fleet):
    alpha, beta, gamma = fleet
    result = ranking(model_class="cv-classification", sla_p99_ms=None, price_kind="cloud_on_demand")
    # Gamma 1.00 / (1000 * 3600) * 1e6 = 0.2778; Alpha 2.00 / 3.24 = 0.6173; Beta 3.00 / 2.52 = 1.1905
    assert [(row.accelerator, row.cost_per_million_usd) for row in result.rows] == [
        (gamma, per_million("1.00", 1000)),
        (alpha, per_million("2.00", 900)),
        (beta, per_million("3.00", 700)),
    ]
    assert result.infeasible == []


def test_it_counts_only_the_latest_valid_accurate_run_per_configuration(make_accelerator, make_price, make_run):
    gpu = make_accelerator("Delta")
    make_price(gpu, "3.60")
    make_run(gpu, [{"throughput_per_s": 100, "latency_p99_ms": 5}], started_at=datetime(2025, 1, 1, tzinfo=UTC))
    make_run(gpu, [{"throughput_per_s": 200, "latency_p99_ms": 5}], started_at=datetime(2025, 2, 1, tzinfo=UTC))
    make_run(gpu, [{"throughput_per_s": 9000, "latency_p99_ms": 5}], loadgen_valid=False,
             started_at=datetime(2025, 3, 1, tzinfo=UTC))  # fmt: skip
    make_run(gpu, [{"throughput_per_s": 8000, "latency_p99_ms": 5}], precision="int8", accuracy_passed=False,
             started_at=datetime(2025, 3, 1, tzinfo=UTC))  # fmt: skip

    (row,) = ranking(model_class="cv-classification", sla_p99_ms=10, price_kind="cloud_on_demand").rows
    # The February run replaced January's; the invalid and the inaccurate runs do not count.
    # 3.60 / (200 * 3600) * 1e6 = 5.0000
    assert row.cost_per_million_usd == Decimal("5.0000")
    then = ranking(
        model_class="cv-classification", sla_p99_ms=10, price_kind="cloud_on_demand",
        as_of=datetime(2025, 1, 15, tzinfo=UTC),
    )  # fmt: skip
    # As of mid-January only the first run existed: 3.60 / 0.36 = 10.0000
    assert [row.cost_per_million_usd for row in then.rows] == [Decimal("10.0000")]


def test_it_ranks_llm_decoders_per_million_output_tokens(make_accelerator, make_price, make_run):
    gpu = make_accelerator("Epsilon")
    make_price(gpu, "7.20")
    make_run(
        gpu,
        [{"throughput_per_s": 2.0, "output_tokens_per_s": 500.0, "latency_p99_ms": 15000,
          "ttft_p99_ms": 800.0, "tpot_p99_ms": 120.0}],
        model_class="llm-decoder",
        workload_name="llama2-70b-99",
    )  # fmt: skip
    result = ranking(model_class="llm-decoder", ttft_p99_ms=2000, tpot_p99_ms=200, price_kind="cloud_on_demand")
    # 7.20 / (500 tokens/s * 3600) * 1e6 = 7.2 / 1.8 = 4.0000 USD per million output tokens
    assert result.workload.id == "llama2-70b-99" and result.unit == "output_tokens"
    assert [row.cost_per_million_usd for row in result.rows] == [Decimal("4.0000")]
    (row,) = result.rows
    # 2 requests/s as measured; llama2-70b-99 states no input length, so no total-token figure (said, not guessed)
    assert row.tokens.rates.requests_per_s == 2.0 and row.tokens.cost_per_million_total_tokens_usd is None
    assert "no input tokens per request" in row.tokens.rates.basis
