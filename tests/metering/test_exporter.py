"""GET /metrics: stored figures in Prometheus's text format, behind the access the deployment chose."""

from datetime import UTC, datetime, timedelta
from decimal import Decimal

import pytest
from prometheus_client.parser import text_string_to_metric_families

from accounting.models import CostAlarm, CostSnapshot
from agents.models import Agent, Job
from results.models import BenchmarkRun
from results.signals import run_ingested

pytestmark = pytest.mark.django_db

MARCH, APRIL = datetime(2025, 3, 1, tzinfo=UTC), datetime(2025, 4, 1, tzinfo=UTC)


def _samples(client, **headers) -> dict:
    response = client.get("/metrics", **headers)
    assert response.status_code == 200, response.content
    found = {}
    for family in text_string_to_metric_families(response.content.decode()):
        for sample in family.samples:
            found.setdefault(sample.name, []).append((sample.labels, sample.value))
    return found


def _ingest(make_run, gpu, throughput, started_at):
    run = make_run(gpu, [{"throughput_per_s": throughput, "latency_p99_ms": 5.0}], started_at=started_at)
    run_ingested.send(sender=BenchmarkRun, run=run)
    return run


def test_it_is_off_until_the_deployment_chooses_how_it_is_read(client, settings):
    settings.INFERLEDGER_METRICS_TOKEN, settings.INFERLEDGER_METRICS_OPEN = "", False
    response = client.get("/metrics")
    assert response.status_code == 403
    assert b"INFERLEDGER_METRICS_TOKEN" in response.content


def test_it_requires_the_bearer_token_when_one_is_set(client, settings):
    settings.INFERLEDGER_METRICS_TOKEN, settings.INFERLEDGER_METRICS_OPEN = "s3cret", True
    assert client.get("/metrics").status_code == 401
    assert client.get("/metrics", HTTP_AUTHORIZATION="Bearer wrong").status_code == 401
    assert client.get("/metrics", HTTP_AUTHORIZATION="Bearer s3cret").status_code == 200


def test_it_exports_the_latest_snapshot_of_each_series(client, settings, make_accelerator, make_price, make_run):
    settings.INFERLEDGER_METRICS_TOKEN, settings.INFERLEDGER_METRICS_OPEN = "", True
    gpu = make_accelerator("Zeta")
    make_price(gpu, "2.00")
    _ingest(make_run, gpu, 1000, MARCH)
    _ingest(make_run, gpu, 2000, APRIL)  # the same series, newer: it replaces the March figure

    costs = _samples(client)["inferledger_cost_per_million_units_usd"]

    # resnet50 (cv-classification) is snapshotted under p99 <= 15 ms, <= 100 ms and no SLA: three series.
    assert len(costs) == 3
    labels, value = next((labels, value) for labels, value in costs if labels["sla"] == "no SLA (best throughput)")
    # 2.00 USD/h / (2000/s * 3600 s/h) * 1e6 = 0.277777777778 USD per million samples (the April run)
    assert value == pytest.approx(0.277777777778, rel=1e-12)
    assert labels | {"series": ""} == {
        "workload": "resnet50", "accelerator": "NVIDIA Zeta", "price_kind": "cloud_on_demand",
        "cost_basis": "cloud_on_demand at 100% utilization", "unit": "samples", "sla": "no SLA (best throughput)",
        "scenario": "server", "backend": "eager", "precision": "fp16", "origin": "measured", "provider": "TestCloud",
        "region": "us-test-1", "instance_type": "t.1", "series": "",
    }  # fmt: skip
    stored = CostSnapshot.objects.filter(sla_p99_ms__isnull=True).latest("effective_at")
    assert Decimal(str(value)) == stored.cost_per_million_usd


def test_it_counts_open_alarms_and_leaves_out_acknowledged_and_withdrawn(client, settings, make_accelerator,
                                                                        make_price, make_run):  # fmt: skip
    settings.INFERLEDGER_METRICS_TOKEN, settings.INFERLEDGER_METRICS_OPEN = "", True
    for name in ("Acked", "Withdrawn", "Open"):
        gpu = make_accelerator(name)
        make_price(gpu, "2.00")
        _ingest(make_run, gpu, 1000, MARCH)
        _ingest(make_run, gpu, 500, APRIL)  # half the throughput: twice the cost, one alarm per accelerator
    assert CostAlarm.objects.count() == 3
    CostAlarm.objects.filter(snapshot__accelerator__model="Acked").update(acknowledged_at=APRIL)
    CostAlarm.objects.filter(snapshot__accelerator__model="Withdrawn").update(withdrawn_at=APRIL, withdrawn_reason="t")

    (sample,) = _samples(client)["inferledger_open_cost_alarms"]

    assert sample == ({"workload": "resnet50", "accelerator": "NVIDIA Open", "price_kind": "cloud_on_demand"}, 1.0)


def test_it_reports_agent_and_job_health(client, settings):
    settings.INFERLEDGER_METRICS_TOKEN, settings.INFERLEDGER_METRICS_OPEN = "", True
    now = datetime.now(UTC)
    Agent.objects.create(name="fresh", queue="agent.fresh", last_seen_at=now)
    Agent.objects.create(name="silent", queue="agent.silent", last_seen_at=now - timedelta(hours=1))
    Job.objects.create(state="failed")
    Job.objects.create(state="failed")

    samples = _samples(client)

    assert sorted(samples["inferledger_agent_up"], key=lambda s: s[0]["agent"]) == [
        ({"agent": "fresh"}, 1.0), ({"agent": "silent"}, 0.0)
    ]  # fmt: skip
    jobs = {labels["state"]: value for labels, value in samples["inferledger_jobs"]}
    assert jobs == {"queued": 0, "running": 0, "succeeded": 0, "failed": 2, "cancelled": 0}


def test_the_grafana_dashboard_reads_only_metrics_the_export_serves(client, settings, make_accelerator, make_price,
                                                                   make_run):  # fmt: skip
    import json
    import re
    from pathlib import Path

    from metering.models import Deployment, MeteredPeriod

    settings.INFERLEDGER_METRICS_TOKEN, settings.INFERLEDGER_METRICS_OPEN = "", True
    gpu = make_accelerator("Iota")
    price = make_price(gpu, "2.00")
    _ingest(make_run, gpu, 1000, MARCH)
    _ingest(make_run, gpu, 500, APRIL)  # an open alarm
    Agent.objects.create(name="a", queue="agent.a")
    deployment = Deployment.objects.create(
        name="prod", prometheus_url="http://prometheus:9090", engine="vllm", workload_name="llama3.1-8b",
        accelerator=gpu, accelerator_count=1, price_kind="cloud_on_demand",
    )  # fmt: skip
    MeteredPeriod.objects.create(
        deployment=deployment, start=MARCH, end=APRIL, requests=1, unit="output_tokens", units_served=1,
        counters={}, price=price, usd_per_accelerator_hour=2, cost_usd=1, cost_per_million_units_usd=1,
        predicted_cost_per_million_units_usd=1, utilization=Decimal("0.5"),
    )  # fmt: skip
    dashboard = json.loads((Path(__file__).parents[2] / "docs" / "grafana-dashboard.json").read_text())
    queried = {
        name
        for panel in dashboard["panels"]
        for target in panel["targets"]
        for name in re.findall(r"inferledger_[a-z_]+", target["expr"])
    }

    assert queried - set(_samples(client)) == set()


def test_an_enrolled_agent_that_never_spoke_is_down_with_no_last_heartbeat(client, settings):
    """An agent enrolled but never heard from has no last heartbeat (null): the export says it is down and
    gives no timestamp for it, instead of failing the whole scrape."""
    from agents.registry import agent_enroll

    settings.INFERLEDGER_METRICS_TOKEN, settings.INFERLEDGER_METRICS_OPEN = "", True
    agent_enroll(name="new-host")

    samples = _samples(client)

    assert samples["inferledger_agent_up"] == [({"agent": "new-host"}, 0.0)]
    assert "inferledger_agent_last_seen_timestamp_seconds" not in samples or not any(
        labels["agent"] == "new-host" for labels, _ in samples["inferledger_agent_last_seen_timestamp_seconds"]
    )
