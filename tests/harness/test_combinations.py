"""Every workload x scenario x backend x precision either runs on tiny or is skipped with a reason."""

import json

import pytest

from agents.harness.backends import BACKENDS, PRECISIONS
from agents.harness.result import validate_result
from agents.harness.runner import Skip, SuiteItem, run_item
from agents.harness.scenarios import SCENARIOS
from agents.harness.workloads import WORKLOADS

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
        assert (tmp_path / "loadgen").rglob("mlperf_log_summary.txt")
        assert "MLPerf Results Summary" in point["loadgen"]["summary_log"]
        if model_class == "llm-decoder":
            assert point["throughput_unit"] == "output_tokens" and (
                scenario == "offline" or point["llm"]["ttft_ms"]["p50"] > 0
            )
    if precision == "fp32" and backend == "eager":
        assert result["accuracy"] is None
    else:
        assert result["accuracy"]["passed"], result["accuracy"]


def test_it_skips_gpu_only_combinations_with_the_reason():
    for backend in ("cudagraphs",):
        result = run_item(SuiteItem("tabular", "tiny", "offline", backend, "fp32", "cpu", FAST), "/nonexistent")
        assert isinstance(result, Skip) and result.reason == "CUDA not available"
