import pytest

from results.ingest import ingest_result

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


def test_it_links_each_points_loadgen_logs_and_serves_them_to_readers_of_the_run(
    api, anonymous_api, catalog, result_payload
):
    ingest_result(result_payload, source="test")
    run_id = result_payload["run_id"]
    point = api.get(f"/api/v1/runs/{run_id}/").data["points"][0]
    stored = result_payload["points"][0]["loadgen"]
    assert stored["summary_log"] and stored["detail_log"]
    for kind in ("summary", "detail"):
        url = point["loadgen_logs"][kind]
        assert url.endswith(f"/api/v1/runs/{run_id}/points/{point['index']}/loadgen-{kind}/")
        download = api.get(url)
        assert download.status_code == 200
        assert download.content.decode() == stored[f"{kind}_log"]
        assert download["Content-Type"].startswith("text/plain")
        assert "attachment" in download["Content-Disposition"]
        assert anonymous_api.get(url).status_code == 401  # as for the run itself
    assert api.get(f"/api/v1/runs/{run_id}/points/99/loadgen-summary/").status_code == 404


def test_it_gives_no_log_link_where_no_log_was_stored(api, catalog, result_payload):
    for point in result_payload["points"]:
        point["loadgen"]["detail_log"] = ""
    ingest_result(result_payload, source="test")
    run_id = result_payload["run_id"]
    point = api.get(f"/api/v1/runs/{run_id}/").data["points"][0]
    assert point["loadgen_logs"]["detail"] is None and point["loadgen_logs"]["summary"]
    assert api.get(f"/api/v1/runs/{run_id}/points/{point['index']}/loadgen-detail/").status_code == 404


def test_the_loadgen_log_endpoint_answers_errors_in_json_not_python_reprs(api, anonymous_api, catalog,
                                                                          result_payload):  # fmt: skip
    # Before: "{'detail': ErrorDetail(string='Not found.', code='not_found')}" as text/plain.
    ingest_result(result_payload, source="test")
    run_id = result_payload["run_id"]
    missing = api.get(f"/api/v1/runs/{run_id}/points/99/loadgen-summary/")
    assert missing.status_code == 404 and missing["Content-Type"] == "application/json"
    assert missing.json() == {"detail": f"run {run_id} has no operating point 99"}
    anonymous = anonymous_api.get(f"/api/v1/runs/{run_id}/points/0/loadgen-summary/")
    assert anonymous.status_code == 401 and anonymous.json()["detail"].startswith("Authentication credentials")
    no_run = api.get("/api/v1/runs/00000000-0000-0000-0000-000000000000/points/0/loadgen-summary/")
    assert no_run.status_code == 404 and "ErrorDetail" not in no_run.content.decode() and no_run.json()["detail"]
