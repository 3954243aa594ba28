"""The inferledger.result/1 contract: valid payloads pass, bad fields are named by JSON path."""

import copy
import functools
import json
import operator

import pytest

from harness.result import ResultValidationError, load_schema, validate_result
from harness.runner import SuiteItem, run_item

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


# Where a key path ends in DELETE, the key is removed rather than set.
DELETE = object()


@pytest.mark.parametrize(
    "path, value, message",
    [
        pytest.param(("points", 0, "latency_ms", "p99"), -1,
                     r"^points\[0\]\.latency_ms\.p99: -1 is less than the minimum of 0", id="negative-latency"),
        pytest.param(("points", 0, "throughput_per_s"), float("nan"),
                     r"^points\[0\]\.throughput_per_s: .* is not a finite number", id="nan"),
        pytest.param(("points", 0, "throughput_per_s"), float("inf"),
                     r"^points\[0\]\.throughput_per_s: .* is not a finite number", id="inf"),
        pytest.param(("points", 0, "latency_ms", "p42"), 1.0,
                     r"^points\[0\]\.latency_ms: Additional properties", id="unknown-key"),
        pytest.param(("workload", "model_class"), "gan",
                     r"^workload\.model_class: 'gan' is not one of", id="wrong-enum"),
        pytest.param(("run_id",), DELETE, r"^\$: 'run_id' is a required property", id="missing-at-the-root"),
        pytest.param(("workload", "id"), "tabular-huge",
                     r"^workload\.id: unknown workload 'tabular-huge'; known: .*", id="workload-the-registry-lacks"),
        pytest.param(("workload", "id"), "resnet50",
                     r"^workload\.model_class: 'tabular' is not the class of workload 'resnet50' \(cv-classification\)",
                     id="workload-of-another-model-class"),
    ],
)  # fmt: skip
def test_it_refuses_a_bad_field_naming_its_json_path(payload, path, value, message):
    bad = copy.deepcopy(payload)
    *parents, key = path
    holder = functools.reduce(operator.getitem, parents, bad)
    if value is DELETE:
        del holder[key]
    else:
        holder[key] = value
    with pytest.raises(ResultValidationError, match=message):
        validate_result(bad)


def test_the_schema_is_draft_2020_12():
    assert load_schema()["$schema"] == "https://json-schema.org/draft/2020-12/schema"


def test_it_names_the_registry_workload_it_measured(payload):
    assert payload["workload"]["id"] == payload["workload"]["name"] == "tabular-tiny"
