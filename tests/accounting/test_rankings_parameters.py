"""Every query parameter the OpenAPI schema advertises for GET /api/v1/rankings/ as optional may be left out.

The audit found `sla_p99_ms` documented as optional but answered 500 when omitted. Each optional parameter
here is sent alone on top of the required ones; a parameter added to the schema without an example below
fails the first test, so the list cannot silently fall behind the schema.
"""

from datetime import UTC, datetime

import pytest

pytestmark = pytest.mark.django_db

REQUIRED = {"price_kind": "cloud_on_demand"}
# The workload is named by `workload` or, for its reference workload, `model_class`: one of the two is needed.
WORKLOAD = {"model_class": "cv-classification"}
# Bounds and token lengths that only fit an LLM workload, tried on the reference LLM workload.
LLM = {"workload": "llama2-70b-99", "model_class": "llm-decoder"}
OPTIONAL_EXAMPLES = {
    "workload": "resnet50",
    "model_class": "cv-classification",
    "sla_p99_ms": "10",
    "ttft_p99_ms": LLM | {"ttft_p99_ms": "2000"},
    "tpot_p99_ms": LLM | {"tpot_p99_ms": "200"},
    "input_tokens_per_request": LLM | {"input_tokens_per_request": "700"},
    "output_tokens_per_request": LLM | {"output_tokens_per_request": "300"},
    "utilization": "0.5",
    "region": "us-test-1",
    "provider": "TestCloud",
    "precision": "fp16",
    "backend": "eager",
    "as_of": "2025-06-01",
    "include_external": "true",
    "published": "all",
    # Switches to the LLM serving ranking (docs/serving.md), which reads an LLM workload id.
    "interactivity_tps_per_user": {"interactivity_tps_per_user": "10", "workload": "llama2-70b-99"},
}


def _advertised(api) -> dict[str, bool]:
    """{parameter name: required} for GET /api/v1/rankings/ in the served schema (query parameters only)."""
    schema = api.get("/api/schema/?format=json").json()
    parameters = schema["paths"]["/api/v1/rankings/"]["get"]["parameters"]
    return {p["name"]: p.get("required", False) for p in parameters if p["in"] == "query" and p["name"] != "format"}


@pytest.fixture
def two_gpus(make_accelerator, make_price, make_run):
    fast, slow = make_accelerator("Fast"), make_accelerator("Slow")
    make_price(fast, "2.00", effective_from=datetime(2025, 1, 1, tzinfo=UTC))
    make_price(slow, "1.00", effective_from=datetime(2025, 1, 1, tzinfo=UTC))
    make_run(fast, [{"throughput_per_s": 400, "latency_p99_ms": 9.0}])
    make_run(slow, [{"throughput_per_s": 400, "latency_p99_ms": 30.0}])
    return fast, slow


def test_every_advertised_parameter_has_an_example_here(api):
    advertised = _advertised(api)
    assert {name for name, required in advertised.items() if required} == set(REQUIRED)
    assert {name for name, required in advertised.items() if not required} == set(OPTIONAL_EXAMPLES)


def test_it_asks_for_a_workload_when_neither_workload_nor_model_class_is_given(api, two_gpus):
    response = api.get("/api/v1/rankings/", REQUIRED)
    assert response.status_code == 400 and "workload" in response.data


def test_it_ranks_with_only_the_required_parameters_and_no_sla(api, two_gpus):
    response = api.get("/api/v1/rankings/", REQUIRED | WORKLOAD)
    assert response.status_code == 200, response.data
    assert response.data["sla_p99_ms"] is None and response.data["sla"]["description"] == "no SLA"
    assert response.data["workload"]["id"] == "resnet50"  # the model class's reference, named
    # No SLA: both are ranked, the cheaper first, though one has a p99 of 30 ms.
    assert [row["accelerator"]["name"] for row in response.data["rows"]] == ["NVIDIA Slow", "NVIDIA Fast"]


@pytest.mark.parametrize("name", sorted(OPTIONAL_EXAMPLES))
def test_it_ranks_with_each_optional_parameter_alone(api, two_gpus, name):
    example = OPTIONAL_EXAMPLES[name]
    query = REQUIRED | WORKLOAD | (example if isinstance(example, dict) else {name: example})
    response = api.get("/api/v1/rankings/", query)
    assert response.status_code == 200, response.data
    if not isinstance(example, dict):  # the cost ranking of the two GPUs measured here
        assert response.data["rows"], f"{name}={example} ranked nothing"
