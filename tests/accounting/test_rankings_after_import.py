"""After importing the MLPerf sample (tests/fixtures/mlperf/sample, a copy of ../shared/data/mlperf_sample),
a ranking for one workload lists that workload's results and no other's."""

from io import StringIO
from pathlib import Path

import pytest
from django.core.management import call_command

pytestmark = pytest.mark.django_db

SAMPLE = Path(__file__).resolve().parent.parent / "fixtures" / "mlperf" / "sample"


@pytest.fixture
def imported_sample(db):
    call_command("load_catalog", stdout=StringIO())
    call_command("import_mlperf", str(SAMPLE), "--round", "v4.1", stdout=StringIO())


@pytest.mark.parametrize("workload", ["resnet50", "bert-large-99", "llama2-70b-99"])
def test_a_ranking_after_import_lists_only_the_asked_workload(imported_sample, api, make_run, workload):
    from hardware_catalog.models import Accelerator

    # A measured smoke stand-in on an imported H100, absurdly fast: it must show up in no ranking.
    h100 = Accelerator.objects.filter(runs__origin="external", model__startswith="H100").distinct().get()
    make_run(h100, [{"throughput_per_s": 9e9, "output_tokens_per_s": 9e9, "latency_p99_ms": 0.01}],
             workload_name="llm-decoder-tiny", model_class="llm-decoder")  # fmt: skip
    response = api.get(f"/api/v1/rankings/?workload={workload}&price_kind=cloud_on_demand&include_external=true")
    assert response.status_code == 200, response.data
    assert response.data["workload"]["id"] == workload
    names = [row["run"]["workload_name"] for row in response.data["rows"]]
    assert names and set(names) == {workload}
    assert all(row["source"].startswith("published: MLPerf v4.1 closed, Dell, ") for row in response.data["rows"])
    assert {row["accelerator_count"] for row in response.data["rows"]} <= {4, 8}
