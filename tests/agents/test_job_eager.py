"""The embedded default (no broker): a job runs in-process, eagerly, through the same tasks."""

import pytest

from agents.models import BenchmarkRun, Job

pytestmark = pytest.mark.django_db

FAST_SPEC = {
    "workloads": ["tabular"],
    "scenarios": ["single-stream"],
    "backends": ["eager"],
    "precisions": ["fp32"],
    "min_duration_ms": 100,
    "min_query_count": 16,
    "rounds": 2,
    "time_limit_s": 120,
}


def test_it_runs_a_job_created_through_the_api_in_process(catalog, staff_api, django_capture_on_commit_callbacks):
    with django_capture_on_commit_callbacks(execute=True):
        response = staff_api.post("/api/v1/jobs/", FAST_SPEC, format="json")
    assert response.status_code == 201, response.data
    job = Job.objects.get(pk=response.data["id"])
    assert job.state == "succeeded", job.error
    assert job.agent.name == "local" and job.attempts == 1 and job.progress_pct == 100
    run = BenchmarkRun.objects.get(job=job)
    assert run.agent == job.agent and run.workload_name == "tabular-tiny"
    assert run.payload["settings"]["rounds"] == 2 and run.payload["points"][0]["rounds"]["count"] >= 2
    detail = staff_api.get(f"/api/v1/jobs/{job.pk}/").data
    assert detail["state"] == "succeeded" and detail["runs"] == [run.pk]
