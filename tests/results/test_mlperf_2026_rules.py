"""Rules for the 2026 rounds' names, tables and units, on spellings the shared data does not hold (no database)."""

import json
from dataclasses import replace

import pytest

from results.mlperf import metrics
from results.mlperf.accelerators import CatalogPart, Matcher, split_mixed
from results.mlperf.sources import unique
from results.mlperf.table import read_table
from results.mlperf.tree import Record

CATALOG = [
    CatalogPart(
        1, "NVIDIA RTX PRO 4500 Blackwell (PCIe 32GB; MLPerf names 'NVIDIA RTX PRO 4500 Blackwell')", 32, "gpu"
    ),
    CatalogPart(2, "NVIDIA RTX PRO 4500 Blackwell Server Edition", 32, "gpu"),
    CatalogPart(3, "NVIDIA Vera Rubin (VR200, per GPU, NVL72)", 288, "gpu"),
    CatalogPart(4, "AMD Radeon 8060S Graphics (Ryzen AI Max+ 395 'Strix Halo' integrated GPU)", None, "gpu"),
    CatalogPart(5, "AMD Instinct MI350X 288GB HBM3e", 288, "gpu"),
]


@pytest.mark.parametrize(
    ("published", "expected"),
    [
        ("NVIDIA RTX PRO 4500 Blackwell", 1),  # the card: no edition words
        ("NVIDIA RTX PRO 4500 Blackwell-PCIe-32GB", 1),
        ("Nvidia RTX PRO 4500 Blackwell Server Edition", 2),  # the edition words choose between the two
        ("NVIDIA Vera Rubin", 3),  # the catalog name outside its parentheses
        ("NVIDIA VR200", 3),  # a name inside them
        ("AMD Radeon 8060S Graphics", 4),
        ("AMD Instinct MI350X", 5),
    ],
)
def test_it_matches_2026_spellings_by_rule(published, expected):
    assert Matcher(CATALOG).match(published).part.key == expected


@pytest.mark.parametrize(
    ("name", "parts"),
    [
        ("NVIDIA H200-SXM-141GB + AMD Instinct MI350X 288GB HBM3e",
         [("NVIDIA H200-SXM-141GB", None), ("AMD Instinct MI350X 288GB HBM3e", None)]),
        ("AMD Instinct MI300X 192GB HBM3 (x2x8) and AMD Instinct MI355X 288GB HBM3e (x2x8)",
         [("AMD Instinct MI300X 192GB HBM3", 16), ("AMD Instinct MI355X 288GB HBM3e", 16)]),  # 2 nodes x 8
        ("AMD Instinct MI355X 288GB HBM3e (x87)", [("AMD Instinct MI355X 288GB HBM3e", 87)]),
        ("NVIDIA Jetson AGX Orin 64GB, 2 cores", [("NVIDIA Jetson AGX Orin 64GB, 2 cores", None)]),  # no count: one
    ],
)  # fmt: skip
def test_it_names_every_part_of_a_mixed_system(name, parts):
    assert split_mixed(name) == parts


@pytest.mark.parametrize(
    ("value", "unit", "expected"),
    [
        ("785522.0", "Tokens/s", (785522.0, "tokens/s")),
        ("10891.1", "Samples/s", (10891.1, "samples/s")),
        ("12.5", "Queries/s", (12.5, "samples/s")),  # a Server query is one sample
        ("3.25", "Tasks/s", (3.25, "samples/s")),
        ("1.5", "Latency (ms)", (1_500_000.0, "ns")),
        ("42.0", "Latency (s)", (42_000_000_000.0, "ns")),
        ("525000", "ns", (525000.0, "ns")),  # a log's unit
    ],
)
def test_it_reads_every_unit_the_tables_and_logs_use(value, unit, expected):
    assert metrics.standard_figure(value, unit) == expected


def test_a_benchmark_scored_in_tokens_counts_tokens_whatever_the_table_calls_it():
    # whisper's LoadGen config logs token latencies (mlperf.conf: whisper.*.use_token_latencies = 1).
    assert metrics.figure_of(value="1422.99", unit="Samples/s", metric="Result", benchmark="whisper") == (
        1422.99, "tokens/s",
    )  # fmt: skip
    assert (
        metrics.figure_of(value="18.7", unit="samples/s", metric="result_samples_per_second", benchmark="whisper")[1]
        == "samples/s"
    )  # a log key names its own unit


OLDER = [{"ID": "6.0-0001", "Submitter": "Acme", "Availability": "Preview", "Category": "closed", "Suite": "edge",
          "System": "Acme Box", "Platform": "acme_box", "Model": "resnet", "Scenario": "Offline", "Nodes": 1,
          "Processor": "EPYC", "Accelerator": "Zephyr Z9", "a#": 4, "version": "v6.0",
          "Location": "./closed/Acme/results/acme_box/resnet50/Offline/performance/run_1",
          "Performance_Result": 4000.0, "Performance_Units": "Samples/s"}]  # fmt: skip
NEWER = {"0": {"Organization": "Acme", "Availability": "available", "Division": "closed", "SystemType": "edge",
               "SystemName": "Acme Box", "MlperfModel": "resnet", "Scenario": "offline", "Result": 4000.0,
               "accelerator_model_name": "Zephyr Z9", "accelerators_per_node": 4, "number_of_nodes": 1,
               "Location": "./closed/Acme/results/acme_box/resnet50/offline/performance/run_1", "Units": "Samples/s",
               "Publication Date": "2026-09-15"}}  # fmt: skip


@pytest.mark.parametrize("document", [OLDER, NEWER], ids=["v6.0 fields", "v6.1 fields"])
def test_it_reads_both_table_layouts_by_field_meaning(tmp_path, document):
    path = tmp_path / "summary.json"
    path.write_text(json.dumps(document))
    (record,) = read_table(path, round_name="v6.1")
    assert (record.division, record.submitter, record.system, record.benchmark) == (
        "closed", "Acme", "acme_box", "resnet50",
    )  # fmt: skip
    assert (record.value, record.unit, record.table_value) == ("4000.0", "Samples/s", "4000.0")
    assert record.system_description["accelerator_model_name"] == "Zephyr Z9"
    assert record.system_description["accelerators_per_node"] == 4
    assert record.problem == ""


def test_the_date_a_table_row_carries_is_its_publication_date(tmp_path):
    path = tmp_path / "summary.json"
    path.write_text(json.dumps(NEWER))
    assert read_table(path, round_name="v6.1")[0].published_on == "2026-09-15"


def test_a_result_in_a_tree_and_a_table_is_one_record_the_trees_with_the_tables_figure_beside_it():
    tree = Record("v6.0", "closed", "Acme", "acme_box", "resnet50", "Offline", metric="result_samples_per_second",
                  value="4000.12", unit="samples/s",
                  figures={"result_99.00_percentile_latency_ns": "5000000"})  # fmt: skip
    table = Record("v6.0", "closed", "Acme", "acme_box", "resnet50", "offline", metric="Result", value="4000.1",
                   unit="Samples/s", table_value="4000.1", table_unit="Samples/s", availability="preview")  # fmt: skip
    for order in ((tree, table), (table, tree)):
        (kept,) = unique([replace(record) for record in order])
        assert (kept.value, kept.figures, kept.table_value, kept.availability) == (
            "4000.12", tree.figures, "4000.1", "preview",
        )  # fmt: skip
