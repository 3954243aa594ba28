"""Issue 17, services: database outages, lost broker messages, the broker's persistence, signed agent reports."""

from datetime import timedelta

import pytest
from celery.exceptions import Reject
from django.db import OperationalError
from django.utils import timezone

from agents.broker_health import jobs_known_to_broker, persistence_warning
from agents.jobs import job_claim, job_finish, job_progress, jobs_reap
from agents.models import ControlWorker, Job
from agents.registry import agent_enroll, agent_register
from agents.signing import seal
from agents.tasks import ingest_job_result, job_finished
from agents.tasks import job_progress as job_progress_task
from inferledger import control_tasks as control
from results.models import BenchmarkRun, QuarantinedPayload
from tests.service_preflight import redis_url

CPU = [{"type": "cpu", "name": "Test CPU", "vcpu_count": 4}]


@pytest.fixture
def agent(catalog):
    agent_enroll(name="gpu01")
    return agent_register(report={"name": "gpu01", "devices": CPU})


@pytest.fixture
def job(agent):
    return Job.objects.create(agent=agent, workloads=["tabular"], time_limit_s=120, deadline_at=timezone.now())


def _failing(times: int, result="done"):
    calls = []

    def call():
        calls.append(1)
        if len(calls) <= times:
            raise OperationalError("connection refused")
        return result

    return call, calls


def test_it_waits_out_transient_database_errors_then_runs_the_call(monkeypatch, settings):
    monkeypatch.setattr(control.time, "sleep", lambda seconds: None)
    call, calls = _failing(7)
    assert control.through_database_outage(call, what="test") == "done"
    assert len(calls) == 8  # 5 retries (the old autoretry budget) would have given up and acked the message


def test_it_requeues_the_message_when_the_database_stays_down_past_the_limit(db, monkeypatch, settings):
    settings.INFERLEDGER_DB_OUTAGE_MAX_S = 0
    call, _calls = _failing(99)
    monkeypatch.setattr("agents.jobs.job_progress", lambda **kwargs: call())
    with pytest.raises(Reject) as rejected:
        job_progress_task.run("00000000-0000-4000-8000-000000000000", 50.0, "point")  # as a worker runs it
    assert rejected.value.requeue  # back to its queue, never acked unstored


def test_it_does_not_wait_for_the_database_when_a_task_runs_in_process(db):
    call, calls = _failing(1)
    with pytest.raises(OperationalError):
        control.through_database_outage(call, what="test", eager=True)
    assert len(calls) == 1


def test_it_finishes_a_job_still_queued_when_its_run_is_stored(job, result_payload):
    # The start report was lost or is still queued behind a database outage; the run arrived.
    ingest_job_result.apply(args=[str(job.pk), result_payload]).get()
    job_progress(job_id=job.pk, percent=40.0, point="tabular single-stream")
    assert Job.objects.get(pk=job.pk).progress_pct == 40.0  # progress of a queued job is kept too
    job_finish(job_id=job.pk, run_ids=[result_payload["run_id"]], skips=[])
    job.refresh_from_db()
    assert job.state == "succeeded" and job.attempts == 1 and job.started_at and job.finished_at
    assert not job_claim(job_id=job.pk, agent_name="gpu01")  # its late start report changes nothing


def test_it_fails_a_job_whose_results_never_arrive_without_a_countdown_message(job, monkeypatch):
    monkeypatch.setattr("agents.tasks.FINISH_POLL_S", 0.0)
    job_claim(job_id=job.pk, agent_name="gpu01")
    job_finished.apply(args=[str(job.pk), ["6f1c2a52-0d7e-4f4e-9d55-6a1b7b0c2e11"], [], ""]).get()
    job.refresh_from_db()
    assert job.state == "failed" and "results never arrived" in job.error


def _signed_ingest(job_id, payload, agent_name, secret):
    args = [str(job_id), payload, agent_name]
    report_seal = seal(secret, "agents.ingest_job_result", args) if secret else None
    return ingest_job_result.apply(args=args, kwargs={"seal": report_seal}).get()


@pytest.fixture
def broker_settings(settings):
    settings.CELERY_BROKER_URL = "redis://127.0.0.1:1/0"  # reports are checked as if they came over a broker
    return settings


def test_it_stores_a_result_signed_by_the_agent_that_owns_the_job(broker_settings, job, result_payload):
    secret = job.agent.signing_key
    assert _signed_ingest(job.pk, result_payload, "gpu01", secret) == "stored"
    assert BenchmarkRun.objects.get().agent == job.agent


def test_it_quarantines_a_result_for_an_unknown_job_and_stores_nothing(broker_settings, agent, result_payload):
    unknown = "9b2f6c1e-8a57-4c3a-9f0e-3d2b1a0c9e8d"
    assert _signed_ingest(unknown, result_payload, "gpu01", agent.signing_key) == "quarantined"
    assert not BenchmarkRun.objects.exists()
    entry = QuarantinedPayload.objects.get()
    assert f"unknown job {unknown}" in entry.reason and entry.raw and entry.run_id is None


def test_it_quarantines_a_result_from_another_agent_and_leaves_the_job_alone(broker_settings, job, result_payload):
    _other, other_secret = agent_enroll(name="intruder")
    agent_register(report={"name": "intruder", "devices": CPU})
    assert _signed_ingest(job.pk, result_payload, "intruder", other_secret) == "quarantined"
    assert not BenchmarkRun.objects.exists()
    assert "belongs to gpu01, not agent intruder" in QuarantinedPayload.objects.get().reason
    assert Job.objects.get(pk=job.pk).state == "queued"


@pytest.mark.parametrize("secret", ["", "0" * 64], ids=["unsigned", "forged"])
def test_it_quarantines_a_result_that_is_not_signed_with_the_agents_secret(broker_settings, job, result_payload,
                                                                           secret):  # fmt: skip
    assert _signed_ingest(job.pk, result_payload, "gpu01", secret) == "quarantined"
    assert not BenchmarkRun.objects.exists()
    assert "signature does not verify for agent 'gpu01'" in QuarantinedPayload.objects.get().reason


def test_it_ignores_progress_and_registration_without_a_valid_signature(broker_settings, job):
    from agents.tasks import register_agent

    job_progress_task.apply(
        args=[str(job.pk), 50.0, "p", "gpu01"], kwargs={"seal": {"signed_at": 1.0, "nonce": "n", "signature": "0" * 64}}
    ).get()
    register_agent.apply(args=[{"name": "rogue", "devices": CPU}]).get()
    assert Job.objects.get(pk=job.pk).progress_pct == 0.0
    assert not job.agent.__class__.objects.filter(name="rogue").exists()


def test_it_names_the_missing_persistence_of_the_broker():
    assert persistence_warning({"appendonly": "yes", "save": ""}) == ""
    assert "no persistence" in persistence_warning({"appendonly": "no", "save": ""})
    assert "RDB snapshots" in persistence_warning({"appendonly": "no", "save": "3600 1"})
    assert "could not read" in persistence_warning({"error": "ConnectionError: refused"})


@pytest.mark.redis
def test_it_reports_the_control_workers_heartbeat_and_the_brokers_persistence(db, settings, api):
    from agents.tasks import control_heartbeat

    settings.CELERY_BROKER_URL = redis_url()  # the test Redis runs without persistence (--save "" --appendonly no)
    assert api.get("/api/v1/status/").data["control_online"] is False
    control_heartbeat.apply().get()
    body = api.get("/api/v1/status/").data
    assert body["control_online"] is True and body["control_workers"][0]["status"] == "online"
    assert body["broker_persistence"]["appendonly"] == "no" and "no persistence" in body["broker_warning"]
    ControlWorker.objects.update(last_seen_at=timezone.now() - timedelta(hours=1))
    assert api.get("/api/v1/status/").data["control_online"] is False


@pytest.mark.redis
def test_it_redispatches_a_queued_job_whose_message_the_broker_lost(celery_broker, agent, settings):
    from agents.jobs import job_dispatch

    settings.INFERLEDGER_LOST_JOB_GRACE_S = 60
    long_ago = timezone.now() - timedelta(minutes=5)
    lost, waiting = (Job.objects.create(agent=agent, workloads=["tabular"], dispatched_at=long_ago) for _ in "ab")
    job_dispatch(waiting)
    Job.objects.filter(pk=waiting.pk).update(dispatched_at=long_ago)
    both = [lost.pk, waiting.pk]
    assert jobs_known_to_broker(both, [agent.queue]) == {str(waiting.pk)}  # Redis restarted without persistence

    assert jobs_reap() == [(str(lost.pk), "redispatched")]
    assert jobs_known_to_broker(both, [agent.queue]) == {str(waiting.pk), str(lost.pk)}
    lost.refresh_from_db()
    assert lost.state == "queued" and "no longer in the broker" in lost.error and lost.dispatched_at > long_ago
    assert jobs_reap() == []  # within its grace again: sent once


@pytest.mark.redis
def test_it_fails_a_job_whose_message_keeps_vanishing_without_a_start_report(celery_broker, agent, settings):
    settings.INFERLEDGER_LOST_JOB_GRACE_S = 60
    job = Job.objects.create(agent=agent, workloads=["tabular"], dispatched_at=timezone.now() - timedelta(minutes=5))
    for attempt in range(settings.INFERLEDGER_JOB_MAX_ATTEMPTS):
        celery_broker.flushdb()  # the agent took it and died before reporting, again
        later = timezone.now() + timedelta(minutes=5 * (attempt + 1))
        assert jobs_reap(now=later) == [(str(job.pk), "redispatched")]
    celery_broker.flushdb()
    assert jobs_reap(now=timezone.now() + timedelta(hours=1)) == [(str(job.pk), "failed")]
    job.refresh_from_db()
    assert job.state == "failed" and "never reported starting it" in job.error


@pytest.mark.redis
def test_it_does_not_redispatch_a_queued_job_whose_start_report_waits_for_the_control_worker(celery_broker, agent,
                                                                                             settings):  # fmt: skip
    # The agent ran it while PostgreSQL was down: its message is acked, its reports are queued for the control
    # worker, so the job is still "queued" in the database. It is not lost.
    from agents.tasks import job_started, send_report

    settings.INFERLEDGER_LOST_JOB_GRACE_S = 60
    ran = Job.objects.create(agent=agent, workloads=["tabular"], dispatched_at=timezone.now() - timedelta(minutes=5))
    send_report(job_started, str(ran.pk), agent.name)
    assert jobs_known_to_broker([ran.pk], [agent.queue]) == {str(ran.pk)}
    assert jobs_reap() == []
