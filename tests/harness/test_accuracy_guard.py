"""The accuracy guard, driven by a backend whose error the test controls (outputs offset by a chosen amount)."""

import pytest
import torch

from harness.accuracy import ACCURACY_SEED, RELATIVE_TOLERANCE, check_accuracy
from harness.backends import BACKENDS
from harness.backends.eager import EagerBackend
from harness.runner import SuiteItem, run_item
from harness.workloads import get_workload
from results.verdict import describe_accuracy

from .conftest_helpers import FAST, perturbed_eager


def _loaded(backend_class, workload, precision="fp32"):
    backend = backend_class(precision, "cpu")
    backend.load(workload.build("cpu"), workload.example_inputs(2))
    return backend


def _fp32_tolerance(workload, reference) -> float:
    """The guard's fp32 tolerance for this workload, from the reference output's scale."""
    with torch.no_grad():
        expected = reference.forward(*workload.example_inputs(2, seed=ACCURACY_SEED))
    return RELATIVE_TOLERANCE["fp32"] * max(1.0, float(expected.abs().max()))


@pytest.mark.parametrize("model_class", ["tabular", "encoder"])
@pytest.mark.parametrize(("share_of_tolerance", "passes"), [(0.5, True), (3.0, False)])
def test_it_passes_an_error_within_tolerance_and_fails_one_beyond(model_class, share_of_tolerance, passes):
    workload = get_workload(model_class, "tiny")
    reference = _loaded(EagerBackend, workload)
    offset = share_of_tolerance * _fp32_tolerance(workload, reference)
    candidate = _loaded(perturbed_eager(offset), workload)

    report = check_accuracy(workload, reference, candidate, "fp32", batch_size=2)

    assert report.max_abs_error == pytest.approx(offset, rel=1e-3)
    assert report.passed is passes
    assert report.passed == (report.max_abs_error <= report.tolerance)


def test_it_reports_top1_agreement_where_the_workload_makes_a_decision():
    workload = get_workload("cv-classification", "tiny")
    reference = _loaded(EagerBackend, workload)
    same = check_accuracy(workload, reference, _loaded(perturbed_eager(0.0), workload), "fp32", batch_size=2)
    # A constant offset moves every logit alike: the argmax, the decision, is unchanged.
    shifted = check_accuracy(workload, reference, _loaded(perturbed_eager(5.0), workload), "fp32", batch_size=2)
    assert same.passed and same.max_abs_error == 0.0 and same.top1_agreement == 1.0
    assert not shifted.passed and shifted.top1_agreement == 1.0


def test_it_fails_a_run_whose_backend_is_off_and_keeps_measuring_it(tmp_path, monkeypatch):
    workload = get_workload("tabular", "tiny")
    # Ten times the reference's scale: beyond any precision's tolerance (at most 0.1 x that scale).
    offset = 10 * _fp32_tolerance(workload, _loaded(EagerBackend, workload)) / RELATIVE_TOLERANCE["fp32"]
    monkeypatch.setitem(BACKENDS, "eager", perturbed_eager(offset))
    result = run_item(SuiteItem("tabular", "tiny", "offline", "eager", "bf16", "cpu", FAST), tmp_path)
    accuracy = result["accuracy"]
    assert accuracy["passed"] is False and accuracy["max_abs_error"] > accuracy["tolerance"]
    assert result["points"] and all(point["throughput_per_s"] > 0 for point in result["points"])


def test_it_states_the_verdict_with_its_figures():
    failed = {"reference_precision": "fp32", "max_abs_error": 0.2968, "tolerance": 0.1, "top1_agreement": None,
              "passed": False}  # fmt: skip
    passed = failed | {"max_abs_error": 0.0131, "passed": True, "top1_agreement": 1.0}
    assert describe_accuracy(failed) == "failed: max abs error 0.297 > tolerance 0.1 against fp32"
    assert (
        describe_accuracy(passed)
        == "passed: max abs error 0.0131 <= tolerance 0.1 against fp32, top-1 agreement 100.0%"
    )
    assert describe_accuracy(None) == "fp32 reference (no guard)"
