"""GET /api/v1/runs/{id}/latency-layers/: each point's p99 split into compute, memory, batching/queue and transport
(harness.latency_layers), the parts adding up to the point's stored p99, for a real harness run and a real vLLM
endpoint run (tests/fixtures/endpoint_runs: measured once against the vLLM CPU server the endpoint tests start)."""

import copy
import json
import uuid
from pathlib import Path

import pytest

from results.ingest import STORED, ingest_result
from results.models import BenchmarkRun

pytestmark = pytest.mark.django_db

VLLM_RUN = Path(__file__).resolve().parents[1] / "fixtures" / "endpoint_runs" / "vllm-tiny-server.json"
# The parts are the p99 split, not estimated beside it (see tests/harness/test_latency_layers.py).
SUM_TOLERANCE = 1e-9


def vllm_payload() -> dict:
    return json.loads(VLLM_RUN.read_text()) | {"run_id": str(uuid.uuid4())}


def _stored(payload: dict) -> BenchmarkRun:
    outcome = ingest_result(copy.deepcopy(payload), source="test")
    assert outcome.status == STORED, outcome.reason
    return outcome.run


def _assert_parts_add_up(answer: dict, run: BenchmarkRun) -> None:
    stored_p99 = {point.index: point.latency_p99_ms for point in run.points.all()}
    assert [point["index"] for point in answer["points"]] == sorted(stored_p99)
    for point in answer["points"]:
        parts = point["parts"]
        assert point["p99_ms"] == stored_p99[point["index"]]
        assert sum(part["ms"] for part in parts) == pytest.approx(point["p99_ms"], rel=SUM_TOLERANCE)
        assert sum(point["layers_ms"].values()) == pytest.approx(point["p99_ms"], rel=SUM_TOLERANCE)
        assert [part["ms"] for part in parts] == sorted((part["ms"] for part in parts), reverse=True)
        assert parts[-1]["cumulative_share"] == pytest.approx(1.0)
        assert all(part["source"] for part in parts)


def test_it_splits_a_harness_runs_p99_into_parts_that_add_up_to_it(api, catalog, result_payload):
    run = _stored(result_payload)
    response = api.get(f"/api/v1/runs/{run.pk}/latency-layers/")
    assert response.status_code == 200, response.data
    answer = response.data
    assert answer["workload"] == "tabular-tiny" and answer["scenario"] == "single-stream"
    _assert_parts_add_up(answer, run)
    point = answer["points"][0]
    # The SUT's clock stops after LoadGen's completion call returns, LoadGen's inside it: in single-stream the SUT's
    # p99 request can come out a few microseconds longer than LoadGen's p99 (seen: 6.528 against 6.523 ms), and
    # its parts are then scaled to the p99, said so.
    assert point["method"].startswith(
        ("measured: the split of the SUT's request at its p99", "apportioned: the SUT's p99 request")
    )
    assert {"compute", "transport"} <= set(point["layers_ms"])
    assert point["operators"] and point["operators"][0]["name"].startswith("aten::")
    # Measured on this CPU: the catalog states no memory bandwidth for a CPU slice, and the answer says so.
    assert any(note.startswith("no memory layer: the catalog states no memory bandwidth") for note in point["notes"])


def test_it_splits_an_endpoint_runs_p99_by_the_servers_own_timing(api, catalog):
    run = _stored(vllm_payload())
    answer = api.get(f"/api/v1/runs/{run.pk}/latency-layers/").data
    _assert_parts_add_up(answer, run)
    point = answer["points"][0]
    names = {part["name"] for part in point["parts"]}
    assert {"server prefill", "server decode", "transport and serialisation"} <= names
    assert point["method"].startswith("apportioned: the client's p99")
    # Recorded: vLLM decoded its 16 output tokens in 600 ms of its 704 ms mean request: the first bar.
    assert point["parts"][0]["name"] == "server decode"


def test_a_published_result_has_no_split_and_says_why(api, catalog, result_payload):
    run = _stored(result_payload)
    BenchmarkRun.objects.filter(pk=run.pk).update(origin="external")
    response = api.get(f"/api/v1/runs/{run.pk}/latency-layers/")
    assert response.status_code == 409
    assert "published result" in response.data["detail"]


def test_the_schema_documents_the_latency_layers(api):
    schema = api.get("/api/schema/?format=json").json()
    operation = schema["paths"]["/api/v1/runs/{id}/latency-layers/"]["get"]
    assert set(operation["responses"]) == {"200", "404", "409"}
    assert "parts" in schema["components"]["schemas"]["PointLatencyLayers"]["properties"]
