"""Integration: real Celery workers (subprocesses) on the real Redis and PostgreSQL, no eager mode."""

import os
import signal
import time

import pytest

from agents.models import Agent, Job
from results.models import BenchmarkRun

from .conftest import TEST_VISIBILITY_TIMEOUT_S, wait_for

pytestmark = [pytest.mark.redis, pytest.mark.postgres, pytest.mark.slow, pytest.mark.django_db(transaction=True)]

TWO_ITEMS = {
    "workloads": ["tabular"],
    "scenarios": ["single-stream", "offline"],
    "backends": ["eager"],
    "precisions": ["fp32"],
    "offline_batch_sizes": [1],
    "min_duration_ms": 600,
    "min_query_count": 16,
    "rounds": 1,
    "time_limit_s": 120,
}


def _agent_online(name: str):
    registered = Agent.objects.filter(name=name).exclude(devices=[])  # enrolled before start; registered now
    return wait_for(lambda: registered.first(), timeout_s=60, what=f"agent {name} to register")


def _job(job_id) -> Job:
    return Job.objects.get(pk=job_id)


def _mid_run(workers, staff_api, agent_name: str):
    """A control worker and agent `agent_name`, one second into a 4 s single-stream job: (agent process, job id)."""
    workers.control()
    agent_proc = workers.agent(agent_name)
    _agent_online(agent_name)
    spec = {**TWO_ITEMS, "scenarios": ["single-stream"], "min_duration_ms": 4000, "agent": agent_name}
    job_id = staff_api.post("/api/v1/jobs/", spec, format="json").data["id"]
    wait_for(lambda: _job(job_id).state == "running", timeout_s=60, what="the agent to start the job")
    time.sleep(1.0)
    return agent_proc, job_id


def _finished(job_id, timeout_s: float) -> Job:
    def done():
        job = _job(job_id)
        return job if job.state in ("succeeded", "failed") else None

    return wait_for(done, timeout_s=timeout_s, what="the job to finish")


def test_it_runs_a_job_enqueued_through_the_api_on_the_agent(catalog, staff_api, workers):
    workers.control()
    workers.agent("it-agent")
    agent = _agent_online("it-agent")
    assert agent.queue == "agent.it-agent" and agent.status == "online"
    assert agent.devices and agent.accelerators.exists()

    response = staff_api.post("/api/v1/jobs/", {**TWO_ITEMS, "agent": "it-agent"}, format="json")
    assert response.status_code == 201, response.data
    job_id, seen_pct = response.data["id"], set()

    def finished():
        body = staff_api.get(f"/api/v1/jobs/{job_id}/").data
        seen_pct.add(body["progress_pct"])
        return body if body["state"] in ("succeeded", "failed", "cancelled") else None

    body = wait_for(finished, timeout_s=120, what="the job to finish")
    assert body["state"] == "succeeded", body["error"]
    assert body["attempts"] == 1 and body["progress_pct"] == 100
    assert any(0 < pct < 100 for pct in seen_pct), seen_pct
    runs = BenchmarkRun.objects.filter(job_id=job_id)
    assert runs.count() == 2 and {run.agent_id for run in runs} == {agent.pk}
    assert sorted(map(str, body["runs"])) == sorted(str(pk) for pk in runs.values_list("pk", flat=True))
    listed = {str(run["id"]) for run in staff_api.get("/api/v1/runs/").data["results"]}
    assert {str(pk) for pk in runs.values_list("pk", flat=True)} <= listed


def test_it_completes_a_job_exactly_once_after_the_agent_is_killed_mid_run(catalog, staff_api, workers):
    agent_proc, job_id = _mid_run(workers, staff_api, "crash-agent")

    workers.kill(agent_proc)  # kill -9 of the whole worker (main process and pool child): the host died
    killed_at = time.monotonic()
    assert _job(job_id).state == "running" and not BenchmarkRun.objects.filter(job_id=job_id).exists()
    # Redis hands the unacked message back once the visibility timeout has passed since delivery.
    time.sleep(max(0.0, TEST_VISIBILITY_TIMEOUT_S + 1 - (time.monotonic() - killed_at)))
    workers.agent("crash-agent")

    job = _finished(job_id, timeout_s=120)
    assert job.state == "succeeded", job.error
    assert job.attempts == 2
    assert BenchmarkRun.objects.filter(job_id=job_id).count() == 1


def test_it_fails_a_job_whose_agent_never_answers_by_its_deadline(catalog, staff_api, workers, settings):
    from agents.registry import agent_register

    settings.INFERLEDGER_JOB_START_TIMEOUT_S = 3
    # The control worker with an embedded beat that runs the reaper every second.
    control = workers.control("--beat", "--scheduler", "django_celery_beat.schedulers:DatabaseScheduler",
                              INFERLEDGER_REAPER_INTERVAL_S="1")  # fmt: skip
    workers.wait_for_log(control, "Sending due task inferledger-reap-jobs")
    workers.wait_for_log(control, " ready.")  # the embedded beat starts sending before the worker consumes
    agent_register(report={"name": "ghost", "devices": [{"type": "cpu", "name": "Ghost CPU", "vcpu_count": 2}]})
    created = time.monotonic()  # before the request: the deadline is counted from inside it
    response = staff_api.post("/api/v1/jobs/", {**TWO_ITEMS, "agent": "ghost"}, format="json")
    job_id = response.data["id"]

    job = wait_for(lambda: (j := _job(job_id)).state != "queued" and j, timeout_s=30, what="the reaper")
    elapsed_s = time.monotonic() - created
    assert job.state == "failed"
    assert "agent ghost did not start the job by its deadline" in job.error
    # Not before its deadline; how soon after it depends on the machine's load (wait_for bounds it at 30 s).
    assert elapsed_s >= 3, elapsed_s


def _children(pid: int) -> list[int]:
    with open(f"/proc/{pid}/task/{pid}/children") as handle:
        return [int(child) for child in handle.read().split()]


def test_it_reruns_a_job_at_once_when_the_pool_child_is_killed(catalog, staff_api, workers):
    agent_proc, job_id = _mid_run(workers, staff_api, "child-agent")

    (child,) = _children(agent_proc.pid)
    os.kill(child, signal.SIGKILL)  # OOM-killer style: the benchmark process dies, the worker lives

    job = _finished(job_id, timeout_s=90)
    assert job.state == "succeeded", job.error
    assert job.attempts == 2 and BenchmarkRun.objects.filter(job_id=job_id).count() == 1


def test_it_stops_a_cancelled_job_on_the_agent_which_then_takes_the_next_job(catalog, staff_api, workers):
    workers.control()
    workers.agent("cancel-agent")
    registered_at = _agent_online("cancel-agent").last_seen_at
    slow = {**TWO_ITEMS, "scenarios": ["single-stream"], "min_duration_ms": 20000, "agent": "cancel-agent"}
    job_id = staff_api.post("/api/v1/jobs/", slow, format="json").data["id"]
    wait_for(lambda: _job(job_id).state == "running", timeout_s=60, what="the agent to start the job")

    response = staff_api.post(f"/api/v1/jobs/{job_id}/cancel/")
    assert response.status_code == 200 and response.data["state"] == "cancelled"

    quick = staff_api.post("/api/v1/jobs/", {**TWO_ITEMS, "agent": "cancel-agent"}, format="json").data["id"]
    # Uncancelled, the slow job would hold the agent for its two 20 s items (40 s); the next job must finish
    # before that. The bound leaves room for a loaded machine (15 s was missed under load, not by a defect).
    job = _finished(quick, timeout_s=35)
    assert job.state == "succeeded", job.error
    cancelled = _job(job_id)
    assert cancelled.state == "cancelled" and cancelled.attempts == 1
    assert not BenchmarkRun.objects.filter(job_id=job_id).exists()
    assert Agent.objects.get(name="cancel-agent").last_seen_at > registered_at  # heartbeats arrive
