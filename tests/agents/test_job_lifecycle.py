"""Job lifecycle services: claim, redelivery, duplicate and malformed results, reaper."""

import copy
from datetime import timedelta

import pytest
from django.utils import timezone

from agents.jobs import job_claim, job_finish, job_ingest, jobs_reap
from agents.models import Job
from agents.registry import agent_register
from agents.tasks import ingest_job_result
from results.models import BenchmarkRun, OperatingPoint, QuarantinedPayload

pytestmark = pytest.mark.django_db


@pytest.fixture
def agent(catalog):
    return agent_register(report={"name": "gpu01", "devices": [{"type": "cpu", "name": "Test CPU", "vcpu_count": 4}]})


@pytest.fixture
def job(agent):
    return Job.objects.create(agent=agent, workloads=["tabular"], time_limit_s=120, deadline_at=timezone.now())


def test_it_claims_a_queued_job_once_and_counts_redeliveries_up_to_the_limit(job):
    assert job_claim(job_id=job.pk, agent_name="gpu01")
    job.refresh_from_db()
    assert job.state == "running" and job.attempts == 1 and job.started_at
    assert job_claim(job_id=job.pk, agent_name="gpu01")  # redelivered after a crash: attempt 2
    assert job_claim(job_id=job.pk, agent_name="gpu01")  # attempt 3
    assert not job_claim(job_id=job.pk, agent_name="gpu01")  # a 4th start is refused
    job.refresh_from_db()
    assert job.state == "failed" and job.attempts == 3 and "gave up after 3 attempts" in job.error


def test_it_refuses_to_claim_a_cancelled_job(job):
    Job.objects.filter(pk=job.pk).update(state="cancelled")
    assert not job_claim(job_id=job.pk, agent_name="gpu01")
    assert Job.objects.get(pk=job.pk).attempts == 0


def test_it_stores_one_run_when_the_same_result_is_delivered_twice(job, result_payload):
    job_claim(job_id=job.pk, agent_name="gpu01")
    assert ingest_job_result.apply(args=[str(job.pk), result_payload]).get() == "stored"
    assert ingest_job_result.apply(args=[str(job.pk), copy.deepcopy(result_payload)]).get() == "duplicate"
    run = BenchmarkRun.objects.get()
    assert run.job == job and run.agent == job.agent


def test_it_keeps_the_first_measurement_when_a_rerun_resends_an_item_of_the_job(job, result_payload):
    job_claim(job_id=job.pk, agent_name="gpu01")
    job_ingest(job_id=job.pk, payload=result_payload)
    rerun = copy.deepcopy(result_payload)
    rerun["points"][0]["throughput_per_s"] *= 1.01  # the re-run measured slightly differently
    assert job_ingest(job_id=job.pk, payload=rerun).status == "duplicate"
    assert BenchmarkRun.objects.count() == 1 and not QuarantinedPayload.objects.exists()


def test_it_quarantines_a_malformed_result_and_fails_the_job_with_the_reason(job, result_payload):
    job_claim(job_id=job.pk, agent_name="gpu01")
    result_payload["points"][0]["latency_ms"]["p99"] = -1
    assert ingest_job_result.apply(args=[str(job.pk), result_payload]).get() == "quarantined"
    assert not BenchmarkRun.objects.exists() and not OperatingPoint.objects.exists()
    entry = QuarantinedPayload.objects.get()
    assert entry.job == job and "points[0].latency_ms.p99" in entry.reason and entry.raw
    job.refresh_from_db()
    assert job.state == "failed" and "result quarantined" in job.error and "points[0].latency_ms.p99" in job.error
    job_finish(job_id=job.pk, run_ids=[result_payload["run_id"]], skips=[])  # the agent's late "done"
    assert Job.objects.get(pk=job.pk).state == "failed"


def test_it_fails_a_job_where_nothing_was_measured_with_the_skip_reasons(job):
    job_claim(job_id=job.pk, agent_name="gpu01")
    skip = {"workload": "tabular-tiny", "scenario": "offline", "backend": "tensorrt", "precision": "fp8",
            "reason": "needs a GPU"}  # fmt: skip
    job_finish(job_id=job.pk, run_ids=[], skips=[skip])
    job.refresh_from_db()
    assert job.state == "failed" and "needs a GPU" in job.error and job.skips == [skip]


def test_it_reaps_a_queued_job_past_its_deadline_and_leaves_others(agent, job):
    later = Job.objects.create(agent=agent, deadline_at=timezone.now() + timedelta(hours=1))
    assert jobs_reap(now=timezone.now() + timedelta(seconds=1)) == [(str(job.pk), "failed")]
    job.refresh_from_db()
    assert job.state == "failed" and "did not start the job by its deadline" in job.error
    assert Job.objects.get(pk=later.pk).state == "queued"


def test_it_requeues_a_silent_running_job_then_fails_it_at_the_attempt_limit(job, django_capture_on_commit_callbacks):
    dispatched = []
    for attempt in (1, 2, 3):
        if attempt > 1:
            Job.objects.filter(pk=job.pk).update(state="queued")  # what the requeue left
        job_claim(job_id=job.pk, agent_name="gpu01")
        later = timezone.now() + timedelta(seconds=120 + 120 + 1)
        with django_capture_on_commit_callbacks(execute=False) as callbacks:
            actions = jobs_reap(now=later)
        dispatched.append(len(callbacks))
        expected = "requeued" if attempt < 3 else "failed"
        assert actions == [(str(job.pk), expected)]
    job.refresh_from_db()
    assert dispatched == [1, 1, 0]
    assert job.state == "failed" and job.attempts == 3 and "reported no result" in job.error


def test_the_reaper_fails_a_job_whose_agent_was_deleted_and_finishes_its_pass(
    job, django_capture_on_commit_callbacks, monkeypatch
):
    other = agent_register(report={"name": "gpu02", "devices": [{"type": "cpu", "name": "Test CPU", "vcpu_count": 4}]})
    second = Job.objects.create(agent=other, workloads=["tabular"], time_limit_s=120, deadline_at=timezone.now())
    job_claim(job_id=job.pk, agent_name="gpu01")
    job_claim(job_id=second.pk, agent_name="gpu02")
    job.agent.delete()  # the job keeps running with agent = NULL
    dispatched = []
    monkeypatch.setattr("agents.jobs.job_dispatch", lambda job: dispatched.append(job.pk))
    with django_capture_on_commit_callbacks(execute=True):
        actions = jobs_reap(now=timezone.now() + timedelta(seconds=120 + 120 + 1))

    assert sorted(actions) == sorted([(str(job.pk), "failed"), (str(second.pk), "requeued")])
    job.refresh_from_db()
    assert job.state == "failed" and "its agent was deleted" in job.error
    assert dispatched == [second.pk]


def test_a_requeued_job_whose_agent_is_deleted_before_it_is_sent_fails_instead(job, django_capture_on_commit_callbacks):
    from agents.models import Agent

    job_claim(job_id=job.pk, agent_name="gpu01")
    with django_capture_on_commit_callbacks(execute=False) as callbacks:
        assert jobs_reap(now=timezone.now() + timedelta(seconds=120 + 120 + 1)) == [(str(job.pk), "requeued")]
    Agent.objects.filter(pk=job.agent_id).delete()  # between the pass's commit and its callback
    for callback in callbacks:
        callback()
    job.refresh_from_db()
    assert job.state == "failed" and "deleted before the job could be requeued" in job.error
