"""A 200-request trace with recorded arrivals replayed against the real vLLM CPU server: directly (open loop), and
declared once as trace:<name> and replayed through an agent job on a real Celery worker, its stored run naming the
trace, its distributions and its send lag, ranked only against runs of its own trace."""

import copy
import json
import random
import uuid

import pytest

from agents.local_runner import run_pending_local_jobs
from agents.models import Agent, Endpoint, Job
from harness.endpoints.replay import SEND_LAG_TOLERANCE_MS, replay, send_lag_summary_ms
from harness.endpoints.target import Endpoint as Target
from harness.endpoints.trace import parse_trace
from results.ingest import STORED, ingest_result
from results.models import BenchmarkRun
from tests.agents.conftest import celery_broker, wait_for, workers  # noqa: F401 (fixtures)

pytestmark = pytest.mark.slow

# Every request leaves within this of its scheduled moment (and never before it): the replay's stated
# tolerance on a shared 2-core host (the one a replayed point is held to); benchmarks/replay_overhead.py prints
# what it really is against a no-op server.
SEND_TOLERANCE_MS = SEND_LAG_TOLERANCE_MS


def _mooncake_trace(requests: int, rate_per_s: float, seed: int) -> str:
    """Poisson arrivals at `rate_per_s`, input 16-64 and output 4-16 tokens, as Mooncake's JSONL (ms stamps)."""
    rng, at_ms, lines = random.Random(seed), 0, []
    for _ in range(requests):
        at_ms += round(rng.expovariate(rate_per_s) * 1000)
        lines.append(json.dumps({"timestamp": at_ms, "input_length": rng.randint(16, 64),
                                 "output_length": rng.randint(4, 16)}))  # fmt: skip
    return "\n".join(lines)


def test_it_replays_a_trace_at_its_recorded_arrivals(vllm_server):
    trace = parse_trace("chat-sample", _mooncake_trace(200, rate_per_s=10, seed=29), "mooncake")
    endpoint = Target(name="tiny-vllm", protocol="openai-completions", url=vllm_server.url,
                      model=vllm_server.model)  # fmt: skip

    replayed = replay(trace, endpoint, time_scale=1.0)

    assert len(replayed) == 200 and all(request.record.ok for request in replayed), [
        request.record.error for request in replayed if not request.record.ok
    ][:3]
    # Each request asked for its own recorded lengths (ignore_eos: exactly that many output tokens).
    assert [(r.record.prompt_tokens, r.record.completion_tokens) for r in replayed] == [
        (request.input_tokens, request.output_tokens) for request in trace.requests
    ]
    # Sent in the recorded order, at the recorded offsets: none early, none later than the tolerance.
    lags_ms = [request.send_lag_ns / 1e6 for request in replayed]
    assert min(lags_ms) >= 0
    assert max(lags_ms) <= SEND_TOLERANCE_MS, send_lag_summary_ms(replayed)


@pytest.fixture
def tiny_vllm(vllm_server, catalog):
    """The vLLM server declared as an endpoint on a catalog accelerator (its runs are priced there)."""
    from hardware_catalog.selectors import accelerator_named

    return Endpoint.objects.create(
        name="tiny-vllm", protocol="openai-completions", url=vllm_server.url, model=vllm_server.model,
        metrics_url=vllm_server.metrics_url, prompt_tokens=32, output_tokens=16,
        accelerator=accelerator_named("NVIDIA H100 SXM5 80GB"),
    )  # fmt: skip


def _relabelled(payload: dict, workload_id: str) -> dict:
    """The same measured figures stored under another workload id (a new run id): what must never rank beside it."""
    copied = copy.deepcopy(payload) | {"run_id": str(uuid.uuid4())}
    copied["workload"] |= {"id": workload_id, "name": workload_id}
    if workload_id.startswith("trace:"):
        copied["trace"] |= {"name": workload_id.removeprefix("trace:"), "workload_id": workload_id}
    else:
        del copied["trace"]
    return copied


@pytest.mark.redis
@pytest.mark.postgres
@pytest.mark.django_db(transaction=True)
@pytest.mark.timeout(900, method="thread")
def test_a_declared_trace_is_replayed_through_an_agent_job_and_ranks_only_against_itself(
    staff_api,
    tiny_vllm,
    workers,  # noqa: F811
):
    text = _mooncake_trace(200, rate_per_s=10, seed=29)
    declared = staff_api.post("/api/v1/traces/", {"name": "chat-sample", "format": "mooncake", "content": text},
                              format="json")  # fmt: skip
    assert declared.status_code == 201, declared.data
    workers.control()
    workers.agent("trace-agent")
    wait_for(lambda: Agent.objects.filter(name="trace-agent").exclude(devices=[]).first(), timeout_s=90,
             what="agent trace-agent to register")  # fmt: skip

    spec = {"endpoint": "tiny-vllm", "trace": "chat-sample", "trace_mode": "arrivals", "time_scale": 1.0,
            "agent": "trace-agent", "time_limit_s": 600}  # fmt: skip
    response = staff_api.post("/api/v1/jobs/", spec, format="json")
    assert response.status_code == 201, response.data
    job = wait_for(lambda: (j := Job.objects.get(pk=response.data["id"])).state in ("succeeded", "failed") and j,
                   timeout_s=600, what="the trace job to finish")  # fmt: skip
    assert job.state == "succeeded", job.error

    run = BenchmarkRun.objects.get(job=job)
    trace = parse_trace("chat-sample", text, "mooncake")
    assert run.workload_name == "trace:chat-sample" and run.scenario == "trace-replay" and run.model_class == "endpoint"
    stated = run.payload["trace"]
    # The run names its trace (name, digest) and the distributions it was declared with, and how it was replayed.
    assert stated["name"] == "chat-sample" and stated["sha256"] == declared.data["sha256"]
    assert stated["distributions"] == declared.data["distributions"] == json.loads(json.dumps(trace.distributions()))
    assert stated["mode"] == "arrivals" and stated["time_scale"] == 1.0
    # Every one of the 200 requests left within the tolerance of its schedule, none before it.
    lag = stated["send_lag_ms"]
    print(f"trace job send lag ms: p50 {lag['p50']:.3f} p99 {lag['p99']:.3f} max {lag['max']:.3f}")  # figures (-s)
    assert stated["send_lag_tolerance_ms"] == SEND_TOLERANCE_MS
    assert 0 <= lag["min"] <= lag["p50"] <= lag["p99"] <= lag["max"] <= SEND_TOLERANCE_MS, lag
    point = run.points.get()
    assert point.sample_count == 200 and point.request_errors == 0 and point.loadgen_valid and run.measurement_valid
    # The server generated exactly the trace's recorded output lengths (ignore_eos), and read its input lengths.
    block = point.details["endpoint"]
    assert block["output_tokens_total"] == sum(r.output_tokens for r in trace.requests)
    assert block["prompt_tokens_total"] == sum(r.input_tokens for r in trace.requests)
    # Offered at the trace's own rate: 199 gaps over its recorded duration.
    assert point.offered_rate_qps == pytest.approx(trace.distributions()["arrivals"]["mean_rate_per_s"])

    # The same figures stored under another trace and under the endpoint's synthetic id rank apart from it.
    for other in ("trace:other-sample", "endpoint:tiny-vllm"):
        assert ingest_result(_relabelled(run.payload, other), source="test").status == STORED
    ranking = staff_api.get("/api/v1/rankings/", {"workload": "trace:chat-sample", "price_kind": "cloud_on_demand"})
    assert ranking.status_code == 200, ranking.content
    assert {row["run"]["id"] for row in ranking.json()["rows"]} == {str(run.pk)}
    other = staff_api.get("/api/v1/rankings/", {"workload": "trace:other-sample", "price_kind": "cloud_on_demand"})
    assert str(run.pk) not in {row["run"]["id"] for row in other.json()["rows"]} and other.json()["rows"]
    fronts = staff_api.get("/api/v1/serving/fronts/", {"workload": "trace:chat-sample"}).json()
    assert {p["run"] for front in fronts for p in front["points"]} == {str(run.pk)}


@pytest.mark.django_db
@pytest.mark.timeout(600, method="thread")
def test_a_traces_requests_are_drawn_by_the_concurrency_sweep_token_lengths_or_text(
    staff_api, tiny_vllm, django_capture_on_commit_callbacks
):
    lengths = _mooncake_trace(40, rate_per_s=10, seed=7)
    prompts = "\n".join(json.dumps({"prompt": f"Tell me about item {i} of the catalogue.", "output_tokens": 4 + i % 5})
                        for i in range(20))  # fmt: skip
    for name, fmt, text in (("lengths", "mooncake", lengths), ("prompts", "vllm-custom", prompts)):
        response = staff_api.post("/api/v1/traces/", {"name": name, "format": fmt, "content": text}, format="json")
        assert response.status_code == 201, response.data
    common = {"endpoint": "tiny-vllm", "trace_mode": "concurrency", "concurrency_max": 2, "min_duration_ms": 1000,
              "min_query_count": 12, "time_limit_s": 600}  # fmt: skip
    with django_capture_on_commit_callbacks(execute=True):
        for name in ("lengths", "prompts"):
            assert staff_api.post("/api/v1/jobs/", common | {"trace": name}, format="json").status_code == 201
    assert run_pending_local_jobs() == 2

    for name, fmt, text in (("lengths", "mooncake", lengths), ("prompts", "vllm-custom", prompts)):
        job = Job.objects.get(trace__name=name)
        assert job.state == "succeeded", job.error
        run = BenchmarkRun.objects.get(job=job)
        trace = parse_trace(name, text, fmt)
        assert run.workload_name == f"trace:{name}" and run.scenario == "concurrency-sweep"
        assert run.payload["trace"]["mode"] == "concurrency" and run.payload["trace"]["send_lag_ms"] is None
        assert run.payload["trace"]["prompts"] == ("token lengths" if fmt == "mooncake" else "text")
        outputs = sorted({r.output_tokens for r in trace.requests})
        for point in run.points.all():
            block = point.details["endpoint"]
            assert block["errors"] == 0 and block["requests"] == point.sample_count
            # Each request asked for one of the trace's own output lengths (ignore_eos: exactly that many), so
            # the mean per request lies within the trace's range.
            assert outputs[0] <= block["output_tokens_total"] / block["requests"] <= outputs[-1]
