"""Issue 26, item 12: a signed result that arrives for a job that has already ended is quarantined with the reason,
never attached to it; a redelivered copy of one of its stored runs is still the duplicate it is."""

import copy
import uuid

import pytest

from agents.jobs import job_cancel, job_claim, job_finish
from agents.models import Job
from agents.registry import agent_enroll, agent_register
from agents.signing import seal
from agents.tasks import ingest_job_result
from results.models import BenchmarkRun, QuarantinedPayload

CPU = [{"type": "cpu", "name": "Test CPU", "vcpu_count": 4}]


@pytest.fixture
def job(catalog, settings):
    settings.CELERY_BROKER_URL = "redis://127.0.0.1:1/0"  # reports are checked as if they came over a broker
    agent_enroll(name="gpu01")
    agent = agent_register(report={"name": "gpu01", "devices": CPU})
    return Job.objects.create(agent=agent, workloads=["tabular"], time_limit_s=120)


def _send(job, payload) -> str:
    args = [str(job.pk), payload, "gpu01"]
    return ingest_job_result.apply(args=args, kwargs={"seal": seal(job.agent.signing_key, "agents.ingest_job_result",
                                                                     args)}).get()  # fmt: skip


def test_a_result_for_a_finished_job_is_quarantined_not_attached(job, result_payload):
    job_claim(job_id=job.pk, agent_name="gpu01")
    assert _send(job, result_payload) == "stored"
    job_finish(job_id=job.pk, run_ids=[result_payload["run_id"]], skips=[])

    late = copy.deepcopy(result_payload) | {"run_id": str(uuid.uuid4())}
    assert _send(job, late) == "quarantined"
    assert list(BenchmarkRun.objects.filter(job=job).values_list("pk", flat=True)) == [
        uuid.UUID(result_payload["run_id"])
    ]
    entry = QuarantinedPayload.objects.get()
    assert f"job {job.pk} had already ended (succeeded)" in entry.reason and entry.run_id is None
    assert Job.objects.get(pk=job.pk).state == "succeeded"  # and the job is left as it ended


def test_a_redelivered_copy_of_a_stored_run_is_a_duplicate_not_a_quarantine(job, result_payload):
    job_claim(job_id=job.pk, agent_name="gpu01")
    assert _send(job, result_payload) == "stored"
    job_finish(job_id=job.pk, run_ids=[result_payload["run_id"]], skips=[])
    assert _send(job, copy.deepcopy(result_payload)) == "duplicate"  # the agent re-ran it after a redelivery
    assert not QuarantinedPayload.objects.exists()


def test_a_result_for_a_cancelled_job_is_quarantined(job, result_payload):
    job_cancel(job=job, by="ops")
    assert _send(job, result_payload) == "quarantined"
    assert not BenchmarkRun.objects.exists()
    assert "had already ended (cancelled)" in QuarantinedPayload.objects.get().reason
