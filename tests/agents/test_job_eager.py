"""The embedded default (no broker): a job is queued by the request and run by the built-in local agent."""

import pytest

from agents.local_runner import run_pending_local_jobs
from agents.models import Job
from results.models import BenchmarkRun

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


def test_it_queues_a_job_in_the_request_and_the_local_agent_runs_it(
    catalog, staff_api, django_capture_on_commit_callbacks
):
    with django_capture_on_commit_callbacks(execute=True):
        response = staff_api.post("/api/v1/jobs/", FAST_SPEC, format="json")
    assert response.status_code == 201, response.data
    job = Job.objects.get(pk=response.data["id"])
    assert job.state == "queued" and not BenchmarkRun.objects.filter(job=job).exists()  # nothing ran in the request
    assert job.agent.name == "local" and job.agent.status == "online"
    assert run_pending_local_jobs() == 1
    job.refresh_from_db()
    assert job.state == "succeeded", job.error
    assert job.agent.name == "local" and job.attempts == 1 and job.progress_pct == 100
    run = BenchmarkRun.objects.get(job=job)
    assert run.agent == job.agent and run.workload_name == "tabular-tiny"
    assert run.payload["settings"]["rounds"] == 2 and run.payload["points"][0]["rounds"]["count"] >= 2
    detail = staff_api.get(f"/api/v1/jobs/{job.pk}/").data
    assert detail["state"] == "succeeded" and detail["runs"] == [run.pk]


@pytest.mark.timeout(120, method="thread")  # a hung LoadGen test cannot be interrupted by a signal
def test_a_job_whose_backend_raises_mid_run_fails_within_seconds_with_the_traceback(
    catalog, staff_api, django_capture_on_commit_callbacks, monkeypatch, caplog
):
    import time

    from tests.harness.conftest_helpers import break_offline_eager_forward

    break_offline_eager_forward(monkeypatch, on_batch=6)  # inside the LoadGen test (the offline worker)
    spec = FAST_SPEC | {"scenarios": ["offline"], "offline_batch_sizes": [1], "rounds": 1}
    started = time.monotonic()
    with django_capture_on_commit_callbacks(execute=True):
        response = staff_api.post("/api/v1/jobs/", spec, format="json")
    run_pending_local_jobs()
    assert time.monotonic() - started < 30  # generous for a slow machine: the point is "not forever"
    job = Job.objects.get(pk=response.data["id"])
    assert job.state == "failed" and not BenchmarkRun.objects.filter(job=job).exists()
    assert job.error.startswith("1 item(s) failed:\ntabular-tiny offline eager/fp32: SutFailed: offline:")
    assert "Traceback (most recent call last)" in job.error and "RuntimeError: backend broke mid-run" in job.error
    assert "tabular-tiny_offline_eager_fp32_cpu failed" in caplog.text and "backend broke mid-run" in caplog.text


def _left_running(staff_api, django_capture_on_commit_callbacks) -> Job:
    """A job the local agent claimed and measured to 99 % before its process was stopped (make run, Ctrl-C)."""
    from agents.jobs import job_claim, job_progress

    with django_capture_on_commit_callbacks(execute=True):
        response = staff_api.post("/api/v1/jobs/", FAST_SPEC, format="json")
    job_id = response.data["id"]
    assert job_claim(job_id=job_id, agent_name="local")
    job_progress(job_id=job_id, percent=99.3, point="tabular-tiny single-stream")
    return Job.objects.get(pk=job_id)


def test_a_job_an_earlier_run_left_running_is_run_again_when_the_local_agent_starts(
    catalog, staff_api, django_capture_on_commit_callbacks
):
    from agents.local_runner import serve_local_agent

    job = _left_running(staff_api, django_capture_on_commit_callbacks)
    assert job.state == "running" and job.attempts == 1
    assert run_pending_local_jobs() == 0  # it is not queued: without a restart's resume, it waits for its deadline
    serve_local_agent("local", once=True)  # what make run starts: no other process serves agent local
    job.refresh_from_db()
    assert job.state == "succeeded", job.error
    assert job.attempts == 2 and job.progress_pct == 100  # a second attempt, as a redelivered job
    assert BenchmarkRun.objects.filter(job=job).count() == 1


def test_a_job_is_left_to_the_process_that_still_serves_the_agent(
    catalog, staff_api, django_capture_on_commit_callbacks
):
    from agents.local_runner import serve_local_agent, sole_process

    job = _left_running(staff_api, django_capture_on_commit_callbacks)
    with sole_process("local") as first:  # a process serving agent local here (it holds the lock)
        assert first
        with sole_process("local") as second:
            assert not second
        serve_local_agent("local", once=True)
    job.refresh_from_db()
    assert job.state == "running" and job.attempts == 1  # that process runs it: it is not run twice
    with sole_process("local") as alone:  # the lock is released when its holder ends
        assert alone


def test_a_job_left_running_past_its_attempts_fails_with_the_reason(
    catalog, staff_api, django_capture_on_commit_callbacks, settings
):
    from agents.local_runner import resume_left_running

    job = _left_running(staff_api, django_capture_on_commit_callbacks)
    Job.objects.filter(pk=job.pk).update(attempts=settings.INFERLEDGER_JOB_MAX_ATTEMPTS)
    assert resume_left_running("local") == 1
    job.refresh_from_db()
    assert job.state == "failed" and job.error == f"gave up after {settings.INFERLEDGER_JOB_MAX_ATTEMPTS} attempts"
    assert not BenchmarkRun.objects.filter(job=job).exists()
