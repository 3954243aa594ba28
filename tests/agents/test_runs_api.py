import pytest

from agents.ingest import ingest_result

pytestmark = pytest.mark.django_db


def test_it_lists_runs_with_points_and_filters_them(api, catalog, result_payload):
    ingest_result(result_payload, source="test")
    response = api.get("/api/v1/runs/?workload=tabular-tiny&backend=eager&precision=fp32")
    assert response.status_code == 200
    assert [row["id"] for row in response.data["results"]] == [result_payload["run_id"]]
    assert response.data["results"][0]["points"][0]["latency_p99_ms"] > 0
    assert api.get("/api/v1/runs/?backend=onnxruntime").data["count"] == 0
    accelerator = response.data["results"][0]["accelerator"]
    assert api.get(f"/api/v1/runs/?accelerator={accelerator}").data["count"] == 1


def test_it_keeps_runs_read_only(staff_api, catalog, result_payload):
    ingest_result(result_payload, source="test")
    assert staff_api.delete(f"/api/v1/runs/{result_payload['run_id']}/").status_code == 405
    assert staff_api.post("/api/v1/runs/", result_payload, format="json").status_code == 405


def test_it_refuses_anonymous_readers(anonymous_api):
    assert anonymous_api.get("/api/v1/runs/").status_code == 401
