"""A workload that does not fit is refused with the figure before anything is allocated."""

import pytest
import torch

from harness.runner import Skip, SuiteItem, run_item
from harness.workloads import get_workload
from harness.workloads import memory as memory_module
from harness.workloads.memory import memory_shortfall

from .conftest_helpers import FAST

GB = 10**9


def test_it_refuses_dlrm_v2_on_a_host_without_two_fp32_copies_of_its_weights():
    # 26,151,671,809 parameters x 4 bytes = 104.6 GB of weights; two copies = 209.2 GB.
    reason = memory_shortfall(get_workload("recommendation", "reference"), "cpu", with_reference_copy=False,
                              host_bytes=128 * GB)  # fmt: skip
    assert reason == (
        "dlrm-v2-99 needs 209.2 GB of host memory (two fp32 copies of its 104.6 GB of weights: the model and "
        "the accuracy reference); this host has 128.0 GB available"
    )


def test_it_lets_bert_large_run_where_it_fits():
    # 334,094,338 parameters x 4 bytes = 1.34 GB; two copies = 2.7 GB.
    encoder = get_workload("encoder", "reference")
    assert memory_shortfall(encoder, "cpu", with_reference_copy=True, host_bytes=3 * GB) is None
    reason = memory_shortfall(encoder, "cpu", with_reference_copy=True, host_bytes=2 * GB)
    assert "needs 2.7 GB of host memory" in reason


def test_it_counts_the_gpu_copy_and_the_accuracy_reference_on_cuda():
    llm = get_workload("llm-decoder", "reference")  # 8,030,261,248 x 4 bytes = 32.1 GB
    assert memory_shortfall(llm, "cuda", with_reference_copy=False, host_bytes=100 * GB, device_bytes=40 * GB) is None
    reason = memory_shortfall(llm, "cuda", with_reference_copy=True, host_bytes=100 * GB, device_bytes=40 * GB)
    assert reason == "llama3.1-8b needs 64.2 GB of GPU memory for its fp32 weights; the GPU has 40.0 GB free"


def test_a_suite_item_that_does_not_fit_becomes_a_skip_naming_the_need(monkeypatch, tmp_path):
    monkeypatch.setattr(memory_module, "host_available_bytes", lambda: 16 * GB)
    item = SuiteItem("recommendation", "reference", "single-stream", "eager", "fp32", "cpu", FAST)
    result = run_item(item, tmp_path)
    assert isinstance(result, Skip) and result.workload == "dlrm-v2-99"
    assert result.reason.startswith("dlrm-v2-99 needs 209.2 GB of host memory")
    assert not list(tmp_path.iterdir())  # nothing measured, nothing written


def test_it_reads_what_this_host_has_available():
    assert memory_module.host_available_bytes() > 0
    assert memory_module.device_available_bytes("cpu") is None


@pytest.mark.gpu
def test_it_reads_the_free_memory_of_the_gpu():
    free_bytes = memory_module.device_available_bytes("cuda")
    assert 0 < free_bytes <= torch.cuda.get_device_properties(0).total_memory
