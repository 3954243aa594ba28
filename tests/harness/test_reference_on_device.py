"""The fp32 reference is loaded onto the item's device, which moves its model in place: nothing measured about
the model may read it after that. Found on the first GPU host (an H200): every non-fp32 item on CUDA failed
with "mat1 is on cpu, different from other tensors on cuda:0" while counting FLOPs."""

import pytest
import torch

from harness import runner
from harness.backends.eager import EagerBackend
from harness.runner import SuiteItem, prepare_item
from harness.workloads import get_workload

from .conftest_helpers import FAST


@pytest.mark.parametrize("model_class", ["tabular", "encoder"])
def test_an_item_is_prepared_when_its_reference_leaves_the_cpu(tmp_path, monkeypatch, model_class):
    load, guard, references = EagerBackend.load, runner.check_accuracy, []

    def load_and_note_the_reference(self, model, example):
        load(self, model, example)
        if self.precision == "fp32":
            references.append(model)

    def guard_then_leave_the_cpu(*args, **kwargs):
        verdict = guard(*args, **kwargs)
        for model in references:  # stands in for the reference's .to("cuda") on a host without one
            model.to("meta")
        return verdict

    monkeypatch.setattr(EagerBackend, "load", load_and_note_the_reference)
    monkeypatch.setattr(runner, "check_accuracy", guard_then_leave_the_cpu)
    prepared = prepare_item(SuiteItem(model_class, "tiny", "offline", "eager", "bf16", "cpu", FAST), tmp_path)
    workload = get_workload(model_class, "tiny")
    # FLOPs are counted on the meta device, where attention is counted as the two matmuls it is (on the CPU,
    # FlopCounterMode has no formula for the fused SDPA kernel and leaves attention out).
    assert prepared.flops_per_inference == workload.flops_per_inference(device="meta") > 0
    assert prepared.parameters == sum(p.numel() for p in workload.build("meta").parameters())
    assert prepared.weight_bytes == workload.weight_bytes(workload.build("cpu"))
    assert references and all(p.device == torch.device("meta") for p in references[0].parameters())


@pytest.mark.parametrize("precision", ["fp32", "bf16"])
def test_a_model_is_built_once_per_item_and_the_measured_copy_has_the_references_weights(
    tmp_path, monkeypatch, precision
):
    """Building Llama-3.1-8B twice on a GPU host's CPU (reference, then the model measured) cost about a minute
    more per item; the second model is a copy of the first, so it has the same seeded weights."""
    workload_class = type(get_workload("tabular", "tiny"))
    build, built, loaded = workload_class.build, [], {}

    def counted_build(self, device="cpu"):
        model = build(self, device)
        built.append(device)
        return model

    load = EagerBackend.load

    def note_load(self, model, example):
        loaded[self.precision] = {name: tensor.detach().float().clone() for name, tensor in model.state_dict().items()}
        load(self, model, example)

    monkeypatch.setattr(workload_class, "build", counted_build)
    monkeypatch.setattr(EagerBackend, "load", note_load)
    prepare_item(SuiteItem("tabular", "tiny", "offline", "eager", precision, "cpu", FAST), tmp_path)
    assert built.count("cpu") == 1  # (the FLOP count builds on the meta device, once per workload)
    reference = build(workload_class("tiny"), "cpu").state_dict()
    for weights in loaded.values():  # fp32: the reference itself; bf16: the measured copy and the reference
        assert all(torch.equal(weights[name], tensor) for name, tensor in reference.items())
