"""Issue 26, item 5: creating a job while the broker is down answers 503 with Retry-After and says the job was
kept; an Idempotency-Key makes a retried create return that job instead of making a second one."""

from datetime import timedelta

import pytest
from django.utils import timezone

from agents.jobs import jobs_reap
from agents.models import Job
from agents.registry import agent_enroll, agent_register
from tests.agents.conftest import _reset_producer_pools

CPU = [{"type": "cpu", "name": "Test CPU", "vcpu_count": 4}]
SPEC = {"agent": "gpu01", "workloads": ["tabular"], "scenarios": ["single-stream"]}


@pytest.fixture
def broker_down(settings):
    """Publishing goes to a port nothing listens on (a Redis restarting)."""
    from inferledger.celery import app

    url = "redis://127.0.0.1:1/0"
    saved = {key: app.conf[key] for key in ("broker_url", "result_backend", "task_always_eager")}
    app.conf.update(broker_url=url, result_backend=None, task_always_eager=False)
    settings.CELERY_BROKER_URL = url
    _reset_producer_pools(app)
    yield app
    app.conf.update(saved)
    _reset_producer_pools(app)


@pytest.fixture
def agent(transactional_db, catalog):
    agent_enroll(name="gpu01")
    return agent_register(report={"name": "gpu01", "devices": CPU})


def test_it_answers_503_with_retry_after_and_keeps_the_job_when_the_broker_is_down(broker_down, agent, staff_api):
    response = staff_api.post("/api/v1/jobs/", SPEC, format="json")
    assert response.status_code == 503 and response["Retry-After"] == "30"
    job = Job.objects.get()
    assert response.json() == {
        "detail": f"The message broker cannot be reached. Job {job.pk} was kept (queued) and is sent to its agent "
        "when the broker is back; do not create it again.",
        "job": str(job.pk),
        "kept": True,
    }
    assert job.state == "queued" and job.dispatched_at is None  # the reaper sends it once the broker is back


def test_a_create_retried_with_its_idempotency_key_returns_the_same_job(broker_down, agent, staff_api):
    headers = {"HTTP_IDEMPOTENCY_KEY": "nightly-2026-11-25"}
    first = staff_api.post("/api/v1/jobs/", SPEC, format="json", **headers)
    assert first.status_code == 503
    retry = staff_api.post("/api/v1/jobs/", SPEC, format="json", **headers)
    assert retry.status_code == 200 and retry.data["id"] == first.json()["job"]
    assert Job.objects.count() == 1


def test_an_idempotency_key_reused_for_another_job_is_a_conflict(broker_down, agent, staff_api):
    headers = {"HTTP_IDEMPOTENCY_KEY": "k1"}
    staff_api.post("/api/v1/jobs/", SPEC, format="json", **headers)
    other = staff_api.post("/api/v1/jobs/", SPEC | {"scenarios": ["offline"]}, format="json", **headers)
    assert other.status_code == 409 and "differs in: scenarios" in other.data["detail"]
    assert Job.objects.count() == 1


@pytest.mark.redis
def test_the_kept_job_is_sent_once_when_the_broker_is_back(broker_down, agent, staff_api, settings, celery_broker):
    # broker_down first, then celery_broker: publishing now reaches the test Redis (the broker is back).
    from agents.broker_health import jobs_known_to_broker

    job = Job.objects.create(agent=agent, workloads=["tabular"])  # as kept by the 503 above: never dispatched
    settings.INFERLEDGER_LOST_JOB_GRACE_S = 60
    later = timezone.now() + timedelta(seconds=61)
    assert jobs_reap(now=later) == [(str(job.pk), "redispatched")]
    assert jobs_known_to_broker([job.pk], [agent.queue]) == {str(job.pk)}
    assert jobs_reap(now=later) == []
