"""Every workload x scenario x backend x precision either runs on tiny or is skipped with a reason."""

import json
import math
from pathlib import Path

import pytest

from harness.backends import BACKENDS, PRECISIONS
from harness.result import validate_result
from harness.runner import Skip, SuiteItem, run_item
from harness.scenarios import SCENARIOS
from harness.workloads import WORKLOADS

from .conftest_helpers import FAST

# torch.compile takes ~30 s per model on 2 cores: covered by test_compile.py on the tabular model.
MATRIX = [(w, s, b, p) for w in WORKLOADS for s in SCENARIOS for b in BACKENDS for p in PRECISIONS if b != "compile"]


@pytest.mark.parametrize(("model_class", "scenario", "backend", "precision"), MATRIX)
def test_it_runs_or_skips_with_a_reason(tmp_path, model_class, scenario, backend, precision):
    result = run_item(SuiteItem(model_class, "tiny", scenario, backend, precision, "cpu", FAST), tmp_path)
    if isinstance(result, Skip):
        assert result.reason and result.backend == backend and result.precision == precision
        return
    validate_result(result)
    assert result["scenario"] == scenario and result["points"]
    assert json.loads((tmp_path / f"{model_class}-tiny_{scenario}_{backend}_{precision}_cpu.json").read_text())
    for point in result["points"]:
        assert point["throughput_per_s"] > 0
        assert (Path(point["loadgen"]["log_dir"]) / "mlperf_log_summary.txt").is_file()
        assert "MLPerf Results Summary" in point["loadgen"]["summary_log"]
        if model_class == "llm-decoder":
            assert point["throughput_unit"] == "output_tokens" and (
                scenario == "offline" or point["llm"]["ttft_ms"]["p50"] > 0
            )
    if precision == "fp32" and backend == "eager":
        assert result["accuracy"] is None
    else:
        # Whether the error is within tolerance is a measurement of this CPU (int8 kernels differ by ISA):
        # what holds everywhere is that the guard ran and that its verdict follows from its own figures.
        accuracy = result["accuracy"]
        assert accuracy["reference_precision"] == "fp32"
        assert math.isfinite(accuracy["max_abs_error"]) and accuracy["tolerance"] > 0
        assert accuracy["passed"] == (accuracy["max_abs_error"] <= accuracy["tolerance"]), accuracy


def test_it_skips_gpu_only_combinations_with_the_reason():
    for backend in ("cudagraphs",):
        result = run_item(SuiteItem("tabular", "tiny", "offline", backend, "fp32", "cpu", FAST), "/nonexistent")
        assert isinstance(result, Skip) and result.reason == "CUDA not available"
