"""Stored runs for the benchmark's prediction, and a deployment metered against a stand-in Prometheus.

The worked deployment: 1 x H100 at $2.29 per hour (cloud on demand) serving llama3.1-8b; its benchmark figure is
1,000 output tokens/s. The stand-in answers counter_total as the Prometheus query API would (the real one is
exercised in test_prometheus_scrape.py and tests/endpoints/test_metering_vllm.py).
"""

from datetime import UTC, datetime, timedelta
from decimal import Decimal

import pytest

from accounting.models import CostSnapshot
from metering.services import deployment_declare, period_meter
from tests.accounting.conftest import make_run  # noqa: F401  (stored runs for the benchmark's prediction)

START = datetime(2026, 9, 1, tzinfo=UTC)
THIRTY_DAYS = timedelta(days=30)
COUNTERS = {"requests": "vllm:request_success_total", "tokens": "vllm:generation_tokens_total"}


class FakePrometheus:
    """Cumulative counters at the periods' edges, answered as counter_total would (the last sample at or before)."""

    def __init__(self):
        self.samples = {metric: [(START, Decimal(0))] for metric in (*COUNTERS.values(), "vllm:prompt_tokens_total")}

    def serve(self, end: datetime, *, requests: int, tokens: int):
        for metric, served in ((COUNTERS["requests"], requests), (COUNTERS["tokens"], tokens)):
            self.samples[metric].append((end, self.samples[metric][-1][1] + served))
        self.samples["vllm:prompt_tokens_total"].append((end, Decimal(0)))

    def counter_total(self, prometheus_url, metric, *, selector, at):
        before = [value for moment, value in self.samples[metric] if moment <= at]
        return before[-1] if before else None


@pytest.fixture
def h100(make_accelerator, make_price):
    gpu = make_accelerator("H100")
    make_price(gpu, "2.29", accelerators_per_instance=1)
    return gpu


@pytest.fixture
def deployment(h100):
    return deployment_declare(
        name="chat-prod", prometheus_url="http://prometheus.test:9090", engine="vllm", workload_name="llama3.1-8b",
        accelerator=h100, accelerator_count=1, price_kind="cloud_on_demand", selector='job="vllm"',
    )  # fmt: skip


@pytest.fixture
def prometheus(monkeypatch):
    fake = FakePrometheus()
    monkeypatch.setattr("metering.services.counter_total", fake.counter_total)
    return fake


@pytest.fixture
def benchmark(h100, make_run):  # noqa: F811  (the fixture imported above)
    """The benchmark's figure for llama3.1-8b on this H100: 1,000 output tokens/s at 100 % utilization,
    2.29 / (1,000 x 3,600) x 1e6 = $0.636111111111 per 1M output tokens."""
    run = make_run(h100, [{"throughput_per_s": 1000.0, "latency_p99_ms": 50.0}], model_class="llm",
                   workload_name="llama3.1-8b", started_at=START - timedelta(days=60))  # fmt: skip
    return CostSnapshot.objects.create(
        accelerator=h100, run=run, point=run.points.get(), price=h100.prices.get(), model_class="llm",
        workload_name="llama3.1-8b", price_kind="cloud_on_demand", utilization=Decimal(1), unit="output_tokens",
        throughput_per_s=1000.0, latency_p99_ms=50.0, power_source="included in cloud price",
        capex_usd_per_hour=0, opex_usd_per_hour=0, power_usd_per_hour=0, cloud_usd_per_hour=Decimal("2.29"),
        total_usd_per_hour=Decimal("2.29"), cost_per_million_usd=Decimal("0.636111111111"),
        effective_at=START - timedelta(days=60), series_key="h100-llama", inputs_digest="h100-llama",
    )  # fmt: skip


def meter_periods(deployment, prometheus, served: list[tuple[int, int]], length: timedelta):
    """Meter back-to-back periods of `length` from START, each serving (requests, output tokens)."""
    periods = []
    for index, (requests, tokens) in enumerate(served):
        start = START + index * length
        prometheus.serve(start + length, requests=requests, tokens=tokens)
        periods.append(period_meter(deployment=deployment, start=start, end=start + length))
    return periods


def meter_months(deployment, prometheus, served: list[tuple[int, int]]):
    """Meter back-to-back 30-day periods from START, each serving (requests, output tokens)."""
    return meter_periods(deployment, prometheus, served, THIRTY_DAYS)


# Days, as the daily schedule meters them: 1 x H100 at $2.29 per hour, 2.29 x 24 = $54.96 a day whatever it serves.
# A weekday serves 20,000 requests x 500 tokens = 10M output tokens: 54.96 / 10 = $5.496 per 1M; a weekend day
# 12,000 x 500 = 6M: 54.96 / 6 = $9.16 per 1M, +66.7 % on a weekday with nothing regressed.
WEEKDAY, WEEKEND_DAY = (20_000, 10_000_000), (12_000, 6_000_000)
ONE_DAY = timedelta(days=1)


def meter_days(deployment, prometheus, served: list[tuple[int, int]]):
    """Meter back-to-back UTC days from START (Tuesday 2026-09-01), each serving (requests, output tokens)."""
    return meter_periods(deployment, prometheus, served, ONE_DAY)


def weekly_traffic(days: int) -> list[tuple[int, int]]:
    """(requests, output tokens) of each day from START: WEEKDAY on Monday to Friday, WEEKEND_DAY on the weekend."""
    return [WEEKEND_DAY if (START + index * ONE_DAY).weekday() >= 5 else WEEKDAY for index in range(days)]
