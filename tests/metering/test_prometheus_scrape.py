"""A real Prometheus scrapes GET /metrics (with the bearer token) and answers PromQL over InferLedger's costs."""

import time
from datetime import UTC, datetime
from urllib.parse import urlsplit

import pytest

from results.models import BenchmarkRun
from results.signals import run_ingested
from tests.prometheus_server import start_prometheus

MARCH = datetime(2025, 3, 1, tzinfo=UTC)


@pytest.mark.django_db(transaction=True)
def test_it_is_scraped_by_prometheus_and_a_cost_is_queryable_by_promql(
    live_server, settings, tmp_path, make_accelerator, make_price, make_run
):
    settings.INFERLEDGER_METRICS_TOKEN = "scrape-token"
    gpu = make_accelerator("Zeta")
    make_price(gpu, "2.00")
    run = make_run(gpu, [{"throughput_per_s": 1000, "latency_p99_ms": 5.0}], started_at=MARCH)
    run_ingested.send(sender=BenchmarkRun, run=run)
    target = urlsplit(live_server.url).netloc
    prometheus = start_prometheus(
        tmp_path,
        [{"job_name": "inferledger", "metrics_path": "/metrics", "static_configs": [{"targets": [target]}],
          "authorization": {"type": "Bearer", "credentials": "scrape-token"}}],
    )  # fmt: skip
    try:
        prometheus.wait_for_scrape_after("inferledger", time.time())
        result = prometheus.query(
            "sum by (accelerator, unit) (inferledger_cost_per_million_units_usd"
            '{workload="resnet50", sla="no SLA (best throughput)", price_kind="cloud_on_demand"})'
        )
    finally:
        prometheus.stop()

    (series,) = result
    assert series["metric"] == {"accelerator": "NVIDIA Zeta", "unit": "samples"}
    # 2.00 USD/h / (1000 samples/s * 3600 s/h) * 1e6 = 0.555555555556 USD per million samples
    assert float(series["value"][1]) == pytest.approx(0.555555555556, rel=1e-12)
