"""The GPU paths: CUDA graphs, TensorRT, fp16/bf16/fp8 on a CUDA device, NVML telemetry.

Marked ``gpu``: they run where a CUDA device is present and are skipped with the reason elsewhere
(tests/service_preflight.py). What they assert holds on any CUDA GPU; figures are only checked for
consistency (the guard's verdict against its own error and tolerance), never against a speed.
"""

import math

import pytest
import torch

from harness.backends import check_support
from harness.backends.base import FP8_MIN_CAPABILITY
from harness.backends.cudagraphs import CudaGraphsBackend
from harness.backends.eager import EagerBackend
from harness.result import validate_result
from harness.runner import Skip, SuiteItem, run_item
from harness.telemetry import TelemetrySession, nvml_status
from harness.telemetry.nvml import NvmlSampler
from harness.workloads import get_workload

from .conftest_helpers import FAST

pytestmark = pytest.mark.gpu


def _loaded(backend_class, workload, precision="fp32"):
    backend = backend_class(precision, "cuda")
    backend.load(workload.build("cpu"), tuple(t.to("cuda") for t in workload.example_inputs(2)))
    return backend


def _assert_guard_is_consistent(result: dict) -> None:
    accuracy = result["accuracy"]
    assert accuracy["reference_precision"] == "fp32" and accuracy["tolerance"] > 0
    assert math.isfinite(accuracy["max_abs_error"])
    assert accuracy["passed"] == (accuracy["max_abs_error"] <= accuracy["tolerance"]), accuracy


@pytest.mark.parametrize("model_class", ["tabular", "cv-classification", "encoder"])
def test_cuda_graphs_replay_each_batch_shape_as_eager_computes_it(model_class):
    workload = get_workload(model_class, "tiny")
    eager, graphs = _loaded(EagerBackend, workload), _loaded(CudaGraphsBackend, workload)
    for batch_size, seed in ((2, 1), (4, 2), (2, 3)):
        inputs = tuple(t.to("cuda") for t in workload.example_inputs(batch_size, seed=seed))
        # The graph's output is a static buffer that the next replay overwrites: copy it out.
        replayed = graphs.forward(*inputs).clone()
        torch.cuda.synchronize()
        torch.testing.assert_close(replayed, eager.forward(*inputs), rtol=1e-3, atol=1e-3)
    assert set(graphs._graphs) == {tuple((b, *t.shape[1:]) for t in workload.example_inputs(1)) for b in (2, 4)}


@pytest.mark.parametrize(
    ("backend", "precision"), [("cudagraphs", "fp32"), ("eager", "fp16"), ("eager", "bf16"), ("cudagraphs", "fp16")]
)
def test_it_measures_on_the_gpu_with_nvml_telemetry_and_the_accuracy_guard(tmp_path, backend, precision):
    result = run_item(SuiteItem("tabular", "tiny", "single-stream", backend, precision, "cuda", FAST), tmp_path)
    assert not isinstance(result, Skip), result
    validate_result(result)
    assert result["device"]["type"] == "cuda" and result["device"]["name"] == torch.cuda.get_device_name(0)
    assert result["points"] and all(point["throughput_per_s"] > 0 for point in result["points"])
    _assert_guard_is_consistent(result)
    nvml = result["telemetry"]["nvml"]
    assert isinstance(nvml, dict), nvml
    # One NVML window per measured point (calibration runs may add their own).
    assert nvml["points"] >= len(result["points"]) and nvml["energy_j"] >= 0 and nvml["power_w_max"] > 0


def test_the_operator_profile_reads_device_time_on_the_gpu(tmp_path):
    result = run_item(SuiteItem("tabular", "tiny", "offline", "eager", "fp16", "cuda", FAST), tmp_path)
    assert not isinstance(result, Skip), result
    block = result["profile"]
    assert block["device"] == "cuda" and block.get("not_profiled") is None, block
    assert block["time_kind"] == "self_device" and block["total_self_ms"] > 0
    assert all(op["self_ms"] > 0 and 0 < op["share"] <= 1 for op in block["operators"])
    assert sum(op["share"] for op in block["operators"]) <= 1 + 1e-9
    assert not any(op["name"].startswith("aten::") for op in block["operators"]), "operators are CPU-side events"


def test_one_matrix_product_is_one_kernel_holding_all_the_device_time_counted_once():
    # On an H100, reading the operators' self device time gave aten::mm 50 % and kineto's "Activity Buffer
    # Request" 50 %: the product's one kernel counted twice. The device's own events count it once.
    from types import SimpleNamespace

    from harness.operator_profile import profile_one_batch

    a, b = torch.randn(4096, 4096, device="cuda"), torch.randn(4096, 4096, device="cuda")
    engine = SimpleNamespace(
        backend=SimpleNamespace(name="eager"), device="cuda", samples=[0],
        form_batch=lambda indices: (a, b), execute=lambda batch: torch.mm(*batch),
    )  # fmt: skip
    torch.mm(a, b)
    torch.cuda.synchronize()
    block = profile_one_batch(engine, batch_size=1)
    assert block["time_kind"] == "self_device", block
    (kernel,) = block["operators"]
    assert kernel["share"] == 1.0 and kernel["calls"] == 1 and block["total_self_ms"] == kernel["self_ms"] > 0
    # 2 x 4096^3 = 1.37e11 FLOPs: about 2 ms at an H100's 67 TFLOP/s of fp32; a sanity range, not a speed.
    assert 0.001 < kernel["self_ms"] < 1_000


def test_samples_and_batches_sit_in_pinned_host_memory_on_cuda():
    from harness.scenarios import Engine

    workload = get_workload("tabular", "tiny")
    engine = Engine(workload, _loaded(EagerBackend, workload), sample_count=4)
    single, batch = engine.form_batch([2]), engine.form_batch([0, 1, 2, 3])
    assert all(t.is_pinned() for t in single) and all(t.is_pinned() for t in batch)
    expected = [torch.cat([engine.samples[i][c] for i in range(4)]) for c in range(len(batch))]
    assert all(torch.equal(got, want) for got, want in zip(batch, expected, strict=True))
    torch.testing.assert_close(engine.execute(batch).output, engine.backend.forward(*(t.cuda() for t in batch)).cpu())


def test_fp8_runs_through_torchao_on_a_device_that_supports_it(tmp_path):
    capability = torch.cuda.get_device_capability()
    ok, reason = check_support("eager", "fp8", "cuda", "tabular")
    if capability < FP8_MIN_CAPABILITY:
        assert not ok and "compute capability" in reason
        result = run_item(SuiteItem("tabular", "tiny", "offline", "eager", "fp8", "cuda", FAST), tmp_path)
        assert isinstance(result, Skip) and result.reason == reason
        pytest.skip(f"fp8 needs compute capability >= 8.9; this GPU is {capability[0]}.{capability[1]}")
    assert ok, reason  # requirements-gpu.txt installs torchao
    workload = get_workload("tabular", "tiny")
    backend = _loaded(EagerBackend, workload, "fp8")
    # The tiny tabular MLP's Linear layers 256x1024 and 1024x512 take fp8 (multiples of 16); 512x1 stays bf16.
    fp8_weights = [m for m in backend.module.modules() if "Float8" in type(getattr(m, "weight", None)).__name__]
    assert len(fp8_weights) == 2
    result = run_item(SuiteItem("tabular", "tiny", "offline", "eager", "fp8", "cuda", FAST), tmp_path)
    assert not isinstance(result, Skip), result
    validate_result(result)
    assert result["precision"] == "fp8" and all(point["throughput_per_s"] > 0 for point in result["points"])
    _assert_guard_is_consistent(result)


def _tensorrt_or_skip():
    ok, reason = check_support("tensorrt", "fp32", "cuda", "tabular")
    if not ok:
        pytest.skip(f"TensorRT backend unavailable here: {reason}")
    from harness.backends import tensorrt_backend

    return tensorrt_backend


def test_a_second_tensorrt_build_of_the_same_model_and_shapes_is_a_cache_hit(tmp_path, monkeypatch):
    trt_backend = _tensorrt_or_skip()
    monkeypatch.setenv(trt_backend.CACHE_DIR_ENV, str(tmp_path))
    workload = get_workload("tabular", "tiny")
    first = _loaded(trt_backend.TensorRTBackend, workload)
    second = _loaded(trt_backend.TensorRTBackend, workload)
    assert (first.cache_hit, second.cache_hit) == (False, True) and first.cache_key == second.cache_key
    assert (tmp_path / f"{first.cache_key}.engine").is_file() and list(tmp_path.glob("timing-*.cache"))
    other_precision = _loaded(trt_backend.TensorRTBackend, workload, "fp16")
    assert other_precision.cache_hit is False and other_precision.cache_key != first.cache_key
    inputs = tuple(t.to("cuda") for t in workload.example_inputs(8, seed=4))
    torch.testing.assert_close(second.forward(*inputs), first.forward(*inputs))


def test_a_batch_outside_the_tensorrt_profile_fails_with_the_reason(tmp_path, monkeypatch):
    trt_backend = _tensorrt_or_skip()
    from harness.backends.base import OutsideProfile

    monkeypatch.setenv(trt_backend.CACHE_DIR_ENV, str(tmp_path / "cache"))
    assert trt_backend.MAX_BATCH >= 128  # the publishable suite's largest Offline batch
    too_big = trt_backend.MAX_BATCH + 1
    item = SuiteItem(
        "tabular", "tiny", "offline", "tensorrt", "fp32", "cuda", FAST.with_(offline_batch_sizes=(1, too_big))
    )
    with pytest.raises(OutsideProfile, match=rf"batch sizes \[{too_big}\] are outside the tensorrt engine's "):
        run_item(item, tmp_path)
    engine = _loaded(trt_backend.TensorRTBackend, get_workload("tabular", "tiny"))
    with pytest.raises(OutsideProfile, match=rf"batch {too_big} is outside the TensorRT engine's optimisation profile"):
        engine.forward(*(t.to("cuda") for t in get_workload("tabular", "tiny").example_inputs(too_big)))


@pytest.mark.parametrize("precision", ["fp32", "fp16"])
def test_tensorrt_builds_an_engine_that_computes_what_eager_does(precision):
    ok, reason = check_support("tensorrt", precision, "cuda", "tabular")
    if not ok:
        pytest.skip(f"TensorRT backend unavailable here: {reason}")
    from harness.backends.tensorrt_backend import TensorRTBackend

    workload = get_workload("tabular", "tiny")
    eager, engine = _loaded(EagerBackend, workload), _loaded(TensorRTBackend, workload, precision)
    inputs = tuple(t.to("cuda") for t in workload.example_inputs(8, seed=4))
    expected = eager.forward(*inputs)
    tolerance = 5e-3 if precision == "fp32" else 2e-2  # TensorRT builds fp32 engines with TF32 by default
    atol = tolerance * max(1.0, float(expected.abs().max()))
    torch.testing.assert_close(engine.forward(*inputs), expected, rtol=tolerance, atol=atol)


def test_nvml_samples_the_gpu_while_a_point_is_measured():
    pynvml, reason = nvml_status()
    assert pynvml is not None, reason
    sampler = NvmlSampler(pynvml, index=0, interval_s=0.01)
    sampler.start()
    a = torch.randn(2048, 2048, device="cuda")
    for _ in range(20):
        a = a @ a.T / 2048
    torch.cuda.synchronize()
    summary = sampler.stop()
    assert summary["samples"] >= 1 and summary["duration_s"] > 0
    assert summary["power_w_max"] > 0 and summary["memory_used_bytes_max"] > 0
    assert summary["energy_source"] in ("energy_counter", "power_samples") and summary["energy_j"] >= 0

    session = TelemetrySession("cuda")
    session.begin_point()
    energy = session.end_point()
    assert energy.power_w_mean is not None and energy.duration_s > 0
    assert isinstance(session.summary()["nvml"], dict)
