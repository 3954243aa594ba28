"""import_mlperf on fixture trees (tests/fixtures/mlperf): every result stored with its published figure.

The figure each stored result should carry is read here independently of the importer: every log line
is parsed as JSON, and the key is looked up in MLCommons' submission checker's own tables for v4.1 and
v5.1 (RESULT_FIELD_NEW and RESULT_FIELD_BENCHMARK_OVERWRITE, copied below), not in the importer's rule.
"""

import csv
import json
import shutil
from decimal import Decimal
from io import StringIO
from pathlib import Path

import pytest
from django.core.management import CommandError, call_command

from results.models import BenchmarkRun, HeldPublishedResult, PublishedResult

pytestmark = pytest.mark.django_db

FIXTURES = Path(__file__).resolve().parent.parent / "fixtures" / "mlperf"
V41, V51, SAMPLE = FIXTURES / "inference_results_v4.1", FIXTURES / "inference_results_v5.1", FIXTURES / "sample"

# mlcommons/inference tools/submission/submission_checker (v4.1 and v5.1 entries).
CHECKER_DEFAULT = {
    "Offline": "result_samples_per_second",
    "SingleStream": "early_stopping_latency_ss",
    "MultiStream": "early_stopping_latency_ms",
    "Server": "result_completed_samples_per_sec",
}
_TOKENS = {"Offline": "result_tokens_per_second", "Server": "result_completed_tokens_per_second"}
CHECKER_OVERWRITE = {
    "v4.1": {
        "llama2-70b-99": _TOKENS, "llama2-70b-99.9": _TOKENS, "mixtral-8x7b": _TOKENS,
        "gptj-99": {"Offline": "result_inferred_tokens_per_second",
                    "Server": "result_inferred_completed_tokens_per_second"},
    },
    "v5.1": {
        "llama2-70b-99": _TOKENS, "llama2-70b-99.9": _TOKENS, "llama3.1-8b": _TOKENS, "mixtral-8x7b": _TOKENS,
        "llama3.1-405b": _TOKENS, "deepseek-r1": _TOKENS, "whisper": {"Offline": "result_tokens_per_second"},
        "llama3.1-8b-edge": {"Offline": "result_tokens_per_second",
                             "SingleStream": "result_90.00_percentile_latency_ns"},
    },
}  # fmt: skip
SUMMARY_LABEL = {"result_samples_per_second": "Samples per second", "result_tokens_per_second": "Tokens per second",
                 "result_completed_samples_per_sec": "Completed samples per second",
                 "result_completed_tokens_per_second": "Completed tokens per second"}  # fmt: skip


def _run(command, *args) -> str:
    out = StringIO()
    call_command(command, *args, stdout=out)
    return out.getvalue()


@pytest.fixture
def full_catalog(db):
    _run("load_catalog")


def _import(*args) -> str:
    return _run("import_mlperf", str(V41), str(V51), str(SAMPLE), "--round", "v4.1", *args)


def _detail_log(path: Path) -> dict:
    entries = (json.loads(line[9:]) for line in path.open() if line.startswith(":::MLLOG"))
    return {entry["key"]: entry["value"] for entry in entries}


def _root(result: PublishedResult) -> Path:
    for root in (V41, V51, SAMPLE):
        if (root / result.source_path).is_file():
            return root
    raise AssertionError(f"{result.source_path} is in no fixture tree")


def _checker_figure(result: PublishedResult) -> tuple[str, float]:
    path = _root(result) / result.source_path
    if path.name == "mlperf_log_summary.txt":  # no detail log: the summary's line for the same key
        pairs = (line.split(":", 1) for line in path.read_text().splitlines() if ":" in line)
        lines = {label.strip(): text for label, text in pairs}
        scenario = lines["Scenario"].strip()
        key = CHECKER_OVERWRITE.get(result.round, {}).get(result.benchmark, {}).get(scenario, CHECKER_DEFAULT[scenario])
        return key, float(lines[SUMMARY_LABEL[key]].strip())
    log = _detail_log(path)
    ran = log["effective_scenario"]
    model = result.benchmark.replace("llama3_1", "llama3.1")
    key = CHECKER_OVERWRITE.get(result.round, {}).get(model, {}).get(ran, CHECKER_DEFAULT[ran])
    if result.scenario.lower() == "multistream" and ran == "SingleStream":  # checker: inferred from SingleStream
        return "early_stopping_latency_ms", log["early_stopping_latency_ms"] * 8
    return key, float(log[key])


def test_it_stores_every_fixture_result_with_the_figure_the_submission_checker_reads(full_catalog):
    output = _import()
    run_dirs = {p.relative_to(root).parts[:6] for root in (V41, V51, SAMPLE) for p in root.rglob("run_1")}
    assert "0 skipped" in output
    assert PublishedResult.objects.count() == len(run_dirs) == BenchmarkRun.objects.filter(origin="external").count()
    for result in PublishedResult.objects.all():
        key, figure = _checker_figure(result)
        assert (result.metric, float(result.value)) == (key, figure), result.source_path


def test_it_reads_each_spelling_scenario_and_metric_key(full_catalog):
    _import()

    def get(system, benchmark, scenario):
        return PublishedResult.objects.select_related("run__accelerator").get(
            system=system, benchmark=benchmark, scenario=scenario
        )

    gptj = get("1-node-2S-GNR-PyTorch", "gptj-99", "Offline")  # CPU-only: two Xeon 6980P sockets
    assert (gptj.metric, gptj.unit, gptj.accelerators_per_system) == (
        "result_inferred_tokens_per_second",
        "tokens/s",
        2,
    )
    assert gptj.run.accelerator.model.startswith("Xeon 6980P") and gptj.run.workload_name == "gptj-99"
    point = gptj.run.points.get()
    assert point.output_tokens_per_s == pytest.approx(float(gptj.value) / 2)

    interactive = get("B200-SXM-180GBx8_TRT", "llama3.1-405b", "Interactive")
    assert (interactive.metric, interactive.run.scenario) == ("result_completed_tokens_per_second", "interactive")
    assert (interactive.run.accelerator.model, interactive.accelerators_per_system) == ("B200", 8)

    underscore = get("1-node-2S-GNR_128C", "llama3_1-8b", "Offline")
    assert (underscore.run.workload_name, underscore.run.model_class) == ("llama3.1-8b", "llm-decoder")

    lower = get("h13_u1_slim", "resnet50", "offline")
    assert (lower.run.scenario, lower.system_type, lower.division) == ("offline", "edge", "closed")
    single = get("h13_u1_slim", "resnet50", "singlestream")
    assert (single.metric, single.unit, single.run.scenario) == ("early_stopping_latency_ss", "ns", "single-stream")

    inferred = get(
        "GATEOverflow_RTX4090x1-reference-cpu-onnxruntime_v1.22.1-default_config", "retinanet", "multistream"
    )
    assert inferred.inferred_from == "SingleStream"
    rgat = get("B200-SXM-180GBx8_TRT", "rgat", "Offline")  # summary log only
    assert rgat.source_path.endswith("mlperf_log_summary.txt") and rgat.value == "651230"

    mi300x = get("1xMI300X_2xEPYC-9374F", "llama2-70b-99", "Offline")
    assert mi300x.run.accelerator.model == "MI300X"
    assert "power limit 750W" in mi300x.accelerator_variant and "NPS1" in mi300x.accelerator_variant


def test_it_adds_nothing_on_reimport(full_catalog):
    _import()
    count = PublishedResult.objects.count()
    assert f"0 imported, {count} already imported, 0 skipped" in _import()
    assert PublishedResult.objects.count() == count


def test_it_holds_an_unknown_part_and_a_mixed_system_with_each_reason_once(full_catalog, tmp_path):
    tree = tmp_path / "inference_results_v4.1"
    shutil.copytree(V41, tree)
    system = tree / "closed/UntetherAI/systems/h13_u1_slim.json"
    system.write_text(system.read_text().replace("UntetherAI speedAI240 Slim", "Acme Quantum-1"))
    amd = tree / "closed/AMD/systems/1xMI300X_2xEPYC-9374F.json"
    amd.write_text(
        amd.read_text().replace(
            '"AMD Instinct MI300X-NPS1-SPX-192GB-750W"',
            '"AMD Instinct MI325X 256GB HBM3E (x16), AMD Instinct MI300X 192GB HBM3 (x8)"',
        )
    )
    output = _run("import_mlperf", str(tree))
    assert "2 imported, 0 already imported, 0 skipped" in output
    assert "4 held (stored as published, not ranked)" in output
    assert "held    3 x no catalog entry" in output and "held    1 x mixed parts" in output
    mixed = HeldPublishedResult.objects.get(system="1xMI300X_2xEPYC-9374F")
    assert mixed.accelerator_names == ["AMD Instinct MI325X 256GB HBM3E", "AMD Instinct MI300X 192GB HBM3"]
    assert mixed.accelerators_per_system == 16 + 8
    assert "never ranked per accelerator" in mixed.reason
    unknown = HeldPublishedResult.objects.filter(reason__contains="no catalog entry: accelerator 'Acme Quantum-1'")
    assert unknown.count() == 3
    assert "0 imported, 6 already imported" in _run("import_mlperf", str(tree))  # held ones are not held twice


def test_it_reports_each_skip_reason_once_with_its_count_and_strict_fails(full_catalog, tmp_path):
    tree = tmp_path / "inference_results_v4.1"
    shutil.copytree(V41, tree)
    for log in tree.glob("closed/UntetherAI/results/*/resnet50/*/performance/run_1/mlperf_log_*.txt"):
        log.unlink()
    output = _run("import_mlperf", str(tree))
    assert "3 x no mlperf_log_detail.txt, mlperf_log_summary.txt or result_summary.json" in output
    with pytest.raises(CommandError, match="--strict: 3 result"):
        _run("import_mlperf", str(tree), "--strict")


def test_the_csv_has_one_row_per_result_with_the_published_figure_unchanged(full_catalog):
    _import()
    rows = list(csv.reader(StringIO(_run("published_results", "--csv"))))
    assert rows[0][:12] == (
        "round,division,submitter,system,benchmark,scenario,metric,value,unit,accelerator,"
        "accelerators_per_system,source_path"
    ).split(",")
    assert len(rows) - 1 == PublishedResult.objects.count()
    by_path = {row[11]: row for row in rows[1:]}
    for result in PublishedResult.objects.select_related("run__accelerator"):
        row = by_path[result.source_path]
        assert row[:9] == [result.round, result.division, result.submitter, result.system, result.benchmark,
                           result.scenario, result.metric, result.value, result.unit]  # fmt: skip
        assert (row[9], int(row[10])) == (str(result.run.accelerator), result.accelerators_per_system)
    gptj = by_path["closed/Intel/results/1-node-2S-GNR-PyTorch/gptj-99/Server/performance/run_1/mlperf_log_detail.txt"]
    assert Decimal(gptj[7]) == Decimal(str(_detail_log(V41 / gptj[11])["result_inferred_completed_tokens_per_second"]))


def test_the_shipped_file_loads_idempotently_and_agrees_with_the_trees(full_catalog):
    first = _run("load_published_results")
    assert " imported, 0 already imported, 0 skipped" in first
    shipped = {(r.round, r.source_path): (r.metric, r.value, r.unit) for r in PublishedResult.objects.all()}
    assert "0 imported" in _run("load_published_results")
    assert len({r.run.accelerator_id for r in PublishedResult.objects.filter(benchmark__startswith="llama2-70b")}) >= 5
    PublishedResult.objects.all().delete()
    BenchmarkRun.objects.filter(origin="external").delete()
    _import()
    for result in PublishedResult.objects.exclude(round="v4.1", submitter="Dell"):
        assert shipped[(result.round, result.source_path)] == (result.metric, result.value, result.unit)


def test_the_runs_api_names_where_a_published_run_was_published(full_catalog, api):
    _import()
    body = api.get("/api/v1/runs/", {"origin": "external", "workload": "gptj-99"}).json()
    rows = body["results"] if isinstance(body, dict) else body
    published = {row["published"]["scenario"]: row["published"] for row in rows}
    assert published["Server"]["metric"] == "result_inferred_completed_tokens_per_second"
    assert (published["Server"]["round"], published["Server"]["submitter"]) == ("v4.1", "Intel")
    assert all(row["origin"] == "external" for row in rows)


def test_open_division_names_mapped_by_the_submitter_and_interactive_benchmark_names(full_catalog, tmp_path):
    tree = tmp_path / "inference_results_v5.1"
    shutil.copytree(V51 / "closed" / "NVIDIA", tree / "open" / "NVIDIA")
    results = tree / "open/NVIDIA/results/B200-SXM-180GBx8_TRT"
    (results / "deepseek-r1").rename(results / "deepseek-r1-fp4-pruned")
    (tree / "open/NVIDIA/model_mapping.json").write_text('{"deepseek-r1-fp4-pruned": "deepseek-r1"}')
    (results / "llama3.1-405b-interactive").mkdir()
    (results / "llama3.1-405b/Interactive").rename(results / "llama3.1-405b-interactive/Server")

    assert "3 imported, 0 already imported, 0 skipped" in _run("import_mlperf", str(tree))
    mapped = PublishedResult.objects.get(benchmark="deepseek-r1-fp4-pruned")
    assert (mapped.division, mapped.run.workload_name, mapped.run.scenario) == ("open", "deepseek-r1", "server")
    interactive = PublishedResult.objects.get(benchmark="llama3.1-405b-interactive")
    assert (interactive.run.workload_name, interactive.run.scenario) == ("llama3.1-405b", "interactive")


def test_a_result_with_only_a_summary_log_keeps_its_ttft_and_tpot_percentiles(full_catalog):
    """The checker's LLM check reads TTFT/TPOT p99 from the detail log; without one, LoadGen's summary lines
    for the same figures ('99.00 percentile first token latency (ns)', '... time to output token (ns)')."""
    _import()
    result = PublishedResult.objects.get(
        benchmark="llama2-70b-99", scenario="Server", source_path__endswith="mlperf_log_summary.txt"
    )
    pairs = (line.split(":", 1) for line in (_root(result) / result.source_path).read_text().splitlines())
    summary = {label.strip(): text.strip() for label, *text in pairs for text in text}
    point = result.run.points.get()
    for field, label in (
        ("ttft_p50_ms", "50.00 percentile first token latency (ns)"),
        ("ttft_p99_ms", "99.00 percentile first token latency (ns)"),
        ("tpot_p50_ms", "50.00 percentile time to output token (ns)"),
        ("tpot_p99_ms", "99.00 percentile time to output token (ns)"),
    ):
        assert getattr(point, field) == pytest.approx(int(summary[label]) / 1e6), field


def test_an_archive_reads_as_its_tree_unpacked_in_memory_where_there_is_room(tmp_path, monkeypatch):
    import tarfile

    from results.mlperf import sources

    archive = tmp_path / "mlperf_inference_results_v5.1_subset.tar.xz"
    with tarfile.open(archive, "w:xz") as tar:
        tar.add(V51, arcname="inference_results_v5.1")
    room = tmp_path / "ram"
    room.mkdir()
    monkeypatch.setattr(sources, "MEMORY_TEMP_DIRS", (tmp_path / "missing", room))
    assert sources.memory_temp_dir(1024) == str(room)
    assert sources.memory_temp_dir(10**18) is None  # no room: the default temp dir
    unpacked_in = []
    real = sources.tempfile.TemporaryDirectory
    monkeypatch.setattr(
        sources.tempfile, "TemporaryDirectory", lambda **kw: unpacked_in.append(kw["dir"]) or real(**kw)
    )
    from_archive = {r.source_path: r.value for r in sources.read_source(archive)}
    assert unpacked_in == [str(room)] and list(room.iterdir()) == []  # unpacked there, and removed
    assert from_archive == {r.source_path: r.value for r in sources.read_source(V51)}
