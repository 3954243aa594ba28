"""Workloads: each (model class, size) is a registry workload; reference parameter counts equal the
published models' (on the meta device: nothing is allocated, not even DLRM-v2's 104.6 GB); FLOPs and
seeded inputs."""

import pytest
import torch

import workloads as registry
from harness.workloads import SIZES, WORKLOADS, get_workload

# The published models' parameter counts, as their own definitions count them (sum of numel).
PUBLISHED_PARAMETERS = {
    "resnet50": 25_557_032,  # torchvision resnet50 (v1.5)
    "bert-large-99": 334_094_338,  # BertForQuestionAnswering on MLPerf's bert_config.json
    "llama3.1-8b": 8_030_261_248,  # Meta-Llama-3.1-8B-Instruct config.json
    "dlrm-v2-99": 26_151_671_809,  # MLPerf dlrm_v2 DLRM_DCN, Criteo 1TB multi-hot tables
}


@pytest.mark.parametrize("model_class", list(WORKLOADS))
@pytest.mark.parametrize("size", SIZES)
def test_each_harness_workload_is_a_registry_workload_of_its_class(model_class, size):
    workload = get_workload(model_class, size)
    registered = registry.get(workload.name)
    assert registered.harness == (model_class, size) and registered.model_class == model_class
    assert registered.is_smoke_test == (size == "tiny")


@pytest.mark.parametrize("model_class", list(WORKLOADS))
def test_each_reference_has_its_registered_parameter_count_on_meta(model_class):
    workload = get_workload(model_class, "reference")
    model = workload.build("meta")
    assert all(p.device.type == "meta" for p in model.parameters())
    assert workload.parameter_count(model) == workload.registry_workload.parameter_count


def test_the_registered_counts_are_the_published_models():
    assert {w: registry.get(w).parameter_count for w in PUBLISHED_PARAMETERS} == PUBLISHED_PARAMETERS
    harness_references = {get_workload(c, "reference").name for c in WORKLOADS}
    assert set(PUBLISHED_PARAMETERS) <= harness_references


def test_the_llm_reference_runs_at_mlperf_llama31_8b_bounds():
    config, registered = get_workload("llm-decoder", "reference").config, registry.get("llama3.1-8b")
    assert (config["prompt_tokens"], config["output_tokens"]) == (2048, 128)
    assert (registered.max_input_tokens, registered.max_output_tokens) == (2048, 128)


def test_the_encoder_reference_is_bert_large_with_a_span_head_at_384_tokens():
    workload = get_workload("encoder", "reference")
    model = workload.build("meta")
    assert workload.config["seq_len"] == 384 and not hasattr(model, "pooler")
    with torch.no_grad():
        logits = model(*workload.example_inputs(2, device="meta"))
    assert tuple(logits.shape) == (2, 2, 384)  # start and end logits per token


def test_it_documents_the_tabular_reference_size():
    model = get_workload("tabular", "reference").build("meta")
    assert (
        get_workload("tabular").parameter_count(model) == 512 * 1024 + 1024 + 1024 * 512 + 512 + 512 * 256 + 256 + 257
    )


def test_it_counts_dlrm_flops_in_its_dense_layers_only():
    workload = get_workload("recommendation", "reference")
    model = workload.build("meta")
    dense_parameters = workload.parameter_count(model) - sum(t.weight.numel() for t in model.tables)
    # Embedding bags are lookups and sums: the FLOPs are the MLPs' and the cross network's matmuls.
    assert dense_parameters < workload.flops_per_inference(model, "meta") < 2 * dense_parameters * 1.01


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
