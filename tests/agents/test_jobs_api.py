"""POST/GET /api/v1/jobs/ and the cancel action."""

import pytest

from agents.models import Job
from agents.registry import agent_register

pytestmark = pytest.mark.django_db


@pytest.fixture
def agent(catalog):
    return agent_register(report={"name": "gpu01", "devices": [{"type": "cuda", "name": "NVIDIA H100 80GB HBM3"}]})


def test_it_names_each_invalid_field_of_a_job(staff_api, agent):
    response = staff_api.post(
        "/api/v1/jobs/",
        {"agent": "gpu01", "workloads": ["gpt-17"], "backends": ["warp-drive"], "offline_batch_sizes": [0],
         "server_load_fractions": [-1.0], "rounds": 0, "time_limit_s": 5},
        format="json",
    )  # fmt: skip
    assert response.status_code == 400
    assert set(response.data) == {"workloads", "backends", "offline_batch_sizes", "server_load_fractions",
                                  "rounds", "time_limit_s"}  # fmt: skip
    assert "gpt-17" in str(response.data["workloads"]) and not Job.objects.exists()


def test_it_requires_staff_to_create_a_job(api, agent):
    assert api.post("/api/v1/jobs/", {"agent": "gpu01"}, format="json").status_code == 403
    assert api.get("/api/v1/jobs/").status_code == 200


def test_it_picks_an_online_agent_with_the_requested_accelerator(staff_api, agent, django_capture_on_commit_callbacks):
    h100 = agent.accelerators.get()
    assert h100.model == "H100 SXM5 80GB"
    with django_capture_on_commit_callbacks(execute=False):
        response = staff_api.post("/api/v1/jobs/", {"accelerator": h100.pk, "workloads": ["tabular"]}, format="json")
    assert response.status_code == 201 and response.data["agent"] == "gpu01"
    assert response.data["state"] == "queued"


def test_it_refuses_an_accelerator_no_online_agent_has(staff_api, agent, make_accelerator):
    other = make_accelerator(model="Nobody Has It")
    response = staff_api.post("/api/v1/jobs/", {"accelerator": other.pk}, format="json")
    assert response.status_code == 400 and "accelerator" in response.data


def test_it_cancels_a_queued_job_once(staff_api, agent, django_capture_on_commit_callbacks):
    with django_capture_on_commit_callbacks(execute=False):
        job_id = staff_api.post("/api/v1/jobs/", {"agent": "gpu01"}, format="json").data["id"]
    response = staff_api.post(f"/api/v1/jobs/{job_id}/cancel/")
    assert response.status_code == 200 and response.data["state"] == "cancelled"
    assert staff_api.post(f"/api/v1/jobs/{job_id}/cancel/").status_code == 409


def test_it_lists_agents_with_their_status(api, agent):
    from datetime import timedelta

    from django.utils import timezone

    rows = api.get("/api/v1/agents/").data["results"]
    assert rows[0]["name"] == "gpu01" and rows[0]["status"] == "online" and rows[0]["queue"] == "agent.gpu01"
    type(agent).objects.filter(pk=agent.pk).update(last_seen_at=timezone.now() - timedelta(seconds=121))
    assert api.get("/api/v1/agents/").data["results"][0]["status"] == "offline"


def test_it_lists_quarantined_payloads_with_the_reason(api, catalog):
    from results.ingest import ingest_result

    ingest_result("{not json", source="test")
    row = api.get("/api/v1/quarantine/").data["results"][0]
    assert row["reason"].startswith("not valid JSON") and row["raw_size_bytes"] == 9 and "raw" not in row
