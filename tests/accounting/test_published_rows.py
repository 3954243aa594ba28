"""Which published (MLPerf) rows a ranking includes (accounting.policy.Published), and how each row says
where it came from. Default `fill`: published results only for accelerators with no measured run."""

import csv
from datetime import UTC, datetime
from io import StringIO

import pytest

from results.models import PublishedResult, RunOrigin

pytestmark = pytest.mark.django_db

BASE = "/api/v1/rankings/?workload=resnet50&price_kind=cloud_on_demand"


@pytest.fixture
def measured_and_published(make_accelerator, make_price, make_run):
    """GPU A: measured and published; GPU B: published only."""
    a, b = make_accelerator("Measured GPU"), make_accelerator("Published GPU")
    for gpu in (a, b):
        make_price(gpu, "2.00", effective_from=datetime(2025, 1, 1, tzinfo=UTC))
    make_run(a, [{"throughput_per_s": 100, "latency_p99_ms": 9.0}])
    for gpu, system in ((a, "SysA"), (b, "SysB")):
        run = make_run(gpu, [{"throughput_per_s": 800, "latency_p99_ms": 5.0}], origin=RunOrigin.EXTERNAL,
                       external_source=f"MLPerf v5.1, Acme, {system}", accelerator_count=8)  # fmt: skip
        PublishedResult.objects.create(
            run=run, round="v5.1", division="closed", submitter="Acme", system=system, benchmark="resnet",
            scenario="Server", metric="result_completed_samples_per_sec", value="6400.0", unit="samples/s",
            accelerator_name=str(gpu), accelerators_per_system=8, source_path=f"closed/Acme/results/{system}",
        )  # fmt: skip
    return a, b


def _rows(api, query=""):
    response = api.get(BASE + query)
    assert response.status_code == 200, response.data
    return [(row["accelerator"]["name"], row["origin_label"]) for row in response.data["rows"]], response.data


def test_by_default_published_results_fill_in_for_accelerators_not_measured(api, measured_and_published):
    rows, data = _rows(api)
    assert sorted(rows) == [("NVIDIA Measured GPU", "measured"), ("NVIDIA Published GPU", "published")]
    published = next(row for row in data["rows"] if row["origin_label"] == "published")
    assert published["source"] == "published: MLPerf v5.1 closed, Acme, SysB"
    assert (published["published"]["round"], published["published"]["division"]) == ("v5.1", "closed")
    assert published["published"]["submitter"] == "Acme" and published["published"]["value"] == "6400.0"
    measured = next(row for row in data["rows"] if row["origin_label"] == "measured")
    assert measured["published"] is None and measured["source"].startswith("measured")


def test_a_user_asks_for_measured_only_or_for_all(api, measured_and_published):
    assert _rows(api, "&published=none")[0] == [("NVIDIA Measured GPU", "measured")]
    both = sorted(_rows(api, "&published=all")[0])
    assert both == [("NVIDIA Measured GPU", "measured"), ("NVIDIA Measured GPU", "published"),
                    ("NVIDIA Published GPU", "published")]  # fmt: skip


def test_include_external_keeps_its_meaning(api, measured_and_published):
    assert _rows(api, "&include_external=false")[0] == _rows(api, "&published=none")[0]
    assert sorted(_rows(api, "&include_external=true")[0]) == sorted(_rows(api, "&published=all")[0])
    assert _rows(api, "&include_external=true&published=all")[0]


def test_contradicting_include_external_and_published_is_refused_naming_the_field(api, measured_and_published):
    response = api.get(BASE + "&include_external=false&published=all")
    assert response.status_code == 400
    assert "contradicts published=all" in response.data["include_external"][0]
    assert api.get(BASE + "&published=some").status_code == 400


def test_the_schema_advertises_published_with_its_default(api):
    schema = api.get("/api/schema/?format=json").json()
    for path in ("/api/v1/rankings/", "/api/v1/serving/ranking/"):
        parameters = {p["name"]: p for p in schema["paths"][path]["get"]["parameters"]}
        assert parameters["published"]["schema"]["default"] == "fill", path
        assert parameters["published"]["schema"]["enum"] == ["fill", "none", "all"], path


def test_the_csv_names_each_rows_origin_round_submitter_and_division(api, measured_and_published):
    rows = list(csv.DictReader(StringIO(api.get(BASE + "&published=all&format=csv").content.decode())))
    published = {row["source"]: row for row in rows if row["origin"] == "published"}
    row = published["published: MLPerf v5.1 closed, Acme, SysA"]
    assert (row["published_round"], row["published_division"], row["published_submitter"]) == ("v5.1", "closed", "Acme")
    assert [row["source"][:8] for row in rows if row["origin"] == "measured"] == ["measured"]


def test_after_make_run_the_llama2_70b_ranking_lists_at_least_5_accelerators_by_default(api, shipped_data):
    response = api.get("/api/v1/rankings/?workload=llama2-70b-99&price_kind=cloud_on_demand")
    assert response.status_code == 200, response.data
    rows = response.data["rows"]
    assert len({row["accelerator"]["id"] for row in rows}) >= 5, [row["accelerator"]["name"] for row in rows]
    assert all(row["origin_label"] == "published" and row["published"]["round"] for row in rows)
    assert all(row["source"].startswith("published: MLPerf v") for row in rows)
