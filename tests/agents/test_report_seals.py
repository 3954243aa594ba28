"""Issue 26, item 2: agents' reports are sealed over a time and a nonce; old or repeated ones are refused and
counted; an agent only enrolled is "enrolled", not online, until it speaks."""

import logging
import time
from datetime import timedelta

import pytest
from django.utils import timezone

from agents.control import report_nonces_prune
from agents.models import Agent, AgentReportNonce, Job
from agents.registry import agent_enroll, agent_register
from agents.signing import seal
from agents.tasks import agent_heartbeat, ingest_job_result, job_started, register_agent
from results.models import BenchmarkRun, QuarantinedPayload

CPU = [{"type": "cpu", "name": "Test CPU", "vcpu_count": 4}]


@pytest.fixture
def broker_settings(settings):
    settings.CELERY_BROKER_URL = "redis://127.0.0.1:1/0"  # reports are checked as if they came over a broker
    settings.INFERLEDGER_AGENT_MESSAGE_MAX_AGE_S = 900
    return settings


@pytest.fixture
def secret(catalog, broker_settings):
    _agent, secret = agent_enroll(name="gpu01")
    agent_register(report={"name": "gpu01", "devices": CPU}, seen_at=timezone.now() - timedelta(hours=1))
    return secret


def _heartbeat(secret, running=(), **seal_options):
    args = ["gpu01", list(running)]
    report_seal = seal(secret, "agents.agent_heartbeat", args, **seal_options)
    agent_heartbeat.apply(args=args, kwargs={"seal": report_seal}).get()
    return report_seal


def test_it_refuses_a_replayed_heartbeat_and_counts_it(secret, caplog):
    signed_at = time.time() - 10
    first = _heartbeat(secret, signed_at=signed_at)
    assert Agent.objects.get(name="gpu01").last_seen_at.timestamp() == pytest.approx(signed_at, abs=0.01)
    Agent.objects.filter(name="gpu01").update(last_seen_at=timezone.now() - timedelta(hours=1))  # it died since

    with caplog.at_level(logging.WARNING, logger="agents.control"):
        _heartbeat(secret, signed_at=first["signed_at"], nonce=first["nonce"])  # the captured copy, sent again
    agent = Agent.objects.get(name="gpu01")
    assert agent.status == "offline"  # the copy did not bring it back
    assert agent.refused_reports == 1 and "repeated report" in agent.last_refused_reason
    assert "agents.agent_heartbeat from agent 'gpu01' refused: repeated report" in caplog.text


def test_it_refuses_a_report_signed_before_the_window(secret):
    Agent.objects.filter(name="gpu01").update(last_seen_at=None)
    _heartbeat(secret, signed_at=time.time() - 901)  # 901 s old > the 900 s window
    agent = Agent.objects.get(name="gpu01")
    assert agent.last_seen_at is None and agent.refused_reports == 1
    assert "older than the 900 s window" in agent.last_refused_reason


def test_it_refuses_a_report_signed_in_the_future(secret):
    _heartbeat(secret, signed_at=time.time() + 300)  # 300 s ahead > 60 s of clock skew
    assert "in the future" in Agent.objects.get(name="gpu01").last_refused_reason


def test_a_late_heartbeat_does_not_make_the_agent_look_fresher(secret):
    now = time.time()
    _heartbeat(secret, signed_at=now - 100)
    _heartbeat(secret, signed_at=now - 200)  # delayed in a queue: arrives second, signed first
    seen = Agent.objects.get(name="gpu01").last_seen_at.timestamp()
    assert seen == pytest.approx(now - 100, abs=0.01)


def test_a_changed_argument_breaks_the_seal(secret):
    report_seal = seal(secret, "agents.agent_heartbeat", ["gpu01", []])
    agent_heartbeat.apply(args=["gpu01", ["9b2f6c1e-8a57-4c3a-9f0e-3d2b1a0c9e8d"]], kwargs={"seal": report_seal}).get()
    assert "signature does not verify" in Agent.objects.get(name="gpu01").last_refused_reason


def test_an_enrolled_agent_is_enrolled_not_online_until_it_speaks(catalog, broker_settings, staff_api):
    _agent, secret = agent_enroll(name="fresh")
    assert Agent.objects.get(name="fresh").status == "enrolled"
    assert not Agent.objects.online().filter(name="fresh").exists()  # jobs for its accelerator do not go to it
    assert staff_api.get("/api/v1/agents/").data["results"][0]["status"] == "enrolled"

    report = {"name": "fresh", "devices": CPU}
    register_agent.apply(args=[report], kwargs={"seal": seal(secret, "agents.register_agent", [report])}).get()
    agent = Agent.objects.get(name="fresh")
    assert agent.status == "online" and agent.first_seen_at == agent.last_seen_at


def test_it_quarantines_a_replayed_result_with_the_reason(secret, result_payload):
    job = Job.objects.create(agent=Agent.objects.get(name="gpu01"), workloads=["tabular"], time_limit_s=120)
    args = [str(job.pk), result_payload, "gpu01"]
    report_seal = seal(secret, "agents.ingest_job_result", args)
    assert ingest_job_result.apply(args=args, kwargs={"seal": report_seal}).get() == "stored"
    assert ingest_job_result.apply(args=args, kwargs={"seal": report_seal}).get() == "quarantined"
    assert BenchmarkRun.objects.count() == 1
    assert "repeated report" in QuarantinedPayload.objects.get().reason
    assert Agent.objects.get(name="gpu01").refused_reports == 1


def test_a_replayed_start_report_does_not_count_an_attempt(secret):
    job = Job.objects.create(agent=Agent.objects.get(name="gpu01"), workloads=["tabular"], time_limit_s=120)
    args = [str(job.pk), "gpu01"]
    report_seal = seal(secret, "agents.job_started", args)
    for _copy in range(3):
        job_started.apply(args=args, kwargs={"seal": report_seal}).get()
    job.refresh_from_db()
    assert job.state == "running" and job.attempts == 1  # the 2 copies would have made it 3: the attempt cap


def test_the_reaper_forgets_nonces_only_past_the_window(secret):
    now = time.time()
    _heartbeat(secret, signed_at=now - 10)
    assert report_nonces_prune() == 0
    # 900 s window + 60 s of skew: 961 s later the nonce is refused by its age anyway.
    assert report_nonces_prune(now=timezone.now() + timedelta(seconds=961)) == 1
    assert not AgentReportNonce.objects.exists()
