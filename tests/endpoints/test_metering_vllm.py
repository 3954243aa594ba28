"""Metering a real deployment: a real Prometheus scrapes the real vLLM CPU server under a known load, and
InferLedger reads the period back through Prometheus's query API and prices it on the declared hardware."""

import math
import time
from concurrent.futures import ThreadPoolExecutor
from datetime import UTC, datetime
from decimal import Decimal
from urllib.parse import urlsplit

import httpx
import pytest
from prometheus_client.parser import text_string_to_metric_families

from accounting.models import CostSnapshot
from harness.endpoints.client import prompt_token_ids
from metering.services import deployment_declare, period_meter
from tests.accounting import conftest as accounting_fixtures
from tests.prometheus_server import start_prometheus

REQUESTS, PROMPT_TOKENS, OUTPUT_TOKENS = 12, 32, 16
PERIOD_S = 20
# The accounting tests' make_run fixture (a stored run for the benchmark's prediction), under this name here.
make_stored_run = accounting_fixtures.make_run


def _server_counters(metrics_url: str) -> dict[str, float]:
    """The server's own counters, read from its /metrics directly (summed over label sets)."""
    totals: dict[str, float] = {}
    for family in text_string_to_metric_families(httpx.get(metrics_url, timeout=10).text):
        for sample in family.samples:
            if sample.name in ("vllm:prompt_tokens_total", "vllm:generation_tokens_total",
                               "vllm:request_success_total"):  # fmt: skip
                totals[sample.name] = totals.get(sample.name, 0.0) + sample.value
    return totals


def _complete(server, index: int) -> None:
    body = {"model": server.model, "prompt": prompt_token_ids(PROMPT_TOKENS, index), "max_tokens": OUTPUT_TOKENS,
            "ignore_eos": True, "temperature": 0}  # fmt: skip
    response = httpx.post(f"{server.url}/v1/completions", json=body, timeout=120)
    response.raise_for_status()


def _sleep_until(unix_s: float) -> None:
    time.sleep(max(0.0, unix_s - time.time()))


@pytest.mark.django_db
def test_it_meters_what_the_vllm_server_served_and_prices_it_on_the_declared_hardware(
    vllm_server, tmp_path, make_accelerator, make_price, make_stored_run
):
    gpu = make_accelerator("H100 metered")
    make_price(gpu, "3.60", accelerators_per_instance=1)
    # The benchmark's figure for this workload there: 9.6 output tokens/s per accelerator at 100 % utilization,
    # 3.60 / (9.6 * 3600) * 1e6 = 104.166666666667 USD per million output tokens.
    run = make_stored_run(gpu, [{"throughput_per_s": 9.6, "latency_p99_ms": 50.0}], model_class="llm",
                   workload_name="llama3.1-8b")  # fmt: skip
    benchmark = CostSnapshot.objects.create(
        accelerator=gpu, run=run, point=run.points.get(), price=gpu.prices.get(), model_class="llm",
        workload_name="llama3.1-8b", price_kind="cloud_on_demand", utilization=Decimal(1), unit="output_tokens",
        throughput_per_s=9.6, latency_p99_ms=50.0, power_source="included in cloud price",
        capex_usd_per_hour=0, opex_usd_per_hour=0, power_usd_per_hour=0, cloud_usd_per_hour=Decimal("3.6"),
        total_usd_per_hour=Decimal("3.6"), cost_per_million_usd=Decimal("104.166666666667"),
        effective_at=datetime(2025, 3, 1, tzinfo=UTC), series_key="metering-test", inputs_digest="metering-test",
    )  # fmt: skip
    prometheus = start_prometheus(
        tmp_path, [{"job_name": "vllm-under-test", "static_configs": [{"targets": [urlsplit(vllm_server.url).netloc]}]}]
    )
    try:
        deployment = deployment_declare(
            name="tiny-llama-prod", prometheus_url=prometheus.url, selector='job="vllm-under-test"', engine="vllm",
            workload_name="llama3.1-8b", accelerator=gpu, accelerator_count=2, price_kind="cloud_on_demand",
        )  # fmt: skip
        prometheus.wait_for_scrape_after("vllm-under-test", time.time())
        start = math.ceil(time.time())  # a whole second, after a scrape of the idle server
        _sleep_until(start)
        before = _server_counters(vllm_server.metrics_url)
        with ThreadPoolExecutor(4) as pool:
            list(pool.map(lambda index: _complete(vllm_server, index), range(REQUESTS)))
        after = _server_counters(vllm_server.metrics_url)
        prometheus.wait_for_scrape_after("vllm-under-test", time.time())
        end = start + PERIOD_S
        assert time.time() < end, "the load and its scrape took longer than the metered period"
        _sleep_until(end + 0.5)

        period = period_meter(
            deployment=deployment, start=datetime.fromtimestamp(start, UTC), end=datetime.fromtimestamp(end, UTC)
        )
    finally:
        prometheus.stop()

    # The server's own counters rose by the known load: 12 requests, 12 x 32 prompt and 12 x 16 output tokens.
    served = {name: after[name] - before.get(name, 0.0) for name in after}
    assert served == {"vllm:request_success_total": 12, "vllm:prompt_tokens_total": 384,
                      "vllm:generation_tokens_total": 192}  # fmt: skip
    # Metered through Prometheus, equal to the server's counters within 0 (whole counts carried exactly).
    assert (period.requests, period.prompt_tokens, period.generation_tokens) == (12, 384, 192)
    assert (period.unit, period.units_served) == ("output_tokens", 192)
    # Declared: 2 accelerators at 3.60 USD/h each (one per instance), over 20 s:
    #   cost           = 3.60 * 2 * 20 / 3600                     = 0.04 USD
    #   per accelerator  192 tokens / 20 s / 2                     = 4.8 output tokens/s
    #   cost per 1M    = 3.60 / (4.8 * 3600) * 1e6 = 3.60 / 0.01728 = 208.333333333333 USD per million output tokens
    #   utilization    = 4.8 / 9.6 (the benchmark's tokens/s)       = 0.5
    #   gap            = 208.333333333333 - 104.166666666667       = 104.166666666666 (half the hours idle)
    assert period.cost_usd == Decimal("0.040000")
    assert period.cost_per_million_units_usd == Decimal("208.333333333333")
    assert period.predicted == benchmark
    assert period.utilization == Decimal("0.500000")
    assert period.gap_usd == Decimal("104.166666666666")
