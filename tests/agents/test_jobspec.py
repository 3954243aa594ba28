"""Job specs name workloads by model class or registry id, and plan the sizes they mean."""

import pytest

from agents.jobspec import JobSpecError, spec_errors, validate_spec
from harness.host.plan import plan_items


def test_a_spec_may_name_a_registry_workload_the_harness_runs():
    spec = {"workloads": ["bert-large-99", "tabular"], "sizes": ["tiny"], "scenarios": ["single-stream"],
            "backends": ["eager"], "precisions": ["fp32"]}  # fmt: skip
    assert spec_errors(spec, time_limit_max_s=3600) == {}
    planned = {(item.workload_id, item.scenario) for item in plan_items(spec, device="cpu")}
    assert planned == {("bert-large-99", "single-stream"), ("tabular-tiny", "single-stream")}


def test_reference_sizes_plan_the_published_models():
    spec = {"workloads": ["cv-classification", "llm-decoder"], "sizes": ["reference"], "backends": ["eager"],
            "precisions": ["fp32"], "scenarios": ["offline"]}  # fmt: skip
    assert {item.workload_id for item in plan_items(spec, device="cpu")} == {"resnet50", "llama3.1-8b"}


def test_it_refuses_a_published_only_workload_naming_what_it_can_run():
    # llama2-70b-99 is a registry workload, but only published results exist for it: no harness runs it.
    with pytest.raises(JobSpecError) as refused:
        validate_spec({"workloads": ["llama2-70b-99"]}, time_limit_max_s=3600)
    message = refused.value.errors["workloads"]
    assert message.startswith("unknown 'llama2-70b-99'; known: ") and "llama3.1-8b" in message
