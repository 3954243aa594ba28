"""A real Open Inference Protocol v2 server (KServe's Python model server) measured by the endpoint SUT, directly
and through an agent job whose stored run carries the figures."""

import pytest

from agents.harness.endpoints.run import EndpointItem, run_endpoint_item
from agents.harness.endpoints.target import Endpoint
from agents.harness.result import validate_result
from agents.harness.scenarios import RunSettings
from agents.local_runner import run_pending_local_jobs
from agents.models import Endpoint as EndpointRecord
from agents.models import Job
from results.models import BenchmarkRun

pytestmark = pytest.mark.slow

SETTINGS = RunSettings(min_duration_ms=500, min_query_count=16, warmup_queries=4, performance_sample_count=8,
                       concurrency_max=2, server_rates_qps=(10.0,), server_target_latency_ms=2000)  # fmt: skip


@pytest.mark.parametrize("scenario", ["concurrency-sweep", "server"])
def test_a_v2_server_is_measured_request_by_request(kserve_server, tmp_path, scenario):
    endpoint = Endpoint("kserve-tiny", "oip-v2", kserve_server, "tiny-linear", v2_input_name="input-0",
                        v2_input_shape=(1, 4), v2_datatype="FP32")  # fmt: skip
    result = run_endpoint_item(EndpointItem(endpoint, scenario, SETTINGS), tmp_path)
    validate_result(result)
    assert result["workload"]["id"] == "endpoint:kserve-tiny" and result["backend"] == "oip-v2"
    for point in result["points"]:
        block = point["endpoint"]
        assert point["throughput_unit"] == "inferences" and point["throughput_per_s"] > 0 and point["llm"] is None
        assert block["errors"] == 0 and block["requests"] == point["sample_count"] >= 16
        assert block["e2e_ms"]["p50"] > 0 and block["ttft_ms"] is None and block["output_tokens_total"] is None
        assert block["good_requests"] <= block["requests"]


@pytest.mark.django_db
@pytest.mark.timeout(600, method="thread")
def test_an_agent_job_benchmarks_the_v2_server_and_stores_its_figures(
    catalog, staff_api, kserve_server, django_capture_on_commit_callbacks
):
    EndpointRecord.objects.create(
        name="kserve-tiny", protocol="oip-v2", url=kserve_server, model="tiny-linear",
        v2_input={"name": "input-0", "shape": [1, 4], "datatype": "FP32"},
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
    assert [p.concurrency for p in runs["concurrency-sweep"].points.all()][0] == 1
    assert runs["server"].points.get().offered_rate_qps == 10.0
