"""Costs, energy, capacity and ties at a front reading, with hand-computed values."""

from decimal import Decimal

import pytest

from accounting.serving.economics import (
    capacity_at,
    energy_at,
    requests_demand,
    tie_groups,
    token_costs,
    users_demand,
)
from accounting.serving.front import InteractivitySource, ServingPoint, pareto_front, read_at_interactivity
from accounting.tokens import input_tokens_per_output_token
from tests.money import per_million


def point(key, tpot_ms, replica_tps, **fields):
    return ServingPoint(
        key=key, label=key, output_tokens_per_s=replica_tps, accelerators_per_replica=fields.pop("accelerators", 8),
        tpot_ms=tpot_ms, interactivity_source=InteractivitySource.MEASURED_TPOT_P99, **fields,
    )  # fmt: skip


def test_it_costs_output_input_and_total_tokens_on_one_accelerator_hour():
    # 800 output tok/s per accelerator at 2.88 USD/h: 2.88 / (800 * 3600) * 1e6 = 1.0000 USD per 1M output.
    # 1000 input and 250 output tokens per request: 4 input tokens per output token, so 3200 input tok/s
    # (2.88e6 / (3200 * 3600) = 0.25) and 4000 total tok/s (2.88e6 / (4000 * 3600) = 0.20).
    ratio = input_tokens_per_output_token(1000, 250)

    costs = token_costs(
        hourly_usd_per_accelerator="2.88", output_tokens_per_s_per_accelerator=800, input_per_output_token=ratio
    )

    assert ratio == Decimal(4)
    assert costs.output_usd_per_million == Decimal("1.0000")
    assert costs.input_usd_per_million == Decimal("0.2500")
    assert costs.total_usd_per_million == Decimal("0.2000")


def test_it_refuses_input_and_total_costs_when_the_workload_states_no_lengths():
    costs = token_costs(
        hourly_usd_per_accelerator="2.88", output_tokens_per_s_per_accelerator=800,
        input_per_output_token=input_tokens_per_output_token(None, 250),
    )  # fmt: skip

    assert costs.output_usd_per_million == Decimal("1.0000")
    assert costs.input_usd_per_million is None and costs.total_usd_per_million is None
    assert costs.input_total_refused.startswith("no mean input and output tokens per request")


def test_it_turns_a_throughput_interval_into_a_cost_interval():
    # 750..850 tok/s at 2.88 USD/h: 2.88e6 / (850 * 3600) = 0.9412 .. 2.88e6 / (750 * 3600) = 1.0667.
    costs = token_costs(
        hourly_usd_per_accelerator="2.88", output_tokens_per_s_per_accelerator=800,
        input_per_output_token=Decimal(4), interval=(750.0, 850.0),
    )  # fmt: skip

    assert costs.output_interval_usd_per_million == (per_million("2.88", 850), per_million("2.88", 750))
    # total tokens: x5 -> 2.88e6 / (4250 * 3600) = 0.1882 .. 2.88e6 / (3750 * 3600) = 0.2133
    assert costs.total_interval_usd_per_million == (per_million("2.88", 4250), per_million("2.88", 3750))


def test_it_marks_rows_with_overlapping_intervals_as_tied():
    rows = [(Decimal("1.0"), Decimal("2.0")), (Decimal("1.5"), Decimal("3.0")), (Decimal("4"), Decimal("5"))]

    assert tie_groups(rows) == [0, 0, 1]
    assert tie_groups([(Decimal(1), Decimal(1)), (Decimal(2), Decimal(2))]) == [0, 1]


def test_it_reads_tokens_per_joule_from_measured_power_and_marks_tdp():
    measured = point("B", 100.0, 6400.0, power_w=5600.0)  # 700 W per accelerator
    reading = read_at_interactivity(pareto_front([point("A", 200.0, 8000.0), measured]), 10)

    energy = energy_at(reading, tdp_w=1000)

    assert energy.power_source == "measured"
    assert energy.output_tokens_per_joule == pytest.approx(800 / 700)
    assert energy.output_tokens_per_s_per_mw == pytest.approx(800 / 700 * 1e6)
    unmeasured = read_at_interactivity(pareto_front([point("A", 200.0, 8000.0), point("B", 100.0, 6400.0)]), 10)
    assert energy_at(unmeasured, tdp_w=1000).power_source == "tdp"
    assert energy_at(unmeasured) is None


def test_it_interpolates_measured_power_between_the_bracketing_points():
    low = point("A", 200.0, 8000.0, power_w=4800.0)  # 600 W per accelerator at 5 tok/s/user
    high = point("B", 100.0, 6400.0, power_w=5600.0)  # 700 W at 10 tok/s/user
    reading = read_at_interactivity(pareto_front([low, high]), 7.5)

    assert energy_at(reading).power_w_per_accelerator == pytest.approx(650.0)  # halfway


def test_it_sizes_replicas_for_concurrent_users_at_a_speed():
    # 5,000 users x 10 tok/s = 50,000 output tok/s; a replica (8 accelerators x 800) gives 6,400,
    # 4,480 at 70 %: ceil(50,000 / 4,480) = ceil(11.16) = 12 replicas = 96 accelerators;
    # monthly 96 x 2.88 x 730 = 201,830.40 USD.
    reading = read_at_interactivity(pareto_front([point("A", 200.0, 8000.0), point("B", 100.0, 6400.0)]), 10)

    plan = capacity_at(
        reading, demand_output_tokens_per_s=users_demand(concurrent_users=5000, tokens_per_s_per_user=10),
        hourly_usd_per_accelerator="2.88", max_utilization="0.7",
    )  # fmt: skip

    assert (plan.replicas, plan.accelerators_per_replica, plan.accelerators) == (12, 8, 96)
    assert plan.monthly_usd == Decimal("201830.40")


def test_it_deploys_an_interpolated_reading_in_the_larger_bracketing_system():
    reading = read_at_interactivity(
        pareto_front([point("A", 200.0, 4000.0, accelerators=4), point("B", 100.0, 6400.0)]), 7.5
    )

    assert reading.accelerators_per_replica == 8


def test_it_converts_requests_to_output_tokens():
    assert requests_demand(requests_per_s=2, output_tokens_per_request=250) == Decimal(500)
    with pytest.raises(ValueError, match="requests_per_s"):
        requests_demand(requests_per_s=0, output_tokens_per_request=250)
