"""Availability of published systems: shown on every published row, and preview systems (not yet available when
submitted) left out of purchase advice unless asked for, with the reason."""

from io import StringIO

import pytest
from django.core.management import call_command

from tests.fixtures.mlperf_tree import write_tree

pytestmark = pytest.mark.django_db

H100 = "NVIDIA H100-SXM-80GB"
SYSTEMS = {
    "h100_available": {"accelerator_model_name": H100, "accelerators_per_node": 8, "status": "available"},
    "h100_preview": {"accelerator_model_name": H100, "accelerators_per_node": 4, "status": "preview"},
}
BODY = {"workload": "resnet50", "target_qps": "10000", "annual_volume": "315360000000",
        "price_kinds": ["cloud_on_demand"], "published": "all"}  # fmt: skip


@pytest.fixture
def imported(tmp_path):
    tree = write_tree(tmp_path / "inference_results_v5.1", SYSTEMS,
                      [("h100_available", "resnet50", "80000"), ("h100_preview", "resnet50", "60000")])  # fmt: skip
    call_command("load_catalog", stdout=StringIO())
    call_command("import_mlperf", str(tree), stdout=StringIO())


def test_every_published_row_states_its_availability(imported, api):
    response = api.get("/api/v1/rankings/?workload=resnet50&price_kind=cloud_on_demand&published=all")
    assert response.status_code == 200, response.data
    availability = {row["published"]["system"]: row["published"]["availability"] for row in response.data["rows"]}
    assert availability == {"h100_available": "available", "h100_preview": "preview"}


def test_preview_systems_are_left_out_of_purchase_advice_with_the_reason_unless_asked_for(imported, api):
    response = api.post("/api/v1/recommendations/", BODY, format="json")
    assert response.status_code == 200, response.data
    # The preview system's 60,000 / 4 = 15,000/s per accelerator beats 80,000 / 8 = 10,000/s, yet it is not advised.
    assert [o["option"]["published"]["system"] for o in response.data["options"]] == ["h100_available"]
    (left_out,) = response.data["left_out"]
    assert left_out["option"]["published"]["system"] == "h100_preview"
    assert left_out["reason"].startswith("a preview system (not yet available when its result was submitted)")

    # Both are H100s on one cost basis: the advice lists the cheaper of the two, every option lists both.
    asked = api.post("/api/v1/recommendations/", {**BODY, "include_preview": True, "all_options": True}, format="json")
    assert {o["option"]["published"]["system"] for o in asked.data["options"]} == {"h100_available", "h100_preview"}
    assert asked.data["left_out"] == []
