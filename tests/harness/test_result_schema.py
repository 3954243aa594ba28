"""The inferledger.result/1 contract: valid payloads pass, bad fields are named by JSON path."""

import copy
import json

import pytest

from agents.harness.result import ResultValidationError, load_schema, validate_result
from agents.harness.runner import SuiteItem, run_item

from .conftest_helpers import FAST


@pytest.fixture(scope="module")
def payload(tmp_path_factory):
    item = SuiteItem("tabular", "tiny", "server", "eager", "int8", "cpu", FAST)
    return run_item(item, tmp_path_factory.mktemp("schema"))


def test_it_accepts_a_harness_payload(payload):
    validate_result(payload)
    point = payload["points"][0]
    assert payload["schema"] == "inferledger.result/1"
    assert point["queue_wait_ms"] and point["batch_size_histogram"] and payload["accuracy"]["tolerance"] > 0
    assert payload["telemetry"]["nvml"].startswith("unavailable (")
    assert json.loads(json.dumps(payload)) == payload


def test_it_names_the_path_of_a_negative_latency(payload):
    bad = copy.deepcopy(payload)
    bad["points"][0]["latency_ms"]["p99"] = -1
    with pytest.raises(ResultValidationError, match=r"^points\[0\]\.latency_ms\.p99: -1 is less than the minimum of 0"):
        validate_result(bad)


@pytest.mark.parametrize("value", [float("nan"), float("inf")])
def test_it_rejects_non_finite_numbers(payload, value):
    bad = copy.deepcopy(payload)
    bad["points"][0]["throughput_per_s"] = value
    with pytest.raises(ResultValidationError, match=r"^points\[0\]\.throughput_per_s: .* is not a finite number"):
        validate_result(bad)


def test_it_rejects_unknown_keys_and_wrong_enums(payload):
    bad = copy.deepcopy(payload)
    bad["points"][0]["latency_ms"]["p42"] = 1.0
    with pytest.raises(ResultValidationError, match=r"^points\[0\]\.latency_ms: Additional properties"):
        validate_result(bad)
    bad = copy.deepcopy(payload)
    bad["workload"]["model_class"] = "gan"
    with pytest.raises(ResultValidationError, match=r"^workload\.model_class: 'gan' is not one of"):
        validate_result(bad)


def test_it_rejects_a_missing_field_at_the_root(payload):
    bad = copy.deepcopy(payload)
    del bad["run_id"]
    with pytest.raises(ResultValidationError, match=r"^\$: 'run_id' is a required property"):
        validate_result(bad)


def test_the_schema_is_draft_2020_12():
    assert load_schema()["$schema"] == "https://json-schema.org/draft/2020-12/schema"


def test_it_names_the_registry_workload_it_measured(payload):
    assert payload["workload"]["id"] == payload["workload"]["name"] == "tabular-tiny"


def test_it_refuses_a_workload_id_the_registry_does_not_know(payload):
    bad = copy.deepcopy(payload)
    bad["workload"]["id"] = "tabular-huge"
    with pytest.raises(ResultValidationError, match=r"^workload\.id: unknown workload 'tabular-huge'; known: .*"):
        validate_result(bad)


def test_it_refuses_a_workload_id_of_another_model_class(payload):
    bad = copy.deepcopy(payload)
    bad["workload"]["id"] = "resnet50"
    with pytest.raises(
        ResultValidationError,
        match=r"^workload\.model_class: 'tabular' is not the class of workload 'resnet50' \(cv-classification\)",
    ):
        validate_result(bad)
