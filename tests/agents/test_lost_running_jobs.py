"""Issue 26, item 5: a running job whose message was lost with the broker is told from its agent's heartbeats
(which list the jobs the agent holds) and sent again, or failed with the reason, long before its deadline."""

from datetime import timedelta

import pytest
from django.utils import timezone

from agents.broker_health import jobs_known_to_broker
from agents.jobs import job_claim, jobs_reap, jobs_reported_running
from agents.models import Job
from agents.registry import agent_enroll, agent_register
from agents.registry import agent_heartbeat as agent_seen

pytestmark = pytest.mark.redis
CPU = [{"type": "cpu", "name": "Test CPU", "vcpu_count": 4}]


@pytest.fixture
def agent(celery_broker, catalog, settings):
    settings.INFERLEDGER_LOST_JOB_GRACE_S = 120
    agent_enroll(name="gpu01")
    return agent_register(report={"name": "gpu01", "devices": CPU}, seen_at=timezone.now() - timedelta(hours=1))


def agent_heartbeat(*, name, seen_at, running_job_ids):
    """What agents.tasks.agent_heartbeat does with an accepted heartbeat."""
    jobs_reported_running(agent=agent_seen(name=name, seen_at=seen_at), job_ids=running_job_ids, at=seen_at)


def _running(agent, started_at, attempts=0):
    job = Job.objects.create(agent=agent, workloads=["tabular"], time_limit_s=3600, attempts=attempts,
                             deadline_at=started_at + timedelta(seconds=3600 + 120))  # fmt: skip
    job_claim(job_id=job.pk, agent_name=agent.name, at=started_at)
    return job


def test_it_redispatches_a_running_job_its_agent_stopped_listing(agent):
    t0 = timezone.now() - timedelta(minutes=10)
    lost, alive = _running(agent, t0), _running(agent, t0)
    # Redis restarted at t0 + 60 s: the agent's task was cancelled; its heartbeats list only the other job.
    agent_heartbeat(name="gpu01", seen_at=t0 + timedelta(seconds=30), running_job_ids=[str(lost.pk), str(alive.pk)])
    agent_heartbeat(name="gpu01", seen_at=t0 + timedelta(seconds=151), running_job_ids=[str(alive.pk)])
    # 151 s - 30 s = 121 s > the 120 s grace without listing it: lost. Its deadline is 62 minutes away.

    assert jobs_reap() == [(str(lost.pk), "redispatched")]
    lost.refresh_from_db()
    assert lost.state == "queued" and lost.redispatches == 1 and "stopped reporting it" in lost.error
    assert jobs_known_to_broker([lost.pk], [agent.queue]) == {str(lost.pk)}  # sent again, once
    assert Job.objects.get(pk=alive.pk).state == "running"
    assert jobs_reap() == []


def test_it_waits_while_the_agent_is_silent_or_within_the_grace(agent):
    t0 = timezone.now() - timedelta(minutes=10)
    job = _running(agent, t0)
    agent_heartbeat(name="gpu01", seen_at=t0 + timedelta(seconds=119), running_job_ids=[])  # within 120 s
    assert jobs_reap() == []
    job.refresh_from_db()
    assert job.state == "running"


def test_it_leaves_a_job_whose_message_waits_in_the_agents_queue(agent):
    from agents.jobs import job_dispatch

    t0 = timezone.now() - timedelta(minutes=10)
    job = _running(agent, t0)
    job_dispatch(job)  # e.g. restored to the queue after the restart: the agent will take it again
    agent_heartbeat(name="gpu01", seen_at=t0 + timedelta(seconds=300), running_job_ids=[])
    assert jobs_reap() == []


def test_it_fails_a_lost_running_job_past_the_attempt_limit_with_the_reason(agent, settings):
    t0 = timezone.now() - timedelta(minutes=10)
    job = _running(agent, t0, attempts=settings.INFERLEDGER_JOB_MAX_ATTEMPTS - 1)  # this start is the 3rd
    agent_heartbeat(name="gpu01", seen_at=t0 + timedelta(seconds=300), running_job_ids=[])
    assert jobs_reap() == [(str(job.pk), "failed")]
    job.refresh_from_db()
    assert job.state == "failed" and "not sent again after 3 attempts" in job.error
