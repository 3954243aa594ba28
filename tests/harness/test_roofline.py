"""The one roofline rule (harness.roofline), on figures a person can check by hand."""

import pytest
from hypothesis import given
from hypothesis import strategies as st

from harness.latency_layers import MemoryModel
from harness.roofline import COMPUTE, MEMORY, Roofline


def test_a_batch_one_vision_model_is_compute_bound():
    # 100 TFLOP/s, 2,000 GB/s; 8 GFLOP and 100 MB of weights per inference, batch 1:
    # compute 100e12 / 8e9 = 12,500/s; memory 2,000e9 * 1 / 1e8 = 20,000/s: compute binds.
    # Intensity 8e9 * 1 / 1e8 = 80 FLOP/byte, above the ridge 100e12 / 2,000e9 = 50.
    roofline = Roofline(8e9, 1e8, peak_tflops=100, memory_bandwidth_gbps=2000)
    assert roofline.ceilings_per_s(1) == pytest.approx({COMPUTE: 12_500, MEMORY: 20_000})
    assert roofline.binding(1) == (COMPUTE, pytest.approx(12_500))
    found = roofline.intensity(1)
    assert found["intensity_flops_per_byte"] == pytest.approx(80) and found["ridge_flops_per_byte"] == pytest.approx(50)
    assert found["bound"] == COMPUTE


def test_an_llm_request_reads_its_weights_once_per_output_token():
    # Llama-3.1-8B in bf16 on an H200-like part: 989 TFLOP/s, 4,800 GB/s; 16 GB of weights; a request of
    # 2,048 prompt and 128 output tokens is about 3.5e13 FLOPs and 128 forward passes; batch 32.
    # compute 989e12 / 3.5e13 = 28.257 requests/s; memory 4,800e9 * 32 / (16e9 * 128) = 75 requests/s.
    # Intensity 3.5e13 * 32 / (16e9 * 128) = 546.9 FLOP/byte, above the ridge 989e12 / 4,800e9 = 206.0.
    roofline = Roofline(3.5e13, 16e9, peak_tflops=989, memory_bandwidth_gbps=4800, passes_per_inference=128)
    assert roofline.ceilings_per_s(32) == pytest.approx({COMPUTE: 28.257, MEMORY: 75.0}, rel=1e-4)
    assert roofline.intensity(32)["intensity_flops_per_byte"] == pytest.approx(546.875)
    # Batch 4: memory 4,800e9 * 4 / (16e9 * 128) = 9.375 requests/s, below compute: memory binds.
    assert roofline.binding(4) == (MEMORY, pytest.approx(9.375))


def test_without_a_figure_there_is_no_intensity_and_only_the_ceiling_the_figures_allow():
    no_flops = Roofline(None, 1e8, peak_tflops=100, memory_bandwidth_gbps=2000)
    assert no_flops.intensity(1) is None
    assert no_flops.binding(1) == (MEMORY, pytest.approx(20_000))
    assert Roofline(None, None, peak_tflops=None, memory_bandwidth_gbps=None).binding(8) is None


positive = st.floats(min_value=1e-3, max_value=1e15, allow_nan=False, allow_infinity=False)


@given(flops=positive, weight_bytes=positive, peak=positive, bandwidth=positive,
       passes=st.integers(1, 4096), batch=st.integers(1, 4096))  # fmt: skip
def test_the_lower_ceiling_and_intensity_against_the_ridge_name_the_same_bound(
    flops, weight_bytes, peak, bandwidth, passes, batch
):
    roofline = Roofline(flops, weight_bytes, peak_tflops=peak, memory_bandwidth_gbps=bandwidth,
                        passes_per_inference=passes)  # fmt: skip
    found = roofline.intensity(batch)
    if found["intensity_flops_per_byte"] == pytest.approx(found["ridge_flops_per_byte"], rel=1e-9):
        return  # at the ridge both ceilings are equal, up to rounding
    below_ridge = found["intensity_flops_per_byte"] < found["ridge_flops_per_byte"]
    assert found["bound"] == (MEMORY if below_ridge else COMPUTE)


def test_the_latency_split_reads_the_same_rule():
    memory = MemoryModel("Alpha", 16_000_000_000, 4800.0, passes_per_batch=128, flops_per_inference=35 * 10**12,
                         peak_tflops=989.0)  # fmt: skip
    assert memory.roofline(32) == Roofline(35e12, 16e9, 989.0, 4800.0, 128).intensity(32)


def test_a_points_output_tokens_per_request_are_its_llm_blocks_or_none():
    from harness.roofline import output_tokens_per_request

    assert output_tokens_per_request({"llm": {"output_tokens": 128, "ttft_ms": {}}}) == 128
    assert output_tokens_per_request({"llm": {"output_tokens": 0}}) is None  # states none
    assert output_tokens_per_request({"batch_size": 8}) is None and output_tokens_per_request(None) is None
