from io import StringIO

import pytest
from django.core.management import CommandError, call_command

from results.models import BenchmarkRun

pytestmark = pytest.mark.django_db


def test_it_runs_a_narrowed_suite_ingests_it_and_prints_a_summary(catalog, tmp_path, monkeypatch):
    from harness.scenarios import settings as harness_settings

    short = harness_settings.preset("quick").with_(
        min_duration_ms=200, min_query_count=16, warmup_queries=2, offline_batch_sizes=(1, 4), rounds=2
    )
    monkeypatch.setitem(harness_settings.PRESETS, "quick", short)
    out = StringIO()
    call_command(
        "bench",
        "--workload",
        "tabular",
        "--backend",
        "eager",
        "--precision",
        "fp32",
        "--out",
        str(tmp_path),
        stdout=out,
    )
    text = out.getvalue()
    assert "3 runs stored, 0 skipped, 0 quarantined" in text
    assert {run.scenario for run in BenchmarkRun.objects.all()} == {"single-stream", "offline", "server"}
    assert "100.0%" in text and "tabular-tiny" in text
    assert list(tmp_path.rglob("mlperf_log_summary.txt"))

    again = StringIO()
    call_command("bench", "--once", stdout=again)
    assert "already has quick-suite results; skipping" in again.getvalue()
    assert BenchmarkRun.objects.count() == 3


def test_it_names_an_unknown_workload():
    with pytest.raises(CommandError, match="unknown workloads"):
        call_command("bench", "--workload", "speech", stdout=StringIO())


def test_it_refuses_a_reference_the_host_cannot_hold_with_the_memory_it_needs(catalog, tmp_path, monkeypatch):
    from harness.workloads import memory

    monkeypatch.setattr(memory, "host_available_bytes", lambda: 16 * 10**9)
    out = StringIO()
    call_command(
        "bench", "--size", "reference", "--workload", "recommendation", "--backend", "eager", "--precision", "fp32",
        "--out", str(tmp_path), stdout=out,
    )  # fmt: skip
    text = out.getvalue()
    assert "0 runs stored, 3 skipped, 0 quarantined" in text
    assert "skipped dlrm-v2-99 single-stream eager/fp32: dlrm-v2-99 needs 209.2 GB of host memory" in text
    assert BenchmarkRun.objects.count() == 0


def test_it_narrows_to_a_scenario_and_overrides_the_rounds(catalog, tmp_path, monkeypatch):
    from harness.scenarios import settings as harness_settings

    short = harness_settings.preset("quick").with_(min_duration_ms=200, warmup_queries=2, offline_batch_sizes=(4,))
    monkeypatch.setitem(harness_settings.PRESETS, "quick", short)
    call_command(
        "bench", "--workload", "tabular-tiny", "--scenario", "offline", "--rounds", "1", "--min-query-count", "16",
        "--backend", "eager", "--precision", "fp32", "--out", str(tmp_path), stdout=StringIO(),
    )  # fmt: skip
    run = BenchmarkRun.objects.get()
    assert (run.workload_name, run.scenario) == ("tabular-tiny", "offline")
    assert (run.settings["rounds"], run.settings["min_query_count"]) == (1, 16)


def test_the_readmes_encoder_on_onnx_runtime_runs(catalog, tmp_path, monkeypatch):
    # README: bench --workload encoder --backend onnxruntime --precision fp32 (the quick suite pairs ONNX Runtime
    # with tabular only; a backend named outright is measured on the named workload).
    from harness.scenarios import settings as harness_settings
    from harness.suite import plan_suite

    planned = plan_suite("quick", workloads=["encoder"], backends=["onnxruntime"], precisions=["fp32"], device="cpu")
    assert {(i.model_class, i.backend, i.precision) for i in planned} == {("encoder", "onnxruntime", "fp32")}
    assert {i.scenario for i in planned} == {"single-stream", "offline", "server"}
    short = harness_settings.preset("quick").with_(min_duration_ms=200, warmup_queries=2, rounds=1, extra_rounds=0)
    monkeypatch.setitem(harness_settings.PRESETS, "quick", short)
    out = StringIO()
    call_command(
        "bench", "--workload", "encoder", "--backend", "onnxruntime", "--precision", "fp32",
        "--scenario", "single-stream", "--min-query-count", "16", "--out", str(tmp_path), stdout=out,
    )  # fmt: skip
    run = BenchmarkRun.objects.get()
    assert (run.model_class, run.backend, run.precision) == ("encoder", "onnxruntime", "fp32")
    assert "1 runs stored, 0 skipped, 0 quarantined, 0 failed" in out.getvalue()
