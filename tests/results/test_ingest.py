import json

import pytest

from results.ingest import DUPLICATE, QUARANTINED, STORED, ingest_result
from results.models import BenchmarkRun, OperatingPoint, QuarantinedPayload

pytestmark = pytest.mark.django_db


def test_it_stores_a_measured_result_with_its_points(catalog, result_payload):
    outcome = ingest_result(result_payload, source="test")
    assert outcome.status == STORED
    run = BenchmarkRun.objects.get(pk=result_payload["run_id"])
    assert run.workload_name == result_payload["workload"]["id"] == "tabular-tiny"  # the registry id
    assert run.accelerator.kind == "cpu" and run.accelerator.priced_as is not None
    point = run.points.get()
    assert point.latency_p99_ms == result_payload["points"][0]["latency_ms"]["p99"]
    assert "Result is" in point.loadgen_summary_log or "VALID" in point.loadgen_summary_log


def test_it_stores_the_same_result_once_when_delivered_twice(catalog, result_payload):
    assert ingest_result(result_payload, source="test").status == STORED
    again = ingest_result(json.dumps(result_payload), source="test")
    assert again.status == DUPLICATE
    assert BenchmarkRun.objects.filter(pk=result_payload["run_id"]).count() == 1
    assert OperatingPoint.objects.filter(run_id=result_payload["run_id"]).count() == len(result_payload["points"])


def test_it_quarantines_a_different_payload_under_a_stored_run_id(catalog, result_payload):
    ingest_result(result_payload, source="test")
    tampered = {**result_payload, "backend": "onnxruntime"}
    outcome = ingest_result(tampered, source="test")
    assert outcome.status == QUARANTINED and "different payload" in outcome.reason
    assert BenchmarkRun.objects.get(pk=result_payload["run_id"]).backend == "eager"


def test_it_quarantines_a_result_that_violates_the_schema_and_stores_nothing(catalog, result_payload):
    result_payload["points"][0]["latency_ms"]["p99"] = -1
    outcome = ingest_result(result_payload, source="test")
    assert outcome.status == QUARANTINED
    assert "points[0].latency_ms.p99" in outcome.reason
    assert BenchmarkRun.objects.count() == 0 and OperatingPoint.objects.count() == 0
    stored = QuarantinedPayload.objects.get()
    assert json.loads(stored.raw)["run_id"] == result_payload["run_id"]
    assert str(stored.run_id) == result_payload["run_id"]


def test_it_quarantines_text_that_is_not_json(catalog):
    outcome = ingest_result("{not json", source="test")
    assert outcome.status == QUARANTINED and "not valid JSON" in outcome.reason
    assert QuarantinedPayload.objects.get().raw == "{not json"


def test_it_quarantines_nan_throughput(catalog, result_payload):
    result_payload["points"][0]["throughput_per_s"] = float("nan")
    outcome = ingest_result(result_payload, source="test")
    assert outcome.status == QUARANTINED
    assert BenchmarkRun.objects.count() == 0


def test_it_quarantines_a_result_of_an_unregistered_workload(catalog, result_payload):
    result_payload["workload"]["id"] = "my-own-mlp"
    outcome = ingest_result(result_payload, source="test")
    assert outcome.status == QUARANTINED
    assert outcome.reason.startswith("schema: workload.id: unknown workload 'my-own-mlp'")
    assert BenchmarkRun.objects.count() == 0
