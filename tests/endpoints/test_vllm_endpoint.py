"""A real engine end to end: a vLLM server benchmarked through an agent job, stored, checked against the
server's own metrics and ``usage`` totals."""

import json
import logging

import pytest

from agents.local_runner import run_pending_local_jobs
from agents.models import Endpoint, Job
from harness.endpoints.metrics import scrape
from results.models import BenchmarkRun

pytestmark = [pytest.mark.django_db, pytest.mark.slow]

SECRET = "sk-vllm-test-0b7e41"
# Seen here (2 cores shared by vLLM's engine and API processes, the test and other work): the stored output
# tokens/s (LoadGen's) within 0.2 % of vLLM's generation counter over the point's window, so 3 % is claimed.
# TTFT and TPOT are not claimed to agree by a ratio: vLLM's are its engine's, and its API process, when short
# of CPU, sends tokens in bunches. Across runs the client's TPOT mean read 0.56 to 3.1 ms against vLLM's 2.0 to
# 2.7 ms, and its TTFT 6 to 70 ms above vLLM's (the API process, transport, our client): the share each point
# stores as transport time. What holds is asserted in the test: the client's times bracket the server's.
THROUGHPUT_TOLERANCE = 0.03


@pytest.fixture
def endpoint(vllm_server):
    return Endpoint.objects.create(
        name="tiny-vllm", protocol="openai-completions", url=vllm_server.url, model=vllm_server.model,
        metrics_url=vllm_server.metrics_url, prompt_tokens=32, output_tokens=16, api_key=SECRET,
    )  # fmt: skip


@pytest.mark.timeout(600, method="thread")
def test_an_agent_job_benchmarks_the_vllm_server_and_stores_what_the_server_counted(
    catalog, staff_api, endpoint, vllm_server, django_capture_on_commit_callbacks, caplog
):
    caplog.set_level(logging.DEBUG)
    spec = {"endpoint": "tiny-vllm", "scenarios": ["concurrency-sweep", "server"], "server_rates_qps": [4.0],
            "concurrency_max": 2, "min_duration_ms": 1500, "min_query_count": 12, "ttft_slo_ms": 2000,
            "tpot_slo_ms": 200, "time_limit_s": 600}  # fmt: skip
    before = scrape(vllm_server.metrics_url)
    with django_capture_on_commit_callbacks(execute=True):
        response = staff_api.post("/api/v1/jobs/", spec, format="json")
    assert response.status_code == 201, response.data
    job = Job.objects.get(pk=response.data["id"])
    assert job.state == "queued"  # the request only queues it; the built-in local agent (no broker) runs it
    assert run_pending_local_jobs() == 1
    after = scrape(vllm_server.metrics_url)
    job.refresh_from_db()
    assert job.state == "succeeded", job.error
    runs = {run.scenario: run for run in BenchmarkRun.objects.filter(job=job)}
    assert set(runs) == {"concurrency-sweep", "server"}

    points = [point for run in runs.values() for point in run.points.all()]
    for point in points:
        block = point.details["endpoint"]
        assert point.ttft_p50_ms > 0 and point.tpot_p50_ms > 0 and point.output_tokens_per_s > 0
        assert point.goodput_requests_per_s is not None and point.request_errors == 0
        server = block["server"]
        # Token counts are the server's: our usage totals equal what vLLM counted over the same window.
        assert block["output_tokens_total"] == server["generation_tokens"] == 16 * block["requests"]
        assert block["prompt_tokens_total"] == server["prompt_tokens"] == 32 * block["requests"]
        assert server["requests"] == block["requests"] == point.sample_count
        # The client's figures bracket the server's: a request's time at the client includes the server's.
        assert point.client_e2e_mean_ms >= server["e2e_ms_mean"] > 0
        assert block["ttft_ms"]["mean"] >= server["ttft_ms_mean"]
        assert point.transport_mean_ms == pytest.approx(point.client_e2e_mean_ms - point.server_e2e_mean_ms)
        assert 0 <= point.transport_share < 1
        # TPOT: both sides measured it; ours spans first to last content chunk, within each request's own time
        # after its first token (the server's can differ either way: chunks bunch when its API process lags).
        assert server["tpot_ms_mean"] > 0 and block["tpot_ms"]["mean"] > 0
        assert block["tpot_ms"]["max"] * 15 <= block["e2e_ms"]["max"] - block["ttft_ms"]["min"] + 1e-6
        # Stored throughput agrees with what the server generated over our measured window: the client's own
        # figure exactly (the same tokens over the same window), the stored one (LoadGen's count of tokens over
        # its own test window) within THROUGHPUT_TOLERANCE.
        server_tokens_per_s = server["generation_tokens"] / block["window_s"]
        assert block["output_tokens_per_s"] == pytest.approx(server_tokens_per_s)
        assert point.output_tokens_per_s == pytest.approx(server_tokens_per_s, rel=THROUGHPUT_TOLERANCE)
    # Every request of the job (warm-ups included) is in the server's count; the stored ones are a subset.
    measured = sum(p.details["endpoint"]["requests"] for p in points)
    assert after.totals["requests"] - before.totals["requests"] >= measured

    sweep = runs["concurrency-sweep"]
    assert sweep.workload_name == "endpoint:tiny-vllm" and sweep.model_class == "endpoint"
    assert [p.concurrency for p in sweep.points.all()][0] == 1
    assert runs["server"].points.get().offered_rate_qps == 4.0

    # The secret is nowhere a person can see: API answers, the run's payload, the job, the logs.
    shown = [
        staff_api.get(f"/api/v1/jobs/{job.pk}/").content,
        staff_api.get(f"/api/v1/endpoints/{endpoint.pk}/").content,
        staff_api.get(f"/api/v1/runs/{sweep.pk}/").content,
        json.dumps(sweep.payload).encode(),
        job.error.encode(),
        caplog.text.encode(),
    ]
    assert not [text for text in shown if SECRET.encode() in text]
    assert staff_api.get(f"/api/v1/endpoints/{endpoint.pk}/").data["authenticated"] is True
