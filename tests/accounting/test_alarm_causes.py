"""Alarms name their cause (issue #24, Build 4): a series is one system's, one price row raised alarms exactly the
series that use it and names the row, and a switch of cheapest offering is reported as that, not as a regression.

Every expected figure is worked by hand in the comments.
"""

from datetime import UTC, datetime
from decimal import Decimal
from types import SimpleNamespace

import pytest

from accounting.history.alarms import regression_of
from accounting.history.attribution import Attribution, CostState
from accounting.models import CostAlarm, CostSnapshot
from agents.models import Agent
from results.models import BenchmarkRun
from results.signals import run_ingested

pytestmark = pytest.mark.django_db

MARCH, MID_MARCH, APRIL = (
    datetime(2025, 3, 1, tzinfo=UTC),
    datetime(2025, 3, 15, tzinfo=UTC),
    datetime(2025, 4, 1, tzinfo=UTC),
)


def _ingest(make_run, gpu, throughput, started_at, *, agent=None, workload="resnet50", model_class="cv-classification"):
    run = make_run(
        gpu, [{"throughput_per_s": throughput, "latency_p99_ms": 5.0}], started_at=started_at, agent=agent,
        workload_name=workload, model_class=model_class,
    )  # fmt: skip
    run_ingested.send(sender=BenchmarkRun, run=run)
    return run


def test_one_price_row_raised_alarms_exactly_the_series_that_use_it_each_naming_it(
    make_accelerator, make_price, make_run
):
    h100, l40s = make_accelerator("H100 SXM5 80GB"), make_accelerator("L40S")
    make_price(h100, "2.29", provider="Lambda", instance_type="gpu_1x_h100")
    make_price(h100, "87.84", provider="GCP", instance_type="a3-highgpu-8g", accelerators_per_instance=8)  # 10.98/GPU
    make_price(l40s, "1.00", provider="Lambda", instance_type="gpu_1x_l40s")
    host_a = Agent.objects.create(name="host-a", queue="q-a")
    host_b = Agent.objects.create(name="host-b", queue="q-b")
    _ingest(make_run, h100, 1000, MARCH, agent=host_a)
    # Another host, 30 % slower on the same configuration: a different system, so a series of its own. Before
    # series named their system this was read as a +42.9 % regression (1000 / 700 - 1) "100 % throughput".
    _ingest(make_run, h100, 700, MID_MARCH, agent=host_b)
    _ingest(make_run, h100, 500, MARCH, agent=host_a, workload="bert-large-99", model_class="encoder")
    _ingest(make_run, l40s, 400, MARCH, agent=host_a)
    assert not CostAlarm.objects.exists()

    raised = make_price(h100, "3.50", provider="Lambda", instance_type="gpu_1x_h100", effective_from=APRIL)

    # The Lambda row is still H100's cheapest (3.50 < 87.84 / 8 = 10.98), so each series on it rose
    # 3.50 / 2.29 - 1 = 0.528384 (+52.8 %), all of it price: one alarm per workload on H100 (the latest resnet50
    # run, host-b's, and host-a's bert), none on the GCP offering's series, none on L40S.
    alarms = list(CostAlarm.objects.select_related("snapshot").order_by("snapshot__workload_name"))
    assert [(a.snapshot.workload_name, a.snapshot.run.agent.name) for a in alarms] == [
        ("bert-large-99", "host-a"),
        ("resnet50", "host-b"),
    ]
    for alarm in alarms:
        assert alarm.snapshot.price == raised and alarm.baseline.run == alarm.snapshot.run
        assert alarm.change_fraction == Decimal("0.528384")
        assert alarm.attribution["cause"]["price_row"] == raised.pk
        assert alarm.attribution["factors"]["price"]["share"] == "1.0000"
        assert alarm.attribution["factors"]["throughput"]["share"] == "0.0000"
        assert f"Cause: price row {raised.pk} (Lambda gpu_1x_h100, cloud_on_demand) took effect 2025-04-01: " in (
            alarm.explanation
        )
        assert "$2.29 -> $3.50 per accelerator-hour" in alarm.explanation


def test_a_switch_of_cheapest_provider_raises_no_regression_alarm(make_accelerator, make_price, make_run):
    h100 = make_accelerator("H100 SXM5 80GB")
    make_price(h100, "2.29", provider="Lambda", instance_type="gpu_1x_h100")
    nebius = make_price(h100, "2.40", provider="Nebius", instance_type="gpu-h100-1gpu")
    _ingest(make_run, h100, 1000, MARCH)

    raised = make_price(h100, "3.50", provider="Lambda", instance_type="gpu_1x_h100", effective_from=APRIL)

    # Lambda's series rose +52.8 %, but nobody pays it: Nebius is now the cheapest H100 offering, and H100's
    # cheapest price moved 2.40 / 2.29 - 1 = +4.8 %, within the 10 % threshold.
    assert not CostAlarm.objects.exists()
    snapshot = CostSnapshot.objects.filter(price=raised, sla_p99_ms__isnull=True).get()
    assert regression_of(snapshot) == (
        f"price row {raised.pk} (Lambda gpu_1x_h100 us-test-1, $3.50 per accelerator) is no longer the cheapest "
        f"cloud_on_demand offering of NVIDIA H100 SXM5 80GB: price row {nebius.pk} (Nebius gpu-h100-1gpu us-test-1, "
        "$2.40 per accelerator) is, so the accelerator's cheapest price moved +4.8% ($2.29 -> $2.40 per accelerator)"
        ": a switch of cheapest offering, not a regression of the accelerator"
    )


def test_a_switch_that_raises_the_cheapest_price_beyond_the_threshold_alarms_and_says_so(
    make_accelerator, make_price, make_run
):
    a100 = make_accelerator("A100")
    make_price(a100, "2.00", provider="Lambda", instance_type="gpu_1x_a100")
    make_price(a100, "3.00", provider="Nebius", instance_type="gpu-a100-1gpu")
    _ingest(make_run, a100, 1000, MARCH)

    make_price(a100, "4.00", provider="Lambda", instance_type="gpu_1x_a100", effective_from=APRIL)

    # The cheapest A100 price moved 3.00 / 2.00 - 1 = +50 %: beyond the threshold, so one alarm, which names the switch.
    (alarm,) = CostAlarm.objects.all()
    assert "is no longer the cheapest cloud_on_demand offering of NVIDIA A100" in alarm.explanation
    assert "the accelerator's cheapest price moved +50.0% ($2.00 -> $3.00 per accelerator)" in alarm.explanation


def test_the_hourly_cost_is_read_as_stored_and_shown_rounded_half_up():
    # Parts rounded to 6 decimals (0.333334 + 0.333333 + 0.333333 = 1.000000) need not add up to the stored total
    # 1.000001: the state reads the total, and splits it as total - power.
    snapshot = SimpleNamespace(
        capex_usd_per_hour=Decimal("0.333334"), opex_usd_per_hour=Decimal("0.333333"),
        cloud_usd_per_hour=Decimal("0"), power_usd_per_hour=Decimal("0.333333"),
        total_usd_per_hour=Decimal("1.000001"), throughput_per_s=1.0, utilization=Decimal("1"),
    )  # fmt: skip
    state = CostState.of_snapshot(snapshot)
    assert state.hourly_usd == Decimal("1.000001")
    assert state.price_usd_per_hour == Decimal("0.666668")
    # A share of exactly 0.12345 shows as 0.1235 (half-up), not 0.1234 (half-even).
    zero = Decimal(0)
    shares = {"price": Decimal("0.12345"), "throughput": zero, "utilization": zero, "power": zero}
    shown = Attribution(zero, zero, zero, dict.fromkeys(shares, zero), shares).as_dict()
    assert shown["factors"]["price"]["share"] == "0.1235"
