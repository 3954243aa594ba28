"""The latest run of each series (policy.latest_run_ids): a series is one system's, as alarm series are, so two agent
hosts measuring the same workload on the same accelerator model each keep their own latest run."""

from datetime import UTC, datetime
from decimal import Decimal

import pytest

from accounting import policy
from accounting.models import CostSnapshot
from agents.models import Agent
from results.models import BenchmarkRun
from results.signals import run_ingested

pytestmark = pytest.mark.django_db

MARCH_1, MARCH_10, MARCH_15 = (datetime(2025, 3, day, tzinfo=UTC) for day in (1, 10, 15))
APRIL = datetime(2025, 4, 1, tzinfo=UTC)


@pytest.fixture
def two_hosts(make_accelerator, make_price, make_run):
    """Host A measured resnet50 on an H100 twice (1,000/s on 1 March, 1,100/s on 10 March); host B, a slower system,
    once (700/s on 15 March), after both of A's runs."""
    h100 = make_accelerator("H100 SXM5 80GB")
    make_price(h100, "2.00", provider="Lambda", instance_type="gpu_1x_h100")
    host_a = Agent.objects.create(name="host-a", queue="q-a")
    host_b = Agent.objects.create(name="host-b", queue="q-b")
    runs = {}
    for name, agent, throughput, started_at in (
        ("a-old", host_a, 1000, MARCH_1), ("a-new", host_a, 1100, MARCH_10), ("b", host_b, 700, MARCH_15),
    ):  # fmt: skip
        runs[name] = make_run(h100, [{"throughput_per_s": throughput, "latency_p99_ms": 5.0}], started_at=started_at,
                              agent=agent)  # fmt: skip
        run_ingested.send(sender=BenchmarkRun, run=runs[name])
    return h100, runs


def test_it_keeps_each_agents_own_latest_run(two_hosts):
    _, runs = two_hosts

    latest = set(policy.latest_run_ids(policy.eligible_runs(workload="resnet50")).values_list("id", flat=True))

    # B's run (15 March) is the newest of the three, but it is another system's: A's own latest (10 March) stays,
    # and only A's older run (1 March, replaced by A's 10 March run) drops out.
    assert latest == {runs["a-new"].pk, runs["b"].pk}


def test_a_new_price_row_reaches_each_agents_series(two_hosts, make_price):
    h100, runs = two_hosts

    raised = make_price(h100, "3.00", provider="Lambda", instance_type="gpu_1x_h100", effective_from=APRIL)

    # The new row is applied to the latest run of each series, so each host's series goes on with it:
    #   A: 3.00 / (1100 * 3600) * 1e6 = 0.757575757576 USD per million (12 decimals, half-up);
    #   B: 3.00 / (700 * 3600) * 1e6 = 1.190476190476 USD per million.
    # (With one latest run per accelerator only B's would be re-priced, and A's series would stop at $2.00.)
    snapshots = CostSnapshot.objects.filter(price=raised, sla_p99_ms__isnull=True).order_by("cost_per_million_usd")
    assert [(s.run_id, s.cost_per_million_usd) for s in snapshots] == [
        (runs["a-new"].pk, Decimal("0.757575757576")),
        (runs["b"].pk, Decimal("1.190476190476")),
    ]
