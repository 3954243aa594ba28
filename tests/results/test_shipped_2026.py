"""The shipped published results (results/data/mlperf_published.json.gz: the v4.1, v5.1 and v6.0 subset trees and
both results tables) against MLCommons' own tables (tests/fixtures/mlperf/tables: the shared data's v6.0 subset and
v6.1 tables, unchanged, xz-compressed).

Every closed-division row of both tables is a stored result, once, with the table's figure and unit exactly as
published; a result also read from a tree keeps the tree's figure (the submission checker's, in ns for latencies),
and the two agree to the table's rounding. What is not ranked says why, and the reason is a true limit.
"""

import csv
import json
import lzma
from collections import Counter
from io import StringIO
from pathlib import Path

import pytest
from django.core.management import call_command

from results.mlperf.metrics import standard_figure
from results.mlperf.table import _LOCATION

pytestmark = pytest.mark.django_db

TABLES = Path(__file__).resolve().parent.parent / "fixtures" / "mlperf" / "tables"


def _table(name: str) -> list[dict]:
    with lzma.open(TABLES / name, "rt", encoding="utf-8") as handle:
        document = json.load(handle)
    return document if isinstance(document, list) else list(document.values())


@pytest.fixture(scope="module")
def published_csv(django_db_setup, django_db_blocker):
    with django_db_blocker.unblock():
        call_command("load_catalog", stdout=StringIO())
        call_command("load_published_results", stdout=StringIO())
        out = StringIO()
        call_command("published_results", "--csv", stdout=out)
        yield list(csv.DictReader(StringIO(out.getvalue())))
        call_command("flush", interactive=False, verbosity=0)


def _rows_by_result(rows):
    return Counter(
        (r["round"], r["division"], r["submitter"], r["system"], r["benchmark"], r["scenario"]) for r in rows
    )


@pytest.mark.parametrize(
    ("table", "round_name", "value_key", "unit_key"),
    [
        ("mlperf_inference_v6.0_summary_results_subset.json.xz", "v6.0", "Performance_Result", "Performance_Units"),
        ("mlperf_inference_v6.1_summary.json.xz", "v6.1", "Result", "Units"),
    ],
)
def test_every_closed_row_of_both_tables_is_stored_once_with_its_published_figure(
    published_csv, table, round_name, value_key, unit_key
):
    stored = {(r["round"], r["division"], r["submitter"], r["system"], r["benchmark"], r["scenario"]): r
              for r in published_csv}  # fmt: skip
    counts = _rows_by_result(published_csv)
    closed = [row for row in _table(table) if "/closed/" in row["Location"]]
    assert len(closed) >= 200
    for row in closed:
        division, submitter, system, benchmark, scenario = _LOCATION.search(row["Location"]).groups()
        key = (round_name, division, submitter, system, benchmark, scenario)
        assert counts[key] == 1, key
        result = stored[key]
        figure = row[value_key]
        assert (result["table_value"], result["table_unit"]) == (repr(figure) if isinstance(figure, float)
                                                                 else str(figure), row[unit_key])  # fmt: skip
        # The tree's figure, where a tree was read, is the table's before the table's rounding (4 digits or more);
        # the table labels whisper's tokens/s 'Samples/s' (the checker scores it in tokens: mlperf.conf).
        tree, tree_unit = standard_figure(result["value"], result["unit"])
        published, published_unit = standard_figure(result["table_value"], result["table_unit"])
        tokens_labelled_samples = (tree_unit, published_unit) == ("tokens/s", "samples/s") and benchmark == "whisper"
        assert tree_unit == published_unit or tokens_labelled_samples, key
        assert tree == pytest.approx(published, rel=5e-3), key
        # Not ranked only for a true limit: a system of several different parts (never per accelerator).
        assert result["ranking"] == "ranked" or "several different parts" in result["ranking"], result["ranking"]


def test_a_v6_1_vera_rubin_result_is_stored_and_ranked_with_no_price_as_a_stated_reason(published_csv, api):
    vera_rubin = [r for r in published_csv if r["round"] == "v6.1" and "Vera Rubin" in r["accelerator_as_published"]]
    assert {r["benchmark"] for r in vera_rubin} >= {"deepseek-r1", "qwen3-vl-235b-a22b"}
    assert {r["ranking"] for r in vera_rubin} == {"ranked"}
    response = api.get("/api/v1/rankings/?workload=deepseek-r1&price_kind=cloud_on_demand&include_external=true")
    assert response.status_code == 200, response.data
    listed = [row for row in response.data["infeasible"] if "Vera Rubin" in row["accelerator"]["name"]]
    assert listed and all(row["reason"].startswith("no cloud_on_demand price") for row in listed), listed


@pytest.mark.parametrize("workload", ["gpt-oss-120b", "deepseek-r1"])
def test_the_2026_llms_rank_at_least_five_accelerators_including_b300_and_mi355x(published_csv, api, workload):
    response = api.get(f"/api/v1/rankings/?workload={workload}&price_kind=cloud_on_demand&include_external=true")
    assert response.status_code == 200, response.data
    names = {row["accelerator"]["name"] for row in response.data["rows"]}
    assert len(names) >= 5, names
    assert any("B300" in name for name in names) and any("MI355X" in name for name in names), names
