"""A result folder measured with MLCommons' endpoints harness (result_summary.json instead of LoadGen's logs) is
imported like a LoadGen one; one whose result_summary.json is unreadable is listed with its reason.

The fixture tree (tests/fixtures/mlperf_endpoints, see its README) writes result_summary.json in the harness's layout:
the Report struct of mlcommons/endpoints src/inference_endpoint/metrics/report.py (@ 03cd909), serialized by
Report.to_json and written by src/inference_endpoint/commands/benchmark/execute.py (finalize_benchmark)."""

from io import StringIO
from pathlib import Path

import pytest
from django.core.management import call_command

from results.mlperf.endpoints_summary import EndpointsSummaryError, read_endpoints_summary
from results.mlperf.tree import read_tree
from results.models import BenchmarkRun, PublishedResult

TREE = Path(__file__).resolve().parent.parent / "fixtures" / "mlperf_endpoints" / "inference_results_v6.1"
RUN = TREE / "closed/Acme/results/acme_h100x8/llama2-70b-99/Offline/performance/run_1/result_summary.json"


def _import() -> str:
    out = StringIO()
    call_command("import_mlperf", str(TREE), "--published", "v6.1=2026-09-01", stdout=out)
    return out.getvalue()


@pytest.mark.django_db
def test_an_endpoints_run_is_stored_once_with_its_tokens_per_second_and_ttft_tpot_p99():
    call_command("load_catalog", stdout=StringIO())
    output = _import()
    assert "1 imported, 0 already imported, 1 skipped" in output
    # The Server folder's result_summary.json is empty: listed with the reason, not dropped.
    assert f"skipped    1 x unreadable {RUN.name}:" in output
    assert "llama2-70b-99/Server/performance/run_1/result_summary.json" in output

    result = PublishedResult.objects.select_related("run").get()
    # tps 12288.5 = 7,373,100 output tokens / 600 s; Offline's published figure is LoadGen's tokens/s key.
    assert (result.metric, result.value, result.unit) == ("result_tokens_per_second", "12288.5", "tokens/s")
    assert result.source_path.endswith("Offline/performance/run_1/result_summary.json")
    point = result.run.points.get()
    assert point.output_tokens_per_s == pytest.approx(1536.0625)  # 12288.5 tokens/s / 8 accelerators
    assert point.ttft_p99_ms == pytest.approx(812.345678)  # ttft percentiles "99": 812,345,678 ns / 1e6
    assert point.tpot_p99_ms == pytest.approx(42.5)  # tpot percentiles "99": 42,500,000 ns / 1e6
    assert point.latency_p99_ms == pytest.approx(14000.0)  # latency percentiles "99": 14,000,000,000 ns / 1e6

    assert "0 imported, 1 already imported, 1 skipped" in _import()  # stored once
    assert BenchmarkRun.objects.filter(origin="external").count() == 1


def test_the_reader_states_that_validity_is_not_stated_and_refuses_an_incomplete_run(tmp_path):
    values = read_endpoints_summary(RUN, scenario="Offline")
    assert values["result_validity"].startswith("not stated")
    # qps 40.96 = 24,576 samples / 600 s, under LoadGen's Offline samples/s key.
    assert values["result_samples_per_second"] == "40.96"
    assert values["endpoints_load_pattern"] == "max_throughput"

    other = tmp_path / "result_summary.json"
    # An online run (poisson) in a Server folder: Server's keys are LoadGen's 'completed' ones.
    other.write_text(RUN.read_text().replace('"max_throughput"', '"poisson"'))
    assert read_endpoints_summary(other, scenario="Server")["result_completed_tokens_per_second"] == "12288.5"
    with pytest.raises(EndpointsSummaryError, match="the Offline folder holds a run of load pattern 'poisson'"):
        read_endpoints_summary(other, scenario="Offline")
    with pytest.raises(EndpointsSummaryError, match="a SingleStream figure is not read"):
        read_endpoints_summary(RUN, scenario="SingleStream")
    interrupted = other
    interrupted.write_text(RUN.read_text().replace('"state": "complete"', '"state": "interrupted"'))
    with pytest.raises(EndpointsSummaryError, match="did not complete .*'interrupted'"):
        read_endpoints_summary(interrupted, scenario="Offline")
    interrupted.write_text("{}")
    with pytest.raises(EndpointsSummaryError, match="holds no report"):
        read_endpoints_summary(interrupted, scenario="Offline")


def test_a_folder_with_neither_loadgen_logs_nor_result_summary_names_both(tmp_path):
    run = tmp_path / "inference_results_v6.1/closed/Acme/results/s/llama2-70b-99/Offline/performance/run_1"
    run.mkdir(parents=True)
    (run / "report.txt").write_text("a human-readable report only")
    (record,) = read_tree(tmp_path / "inference_results_v6.1", round_name="v6.1")
    assert record.problem == "no mlperf_log_detail.txt, mlperf_log_summary.txt or result_summary.json"
