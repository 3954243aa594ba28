import subprocess
import sys
from decimal import Decimal

import pytest

import workloads


def test_it_imports_without_django_or_torch():
    code = "import sys, workloads; print('torch' in sys.modules, 'django' in sys.modules)"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert out.split() == ["False", "False"]


@pytest.mark.parametrize(
    ("published", "workload_id", "variant"),
    [
        ("llama2-70b-99", "llama2-70b-99", ""),
        ("llama2-70b-interactive-99.9", "llama2-70b-99.9", "interactive"),
        ("llama3_1-405b", "llama3.1-405b", ""),
        ("Llama3.1-8B", "llama3.1-8b", ""),
        ("bert-99.9", "bert-large-99.9", ""),
        ("whisper", "whisper-large-v3", ""),
    ],
)
def test_it_resolves_published_benchmark_spellings(published, workload_id, variant):
    resolved = workloads.published_benchmark(published)
    assert (resolved.workload.id, resolved.variant) == (workload_id, variant)


def test_it_refuses_an_unknown_benchmark_by_name():
    with pytest.raises(workloads.UnknownWorkload, match="no-such-bench"):
        workloads.published_benchmark("no-such-bench")


def test_every_model_class_has_a_reference_workload_of_its_own_class():
    for model_class in workloads.MODEL_CLASSES:
        reference = workloads.reference_for(model_class)
        assert reference.model_class == model_class
        assert not reference.is_smoke_test


def test_smoke_stand_ins_point_at_a_real_workload_of_the_same_class():
    for workload in workloads.all_workloads():
        if workload.is_smoke_test:
            target = workloads.get(workload.smoke_stand_in_for)
            assert target.model_class == workload.model_class and not target.is_smoke_test


def test_llm_workloads_count_output_tokens_and_carry_ttft_tpot_slas():
    for workload in workloads.for_model_class(workloads.LLM_DECODER):
        assert workload.unit == workloads.Unit.OUTPUT_TOKENS
        assert workload.standard_llm_slas or workload.standard_slas_ms != (None,)


def test_no_published_benchmark_maps_to_two_workloads():
    names = [workloads.normalise_benchmark_name(n) for w in workloads.all_workloads() for n in w.published_benchmarks]
    assert len(names) == len(set(names))


def test_published_llm_means_stay_within_their_benchmark_bounds():
    for workload in workloads.for_model_class(workloads.LLM_DECODER):
        if workload.output_tokens_per_request is not None and workload.max_output_tokens is not None:
            assert workload.output_tokens_per_request <= workload.max_output_tokens
    assert workloads.get("llama2-70b-99").output_tokens_per_request == Decimal("294.45")


def test_every_reference_the_harness_runs_states_its_parameter_count():
    for workload in workloads.all_workloads(include_smoke_tests=False):
        if workload.harness is not None:
            assert workload.parameter_count, workload.id


def test_the_benchmark_seed_names_its_runs_by_registry_id():
    from benchmarks.seeding import MODEL_CLASSES

    for model_class, workload_id in MODEL_CLASSES.items():
        assert workloads.for_harness(model_class, "reference").id == workload_id
