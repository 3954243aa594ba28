"""The torch-free vocabulary the web process validates job specs with is exactly what the harness runs."""

import subprocess
import sys
from pathlib import Path

import pytest

from harness import names
from harness.backends import BACKENDS, PRECISIONS
from harness.scenarios import SCENARIOS
from harness.suite import plan_suite
from harness.workloads import SIZES, WORKLOADS, get_workload

ROOT = Path(__file__).resolve().parents[2]


def test_the_names_are_the_harness_registries():
    assert names.BACKENDS == tuple(BACKENDS)
    assert names.PRECISIONS == tuple(PRECISIONS)
    assert names.SCENARIOS == tuple(SCENARIOS)
    assert names.SIZES == SIZES
    assert set(names.MODEL_CLASSES) == set(WORKLOADS)
    assert names.HARNESS_WORKLOADS == {
        get_workload(model_class, size).name: (model_class, size) for model_class in WORKLOADS for size in SIZES
    }


def test_importing_the_names_loads_neither_torch_nor_django():
    code = "import sys, harness.names; print('torch' in sys.modules, 'django' in sys.modules)"
    out = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, check=True).stdout
    assert out.split() == ["False", "False"]


def test_a_workload_id_pins_its_size_and_a_class_runs_at_each_size():
    assert names.resolve_workloads(["resnet50", "encoder"], ["tiny", "reference"]) == {
        "cv-classification": ["reference"],
        "encoder": ["tiny", "reference"],
    }
    items = plan_suite("quick", workloads=["bert-large-99"], backends=["eager"], precisions=["fp32"], device="cpu")
    assert {(i.workload_id, i.size) for i in items} == {("bert-large-99", "reference")}


def test_it_names_the_known_choices_for_an_unknown_workload():
    with pytest.raises(ValueError, match=r"unknown workloads \['bert-base'\]; known: model classes .*resnet50"):
        names.resolve_workloads(["bert-base"], ["tiny"])


def test_the_quick_suite_leaves_dlrm_out_unless_named():
    assert "recommendation" not in {i.model_class for i in plan_suite("quick", device="cpu")}
    named = plan_suite("quick", workloads=["recommendation"], device="cpu")
    assert {i.workload_id for i in named} == {"recommendation-tiny"}
