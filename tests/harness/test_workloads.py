"""Workloads: exact reference parameter counts (meta device), FLOPs and seeded inputs."""

import pytest
import torch

from agents.harness.workloads import WORKLOADS, get_workload

REFERENCE_PARAMETERS = {
    "cv-classification": 25_557_032,  # ResNet-50
    "encoder": 109_482_240,  # BERT-base with pooler
    "llm-decoder": 8_030_261_248,  # Llama-3-8B
}


@pytest.mark.parametrize("model_class", sorted(REFERENCE_PARAMETERS))
def test_it_matches_the_public_parameter_count_on_meta(model_class):
    workload = get_workload(model_class, "reference")
    model = workload.build("meta")
    assert all(p.device.type == "meta" for p in model.parameters())
    assert workload.parameter_count(model) == REFERENCE_PARAMETERS[model_class]


def test_it_documents_the_tabular_reference_size():
    model = get_workload("tabular", "reference").build("meta")
    assert (
        get_workload("tabular").parameter_count(model) == 512 * 1024 + 1024 + 1024 * 512 + 512 + 512 * 256 + 256 + 257
    )


@pytest.mark.parametrize("model_class", ["cv-classification", "encoder", "tabular"])
def test_it_counts_reference_flops_on_meta(model_class):
    workload = get_workload(model_class, "reference")
    assert workload.flops_per_inference(device="meta") > 2 * workload.parameter_count(workload.build("meta")) * 0.5


@pytest.mark.parametrize("model_class", list(WORKLOADS))
def test_it_runs_the_tiny_size_with_seeded_inputs(model_class):
    workload = get_workload(model_class, "tiny")
    model = workload.build()
    assert torch.equal(workload.example_inputs(3, seed=7)[0], workload.example_inputs(3, seed=7)[0])
    with torch.no_grad():
        out = workload.infer(model, model, workload.example_inputs(3))
    assert out.shape[0] == 3
    assert workload.flops_per_inference(model, "cpu") > 0
    assert workload.weight_bytes(model) >= 4 * workload.parameter_count(model)


def test_it_rejects_unknown_names():
    with pytest.raises(ValueError, match="unknown workload 'nope'"):
        get_workload("nope")
    with pytest.raises(ValueError, match="unknown size"):
        get_workload("tabular", "huge")


def test_it_generates_the_requested_number_of_tokens():
    workload = get_workload("llm-decoder", "tiny", prompt_tokens=8, output_tokens=5)
    model = workload.build()
    firsts = []
    with torch.no_grad():
        tokens = workload.infer(model, model, workload.example_inputs(2), on_first_token=firsts.append)
    assert tokens.shape == (2, 5) and len(firsts) == 1
