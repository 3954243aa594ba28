"""A real Open Inference Protocol v2 server (KServe's Python model server) measured by the endpoint SUT, directly
and through an agent job whose stored run carries the figures, with the server's own timing from its metrics."""

import httpx
import pytest
from django.urls import reverse

from agents.local_runner import run_pending_local_jobs
from agents.models import Endpoint as EndpointRecord
from agents.models import Job
from harness.endpoints.client import v2_request
from harness.endpoints.engines.kserve_server import V2_INPUT
from harness.endpoints.metrics import scrape, server_timing
from harness.endpoints.run import EndpointItem, run_endpoint_item
from harness.endpoints.target import Endpoint
from harness.result import validate_result
from harness.scenarios import RunSettings
from results.models import BenchmarkRun

pytestmark = pytest.mark.slow

SETTINGS = RunSettings(min_duration_ms=500, min_query_count=16, warmup_queries=4, performance_sample_count=8,
                       concurrency_max=2, server_rates_qps=(10.0,), server_target_latency_ms=2000)  # fmt: skip


def kserve_endpoint(server) -> Endpoint:
    return Endpoint("kserve-tiny", "oip-v2", server.url, server.model, metrics_url=server.metrics_url,
                    v2_input_name=V2_INPUT["name"], v2_input_shape=tuple(V2_INPUT["shape"]),
                    v2_datatype=V2_INPUT["datatype"])  # fmt: skip


def test_kserves_metrics_time_each_stage_of_exactly_the_requests_between_two_scrapes(kserve_server):
    endpoint = kserve_endpoint(kserve_server)
    before = scrape(kserve_server.metrics_url)
    with httpx.Client(base_url=kserve_server.url) as client:
        for index in range(7):
            response = client.post(f"/v2/models/{endpoint.model}/infer", json=v2_request(endpoint, index))
            assert response.status_code == 200, response.text
    timing = server_timing(before, scrape(kserve_server.metrics_url))
    assert timing["source"] == "kserve" and timing["requests"] == 7
    assert timing["compute_ms_mean"] > 0 and timing["preprocess_ms_mean"] >= 0 and timing["postprocess_ms_mean"] >= 0
    # KServe times its model's stages, not whole requests: no end-to-end figure, and its own time is their sum.
    assert "e2e_ms_mean" not in timing and "queue_ms_mean" not in timing
    assert timing["timed_stages"] == ["preprocess", "compute", "postprocess"]
    stages_ms = timing["preprocess_ms_mean"] + timing["compute_ms_mean"] + timing["postprocess_ms_mean"]
    assert timing["timed_ms_mean"] == pytest.approx(stages_ms)


@pytest.mark.parametrize("scenario", ["concurrency-sweep", "server"])
def test_a_v2_server_is_measured_request_by_request(kserve_server, tmp_path, scenario):
    result = run_endpoint_item(EndpointItem(kserve_endpoint(kserve_server), scenario, SETTINGS), tmp_path)
    validate_result(result)
    assert result["workload"]["id"] == "endpoint:kserve-tiny" and result["backend"] == "oip-v2"
    for point in result["points"]:
        block = point["endpoint"]
        assert point["throughput_unit"] == "inferences" and point["throughput_per_s"] > 0 and point["llm"] is None
        assert block["errors"] == 0 and block["requests"] == point["sample_count"] >= 16
        assert block["e2e_ms"]["p50"] > 0 and block["ttft_ms"] is None and block["output_tokens_total"] is None
        assert block["good_requests"] <= block["requests"]
        assert block["server"]["source"] == "kserve" and block["server"]["requests"] == block["requests"]


@pytest.mark.django_db
@pytest.mark.timeout(600, method="thread")
def test_an_agent_job_benchmarks_the_v2_server_and_stores_its_figures(
    catalog, staff, staff_api, client, kserve_server, django_capture_on_commit_callbacks
):
    EndpointRecord.objects.create(
        name="kserve-tiny", protocol="oip-v2", url=kserve_server.url, model=kserve_server.model,
        metrics_url=kserve_server.metrics_url, v2_input=V2_INPUT,
    )  # fmt: skip
    spec = {"endpoint": "kserve-tiny", "scenarios": ["concurrency-sweep", "server"], "server_rates_qps": [10.0],
            "concurrency_max": 2, "min_duration_ms": 500, "min_query_count": 16, "time_limit_s": 600}  # fmt: skip
    with django_capture_on_commit_callbacks(execute=True):
        response = staff_api.post("/api/v1/jobs/", spec, format="json")
    assert response.status_code == 201, response.data
    assert run_pending_local_jobs() == 1  # the built-in local agent (no broker) runs the queued job
    job = Job.objects.get(pk=response.data["id"])
    assert job.state == "succeeded", job.error
    runs = {run.scenario: run for run in BenchmarkRun.objects.filter(job=job)}
    assert set(runs) == {"concurrency-sweep", "server"}
    for run in runs.values():
        assert (run.workload_name, run.model_class, run.backend) == ("endpoint:kserve-tiny", "endpoint", "oip-v2")
        assert run.payload["endpoint"]["protocol"] == "oip-v2"
        for point in run.points.all():
            block = point.details["endpoint"]
            assert point.throughput_unit == "inferences" and point.throughput_per_s > 0
            assert point.request_errors == 0 and block["requests"] == point.sample_count >= 16
            assert 0 < point.latency_p50_ms <= point.latency_p99_ms and point.client_e2e_mean_ms > 0
            assert point.goodput_requests_per_s is not None and point.ttft_p50_ms is None
            assert block["request_throughput_per_s"] == pytest.approx(block["requests"] / block["window_s"])
            # The server's own figures, over exactly the requests this point sent: KServe counted each of them
            # and timed their predict within the time the client waited for each.
            server = block["server"]
            assert server["source"] == "kserve" and server["requests"] == block["requests"] == point.sample_count
            assert 0 < point.server_compute_mean_ms == server["compute_ms_mean"] <= point.client_e2e_mean_ms
            assert point.server_e2e_mean_ms is None and point.server_queue_mean_ms is None  # KServe times neither
            assert point.client_e2e_mean_ms >= server["timed_ms_mean"] >= point.server_compute_mean_ms
            assert point.transport_mean_ms == pytest.approx(point.client_e2e_mean_ms - server["timed_ms_mean"])
            assert 0 <= point.transport_share < 1
    assert [p.concurrency for p in runs["concurrency-sweep"].points.all()][0] == 1
    assert runs["server"].points.get().offered_rate_qps == 10.0
    # The run's API answer and page show the server's own timing and what it spans.
    point = runs["server"].points.get()
    answer = staff_api.get(f"/api/v1/runs/{point.run_id}/").data["points"][0]["details"]["endpoint"]
    assert answer["server"]["compute_ms_mean"] == point.server_compute_mean_ms
    assert answer["transport_share"] == point.transport_share
    client.force_login(staff)
    page = client.get(reverse("dashboard:run", args=[point.run_id]))
    assert page.status_code == 200 and b"preprocess + compute + postprocess" in page.content
