"""A trace's runs (workload trace:<name>) rank only against runs of the same trace: never against another trace,
nor against the synthetic runs of the endpoint that served them."""

import pytest

from tests.money import per_million_text

from .serving.data import llm_point

pytestmark = pytest.mark.django_db

ENDPOINT_RUN = {"model_class": "endpoint", "backend": "openai-completions", "precision": "bf16"}


@pytest.fixture
def three_workloads(make_accelerator, make_price, make_run):
    """One accelerator at 2.88 USD/h that served one endpoint three ways: replaying trace chat (400 output tok/s),
    replaying trace batch (1,600 tok/s) and the endpoint's synthetic sweep (1,200 tok/s)."""
    gpu = make_accelerator("Gamma")
    make_price(gpu, "2.88")
    make_run(gpu, [llm_point(25, 400)], workload_name="trace:chat", scenario="trace-replay", **ENDPOINT_RUN)
    make_run(gpu, [llm_point(25, 1600)], workload_name="trace:batch", scenario="trace-replay", **ENDPOINT_RUN)
    make_run(gpu, [llm_point(25, 1200, concurrency=8)], workload_name="endpoint:my-vllm",
             scenario="concurrency-sweep", **ENDPOINT_RUN)  # fmt: skip
    return gpu


def test_it_ranks_a_trace_only_against_runs_of_the_same_trace(api, three_workloads):
    body = api.get("/api/v1/rankings/", {"workload": "trace:chat", "price_kind": "cloud_on_demand"})

    assert body.status_code == 200, body.content
    rows = body.json()["rows"]
    # 2.88 USD/h / (400 tok/s * 3600 s/h) * 1e6 = 2.00 USD per 1M output tokens: trace chat's own run, alone
    # (trace batch's 1,600 tok/s would be 0.50 and the synthetic 1,200 tok/s 0.666...).
    assert [row["cost_per_million_usd"] for row in rows] == [per_million_text("2.88", 400)]
    assert body.json()["workload"]["id"] == "trace:chat"


def test_its_serving_fronts_hold_only_the_traces_own_runs(api, three_workloads):
    fronts = api.get("/api/v1/serving/fronts/", {"workload": "trace:batch"}).json()

    # One front (one accelerator, one engine, one precision) of one point: trace batch's 1,600 tok/s at 40 tok/s
    # per user (1000 / 25 ms TPOT); nothing of trace chat's run or the synthetic sweep on the same accelerator.
    assert [[p["interactivity_tps_per_user"] for p in front["points"]] for front in fronts] == [[40.0]]
    assert [p["output_tokens_per_s_per_accelerator"] for p in fronts[0]["points"]] == [1600]


def test_an_undeclared_shape_of_trace_id_is_refused(api, three_workloads):
    body = api.get("/api/v1/rankings/", {"workload": "trace:Not A Name", "price_kind": "cloud_on_demand"})

    assert body.status_code == 400 and "trace:<lowercase name>" in str(body.json())
