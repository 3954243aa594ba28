"""A round, a benchmark and an accelerator the code has never heard of (invented names in a fixture tree): imported,
labelled, and taken up by a later registry declaration and catalog entry without a re-import (the tree is gone)."""

import csv
import shutil
from io import StringIO

import pytest
from django.core.management import CommandError, call_command

import workloads
from hardware_catalog.models import Accelerator
from results.mlperf.adopt import adopt_stored
from results.models import BenchmarkRun, HeldPublishedResult, PublishedResult
from tests.fixtures.mlperf_tree import write_tree
from workloads import registry

pytestmark = pytest.mark.django_db

SYSTEMS = {
    "acme_h100": {"accelerator_model_name": "NVIDIA H100-SXM-80GB", "accelerators_per_node": 8, "status": "available"},
    "acme_z9": {"accelerator_model_name": "Zephyr Z9 96GB", "accelerators_per_node": 4, "status": "Preview"},
}
RESULTS = [("acme_h100", "zebra-7b", "1234.5"), ("acme_z9", "zebra-7b", "800"), ("acme_z9", "resnet50", "4000")]


@pytest.fixture
def tree(tmp_path):
    return write_tree(tmp_path / "inference_results_v9.9", SYSTEMS, RESULTS)


def _csv() -> dict:
    out = StringIO()
    call_command("published_results", "--csv", stdout=out)
    return {(row["system"], row["benchmark"]): row for row in csv.DictReader(StringIO(out.getvalue()))}


def test_a_round_without_a_known_date_asks_for_it_once_naming_the_round(tree):
    with pytest.raises(CommandError, match=r"round\(s\) v9\.9 .*--published v9\.9=YYYY-MM-DD"):
        call_command("import_mlperf", str(tree), stdout=StringIO())
    assert not BenchmarkRun.objects.exists() and not HeldPublishedResult.objects.exists()  # nothing half-written


def test_new_names_are_stored_labelled_and_taken_up_later_without_a_reimport(
    tree, api, monkeypatch, django_capture_on_commit_callbacks
):  # noqa: E501
    call_command("load_catalog", stdout=StringIO())
    out = StringIO()
    call_command("import_mlperf", str(tree), "--published", "v9.9=2026-10-01", stdout=out)
    assert "1 imported, 0 already imported, 0 skipped" in out.getvalue()
    assert "held    2 x no catalog entry" in out.getvalue()
    shutil.rmtree(tree)  # whatever happens next reads the database only

    # The undeclared benchmark on a known part: stored under its MLPerf name, its figure as published, labelled.
    rows = _csv()
    zebra = rows[("acme_h100", "zebra-7b")]
    assert (zebra["workload"], zebra["value"], zebra["unit"]) == ("mlperf:zebra-7b", "1234.5", "samples/s")
    assert zebra["ranking"] == "not declared: ranked only against itself"
    assert zebra["per_accelerator_value"] == "154.3125"  # 1234.5 samples/s / 8 accelerators
    # The unknown part: stored as published, listed with its reason.
    z9 = rows[("acme_z9", "resnet50")]
    assert (z9["accelerator_as_published"], z9["value"], z9["availability"]) == ("Zephyr Z9 96GB", "4000", "preview")
    assert z9["ranking"].startswith("not ranked: no catalog entry: accelerator 'Zephyr Z9 96GB'")

    # Ranked only against itself: its own ranking lists it, with the label in the workload's title.
    response = api.get("/api/v1/rankings/?workload=mlperf:zebra-7b&price_kind=cloud_on_demand&include_external=true")
    assert response.status_code == 200, response.data
    assert "not declared: ranked only against itself" in response.data["workload"]["title"]
    listed = response.data["rows"] + response.data["infeasible"]
    assert [row["accelerator"]["name"] for row in listed] == ["NVIDIA H100 SXM5 80GB"]

    # A later release declares the benchmark: the stored result moves to it, same run id, same figure.
    run_id = BenchmarkRun.objects.get(workload_name="mlperf:zebra-7b").pk
    declared = registry.Workload(
        id="zebra-7b", model_class="cv-classification", title="Zebra 7B", reference_model="Zebra",
        unit=workloads.Unit.SAMPLES, input_description="images", quality_target="99 % of the reference",
        published_benchmarks=("zebra-7b",),
    )  # fmt: skip
    monkeypatch.setitem(registry.WORKLOADS, "zebra-7b", declared)
    adopt_stored()
    run = BenchmarkRun.objects.get(pk=run_id)
    assert (run.workload_name, run.model_class, run.published.value) == ("zebra-7b", "cv-classification", "1234.5")

    # The catalog learns the part: the held results become runs once it commits, the zebra one already declared.
    with django_capture_on_commit_callbacks(execute=True):
        Accelerator.objects.create(vendor="Zephyr", model="Z9", kind="accelerator", memory_gib=96, source="test")
    assert not HeldPublishedResult.objects.exists()
    on_z9 = {r.workload_name: r for r in BenchmarkRun.objects.filter(accelerator__vendor="Zephyr")}
    assert set(on_z9) == {"zebra-7b", "resnet50"}
    assert on_z9["resnet50"].points.get().throughput_per_s == 1000.0  # 4000 samples/s / 4 accelerators
    assert PublishedResult.objects.get(run=on_z9["zebra-7b"]).availability == "preview"
