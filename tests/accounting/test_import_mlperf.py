"""import_mlperf on the MLCommons v4.1 sample tree, checked against numbers read from the files."""

import shutil
from io import StringIO
from pathlib import Path

import pytest
from django.core.management import call_command

from agents.models import BenchmarkRun

pytestmark = pytest.mark.django_db

SAMPLE = Path("/work/shared/data/mlperf_sample")


def _import(path=SAMPLE) -> str:
    out = StringIO()
    call_command("import_mlperf", str(path), stdout=out)
    return out.getvalue()


def _point(system: str, benchmark: str, scenario: str):
    run = BenchmarkRun.objects.get(external_source=f"MLPerf Inference v4.1, Dell, {system}", workload_name=benchmark,
                                   scenario=scenario)  # fmt: skip
    return run, run.points.get()


@pytest.mark.skipif(not SAMPLE.is_dir(), reason="the MLPerf sample tree is not present")
def test_it_imports_every_valid_result_per_accelerator(catalog):
    output = _import()
    assert "10 imported, 0 already imported, 4 skipped" in output
    assert BenchmarkRun.objects.filter(origin="external").count() == 10

    # XE9680, 8x H100-SXM-80GB. resnet50 Offline "Samples per second: 709849" -> 709849 / 8 = 88731.125
    run, point = _point("XE9680_H100_SXM_80GBx8_TRT", "resnet50", "offline")
    assert (run.accelerator.model, run.accelerator_count, run.backend) == ("H100 SXM5 80GB", 8, "tensorrt")
    assert point.throughput_per_s == pytest.approx(88731.125)
    # resnet50 Server "Completed samples per second: 584206.81" -> / 8 = 73025.85125; p99 10393511 ns
    run, point = _point("XE9680_H100_SXM_80GBx8_TRT", "resnet50", "server")
    assert point.throughput_per_s == pytest.approx(73025.85125)
    assert point.latency_p99_ms == pytest.approx(10.393511)
    assert point.details["latency_bound_ns"] == 15000000
    # llama2-70b-99 Server: 74.42 samples/s and 21589.17 tokens/s over 8 GPUs; TTFT p99 473977293 ns
    run, point = _point("XE9680_H100_SXM_80GBx8_TRT", "llama2-70b-99", "server")
    assert run.model_class == "llm-decoder"
    assert point.throughput_per_s == pytest.approx(9.3025)
    assert point.output_tokens_per_s == pytest.approx(2698.64625)
    assert point.ttft_p99_ms == pytest.approx(473.977293)
    # R760xa, 4x L40S. bert-99 Server "Completed samples per second: 13853.70" -> / 4 = 3463.425; p99 43069762 ns
    run, point = _point("R760xa_L40Sx4_TRT", "bert-99", "server")
    assert (run.accelerator.model, run.model_class) == ("L40S", "encoder")
    assert point.throughput_per_s == pytest.approx(3463.425)
    assert point.latency_p99_ms == pytest.approx(43.069762)
    assert run.payload["verdict"] == "VALID" and run.loadgen_valid


@pytest.mark.skipif(not SAMPLE.is_dir(), reason="the MLPerf sample tree is not present")
def test_it_reports_what_it_skipped_and_adds_nothing_on_reimport(catalog):
    _import()
    output = _import()
    assert "0 imported, 10 already imported, 4 skipped" in output
    assert output.count("CPU-only system") == 4
    assert "INTEL(R) XEON(R) PLATINUM 8592+" in output
    assert BenchmarkRun.objects.count() == 10


@pytest.mark.skipif(not SAMPLE.is_dir(), reason="the MLPerf sample tree is not present")
def test_it_skips_invalid_results_and_unknown_accelerators(catalog, tmp_path):
    tree = tmp_path / "tree"
    shutil.copytree(SAMPLE, tree)
    summary = tree / "closed/Dell/results/R760xa_L40Sx4_TRT/resnet50/Offline/performance/run_1/mlperf_log_summary.txt"
    summary.write_text(summary.read_text().replace("Result is : VALID", "Result is : INVALID"))
    system = tree / "closed/Dell/systems/XE9680_H100_SXM_80GBx8_TRT.json"
    system.write_text(system.read_text().replace("NVIDIA H100-SXM-80GB", "Acme Quantum-1"))

    output = _import(tree)
    assert "result is INVALID" in output
    assert output.count("unknown accelerator 'Acme Quantum-1'") == 6
    assert "3 imported" in output


@pytest.mark.skipif(not SAMPLE.is_dir(), reason="the MLPerf sample tree is not present")
def test_it_keeps_external_results_out_of_rankings_unless_asked(catalog):
    from accounting.selectors import ranking

    _import()
    measured_only = ranking(model_class="cv-classification", sla_p99_ms=15, price_kind="cloud_on_demand")
    assert measured_only.rows == []
    both = ranking(model_class="cv-classification", sla_p99_ms=15, price_kind="cloud_on_demand", include_external=True)
    assert {row.accelerator.model for row in both.rows} == {"H100 SXM5 80GB", "L40S"}
    assert {row.origin for row in both.rows} == {"external"}
    # The server points meet 15 ms (10.39 ms, 4.18 ms); offline ones (minutes) never do.
    assert {row.run.scenario for row in both.rows} == {"server"}
