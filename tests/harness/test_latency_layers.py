"""Where the p99 goes: harness.latency_layers splits a point's p99 into compute, memory, batching/queue and
transport so that the parts add up to the p99, each part naming its source. Worked examples by hand, then real
runs of the harness (the parts add up to LoadGen's measured p99)."""

import pytest

from harness.latency_layers import COMPUTE, MEMORY, QUEUE, TRANSPORT, MemoryModel, split_p99
from harness.result import validate_result
from harness.suite import SuiteItem, run_item

from .conftest_helpers import FAST

# The parts are the p99 split, not estimated beside it: they add up to it to float rounding. Claimed: within
# 1e-9 of the p99, relative (a sum of ten doubles is off by a few ulps, ~1e-15).
SUM_TOLERANCE = 1e-9

PROFILE = {
    "tool": "torch.profiler", "batch_size": 4, "device": "cpu", "time_kind": "self_cpu", "total_self_ms": 1.0,
    "wall_ms": 1.2, "operators": [
        {"name": "aten::addmm", "self_ms": 0.6, "share": 0.6, "calls": 3},
        {"name": "aten::relu", "self_ms": 0.25, "share": 0.25, "calls": 2},
        {"name": "aten::copy_", "self_ms": 0.1, "share": 0.1, "calls": 3},
        {"name": "aten::t", "self_ms": 0.05, "share": 0.05, "calls": 3},
    ],
}  # fmt: skip


def server_point(p99_ms: float, request: dict | None) -> dict:
    return {"latency_ms": {"p99": p99_ms, "mean": p99_ms / 2}, "p99_request_ms": request}


def parts_ms(split) -> dict[str, float]:
    return {part.name: part.ms for part in split.parts}


def test_it_splits_the_p99_request_and_adds_the_remainder_to_loadgens_p99():
    # The SUT's p99 request: 10 ms end to end = queue 6 + formation 0.4 + compute 3 (+ completion 0.6, the rest).
    # LoadGen's p99 is 10.8 ms: 0.8 ms more (its issue and completion path).
    # Memory floor: 2.4e9 weight bytes x 1 pass / 2,000 GB/s = 1.2 ms of the 3 ms compute; the 1.8 ms above it
    # shared by the profile: addmm 60% = 1.08, relu 25% = 0.45, copy_ 10% = 0.18, the rest (aten::t) 5% = 0.09.
    # Sum: 6 + 1.2 + 1.08 + 0.8 + 0.6 + 0.45 + 0.4 + 0.18 + 0.09 = 10.8 ms.
    request = {"end_to_end": 10.0, "queue_wait": 6.0, "batch_formation": 0.4, "h2d": None, "compute": 3.0,
               "d2h": None, "batch_size": 4}  # fmt: skip
    memory = MemoryModel("Alpha", 2_400_000_000, 2000.0, 1, flops_per_inference=1_000_000_000, peak_tflops=100)
    split = split_p99(server_point(10.8, request), scenario="server", memory=memory, profile=PROFILE)

    assert [p.name for p in split.parts] == [
        "queue wait", "memory: weights read at catalog bandwidth", "compute: aten::addmm",
        "LoadGen issue and completion path", "completion to LoadGen", "compute: aten::relu", "batch formation",
        "compute: aten::copy_", "compute: other operators",
    ]  # fmt: skip
    assert [p.ms for p in split.parts] == pytest.approx([6.0, 1.2, 1.08, 0.8, 0.6, 0.45, 0.4, 0.18, 0.09])
    assert split.sum_ms == pytest.approx(10.8, rel=SUM_TOLERANCE)
    # By layer: queue 6 + 0.4; memory 1.2; compute 1.8; transport 0.8 + 0.6.
    assert split.by_layer_ms() == pytest.approx({QUEUE: 6.4, MEMORY: 1.2, COMPUTE: 1.8, TRANSPORT: 1.4})
    measured = {p.name for p in split.parts if p.measured}
    assert measured == {"queue wait", "batch formation", "completion to LoadGen"}
    assert split.method.startswith("measured: the split of the SUT's request at its p99")
    # The Pareto line: 6 / 10.8 = 55.6 %, then (6 + 1.2) / 10.8 = 66.7 %, ... up to 100 %.
    pareto = split.pareto()
    assert pareto[0]["cumulative_share"] == pytest.approx(6 / 10.8)
    assert pareto[1]["cumulative_share"] == pytest.approx(7.2 / 10.8)
    assert pareto[-1]["cumulative_share"] == pytest.approx(1.0)
    # Roofline: 1e9 FLOPs x batch 4 / 2.4e9 bytes = 1.67 FLOPs/byte, under the ridge 100e12 / 2,000e9 = 50.
    assert split.roofline["intensity_flops_per_byte"] == pytest.approx(4e9 / 2.4e9)
    assert split.roofline["ridge_flops_per_byte"] == pytest.approx(50.0)
    assert split.roofline["bound"] == "memory"


def test_a_p99_request_longer_than_loadgens_p99_is_scaled_down_and_said_to_be_apportioned():
    # Request 12 ms = queue 8 + compute 4; LoadGen's p99 10 ms: each part x 10/12 -> 6.667 + 3.333 = 10.
    request = {"end_to_end": 12.0, "queue_wait": 8.0, "batch_formation": None, "h2d": None, "compute": 4.0,
               "d2h": None, "batch_size": 2}  # fmt: skip
    split = split_p99(server_point(10.0, request), scenario="server")

    assert parts_ms(split) == pytest.approx({"queue wait": 20 / 3, "compute": 10 / 3})
    assert split.sum_ms == pytest.approx(10.0, rel=SUM_TOLERANCE)
    assert split.method.startswith("apportioned") and not any(p.measured for p in split.parts)
    assert "no memory layer: the run names no catalog accelerator" in split.notes


def test_without_a_p99_request_the_p99_is_split_by_the_mean_requests_shares():
    # Offline: mean latency 40 ms, p99 60 ms; per batch the SUT timed formation 2 ms and compute 8 ms on average.
    # Scale 60 / 40 = 1.5: compute 12, formation 3, waiting behind the query's other batches (40 - 10) x 1.5 = 45.
    point = {"latency_ms": {"p99": 60.0, "mean": 40.0}, "batch_formation_ms": {"mean": 2.0, "p50": 2, "p99": 3},
             "compute_ms": {"mean": 8.0, "p50": 8, "p99": 9}, "batch_size_histogram": {"8": 5}}  # fmt: skip
    memory = MemoryModel("x86-64 CPU (2 vCPU)", 4_000_000, None)
    split = split_p99(point, scenario="offline", memory=memory)

    assert parts_ms(split) == pytest.approx(
        {"waiting behind the query's other batches": 45.0, "compute": 12.0, "batch formation": 3.0}
    )
    assert split.sum_ms == pytest.approx(60.0, rel=SUM_TOLERANCE)
    assert "no memory layer: the catalog states no memory bandwidth for x86-64 CPU (2 vCPU)" in split.notes
    assert "compute not split by operator: the run carries no torch.profiler profile" in split.notes


def test_an_llm_reads_its_weights_once_per_output_token():
    # 1e9 weight bytes x 16 passes / 1,000 GB/s = 16 ms floor, capped at the 10 ms compute measured: all memory.
    memory = MemoryModel("Beta", 1_000_000_000, 1000.0, passes_per_batch=16)
    assert memory.floor_ms() == pytest.approx(16.0)
    request = {"end_to_end": 10.0, "queue_wait": None, "batch_formation": None, "h2d": None, "compute": 10.0,
               "d2h": None, "batch_size": 1}  # fmt: skip
    split = split_p99(server_point(10.0, request), scenario="single-stream", memory=memory)
    assert split.by_layer_ms() == pytest.approx({MEMORY: 10.0})


def test_an_endpoints_p99_is_split_by_the_servers_mean_stages_against_the_clients_mean():
    # Client: mean 100 ms, p99 150 ms. vLLM: queue 10, prefill 20, decode 50, its own e2e 85 ms (so 5 ms of it
    # in no stage: its input and output processing), transport and serialisation 100 - 85 = 15 ms. Scale
    # 150 / 100: decode 75, prefill 30, transport 22.5, queue 15, input and output processing 7.5; sum 150.
    server = {"source": "vllm", "queue_ms_mean": 10.0, "compute_ms_mean": 70.0, "prefill_ms_mean": 20.0,
              "decode_ms_mean": 50.0, "e2e_ms_mean": 85.0, "timed_stages": ["e2e"], "timed_ms_mean": 85.0}  # fmt: skip
    point = {"latency_ms": {"p99": 150.0, "mean": 100.0},
             "endpoint": {"e2e_ms": {"mean": 100.0, "p50": 90.0, "p99": 150.0}, "server": server}}  # fmt: skip
    split = split_p99(point, scenario="server")

    assert [(p.name, p.layer) for p in split.parts] == [
        ("server decode", COMPUTE), ("server prefill", COMPUTE), ("transport and serialisation", TRANSPORT),
        ("server queue", QUEUE), ("server: input and output processing", TRANSPORT),
    ]  # fmt: skip
    assert [p.ms for p in split.parts] == pytest.approx([75.0, 30.0, 22.5, 15.0, 7.5])
    assert split.sum_ms == pytest.approx(150.0, rel=SUM_TOLERANCE)
    assert split.method.startswith("apportioned: the client's p99")


def test_an_endpoint_without_server_metrics_is_left_unsplit_and_says_why():
    point = {"latency_ms": {"p99": 40.0}, "endpoint": {"e2e_ms": {"mean": 30.0}, "server": None}}
    split = split_p99(point, scenario="concurrency-sweep")
    assert [(p.name, p.ms) for p in split.parts] == [("end to end (not split)", 40.0)]
    assert split.notes and split.method.startswith("unsplit")


@pytest.mark.parametrize("scenario", ["server", "single-stream"])
def test_a_real_runs_parts_add_up_to_loadgens_measured_p99(tmp_path, scenario):
    result = run_item(SuiteItem("tabular", "tiny", scenario, "eager", "fp32", "cpu", FAST), tmp_path)
    validate_result(result)
    profile = result["profile"]
    # One batch profiled after the points: the operators of the tabular MLP, their shares of its self time.
    assert profile["tool"] == "torch.profiler" and profile["time_kind"] == "self_cpu"
    assert any(op["name"] == "aten::addmm" for op in profile["operators"])
    assert 0 < sum(op["share"] for op in profile["operators"]) <= 1 + 1e-9
    memory = MemoryModel("Alpha", result["workload"]["weight_bytes"], 2000.0, 1)
    for point in result["points"]:
        request = point["p99_request_ms"]
        # The p99 request is the one at the SUT's own end-to-end p99 (same nearest-rank rule).
        assert request["end_to_end"] == point["end_to_end_ms"]["p99"]
        split = split_p99(point, scenario=scenario, memory=memory, profile=profile)
        assert split.sum_ms == pytest.approx(point["latency_ms"]["p99"], rel=SUM_TOLERANCE)
        assert all(part.ms > 0 for part in split.parts)
        assert {COMPUTE, MEMORY} <= set(split.by_layer_ms())


def test_an_onnx_runtime_run_says_it_was_not_profiled(tmp_path):
    result = run_item(SuiteItem("tabular", "tiny", "single-stream", "onnxruntime", "fp32", "cpu", FAST), tmp_path)
    assert result["profile"]["not_profiled"].startswith("ONNX Runtime runs its graph outside PyTorch")
    split = split_p99(result["points"][0], scenario="single-stream", profile=result["profile"])
    assert any(note.startswith("compute not split by operator: ONNX Runtime") for note in split.notes)
    assert split.sum_ms == pytest.approx(result["points"][0]["latency_ms"]["p99"], rel=SUM_TOLERANCE)


def test_on_cuda_the_batchs_own_copies_take_no_share_of_the_compute():
    # Device time of one batch: GEMM 50 %, HtoD copy 20 %, gelu 20 %, add 10 %. The copy is the h2d layer, timed on
    # its own, so the compute is shared among the rest (80 %): GEMM 50/80 = 62.5 %, gelu 25 %, add 12.5 %.
    # Compute measured 1.6 ms, no memory model: GEMM 1.0 ms, gelu 0.4, add 0.2; nothing is left for other entries.
    profile = {"tool": "torch.profiler", "batch_size": 32, "device": "cuda", "time_kind": "self_device",
               "total_self_ms": 4.0, "wall_ms": 5.0, "operators": [
                   {"name": "nvjet_sm90_hsh_gemm", "self_ms": 2.0, "share": 0.5, "calls": 4},
                   {"name": "Memcpy HtoD (Pinned -> Device)", "self_ms": 0.8, "share": 0.2, "calls": 1},
                   {"name": "gelu_kernel", "self_ms": 0.8, "share": 0.2, "calls": 4},
                   {"name": "add_kernel", "self_ms": 0.4, "share": 0.1, "calls": 4}]}  # fmt: skip
    request = {"end_to_end": 2.0, "queue_wait": 0.0, "batch_formation": None, "h2d": 0.4, "compute": 1.6,
               "d2h": None, "batch_size": 32}  # fmt: skip
    split = split_p99(server_point(2.0, request), scenario="server", profile=profile)

    compute = {name: ms for name, ms in parts_ms(split).items() if name.startswith("compute")}
    assert compute == pytest.approx(
        {"compute: nvjet_sm90_hsh_gemm": 1.0, "compute: gelu_kernel": 0.4, "compute: add_kernel": 0.2}
    )
    assert split.sum_ms == pytest.approx(2.0, rel=SUM_TOLERANCE)
    assert any("host-device copies (20.0% of the profiled device time)" in note for note in split.notes)
