"""Celery tasks: thin wrappers that take ids, re-fetch, and call one service.

``run_job`` executes on an agent (queue ``agent.<name>``) and never touches the database: it reports
start, progress, results and the end as tasks on the control queue, which the control worker runs.
Every report is signed with the agent's secret (agents.signing) and checked before it changes anything.
Every other task here runs on the control worker, through database outages (inferledger.control_tasks).
"""

from __future__ import annotations

import logging
import math
import time
import traceback

from celery import shared_task
from celery.exceptions import SoftTimeLimitExceeded
from django.conf import settings
from django.db import transaction
from django.utils.crypto import constant_time_compare, salted_hmac

from inferledger.control_tasks import control_task

from . import signing
from .control import CheckedReport, checked_report
from .jobs import RUN_JOB_TASK

logger = logging.getLogger(__name__)

# job_finished waits for the job's results (separate messages) in short in-process polls, re-queueing
# itself behind them between polls (never a countdown message), for at most FINISH_WAIT_S in all.
FINISH_POLL_S, FINISH_WAIT_S = 5.0, 120.0
# Agents' reports retry publishing through a broker outage (Redis restarting) for about this long.
REPORT_RETRY_POLICY = {
    "max_retries": math.ceil(settings.INFERLEDGER_REPORT_PUBLISH_RETRY_S / 5) + 4,
    "interval_start": 0,
    "interval_step": 1,
    "interval_max": 5,
}


def send_report(task, *args) -> None:
    """Publish an agent's report to the control plane, sealed (signed now, with a nonce), retrying through a
    broker outage."""
    report = list(args)
    secret = settings.INFERLEDGER_AGENT_SECRET
    task.apply_async(
        args=report,
        kwargs={signing.SEAL_KWARG: signing.seal(secret, task.name, report) if secret else None},
        retry=True,
        retry_policy=REPORT_RETRY_POLICY,
    )


def _checked(task, agent_name: str, args: list, report_seal, *, repeat_allowed: bool = False) -> CheckedReport:
    received_at = getattr(task.request, "received_at", None) or time.time()
    return checked_report(
        task.name, agent_name, args, report_seal, received_at=received_at, repeat_allowed=repeat_allowed
    )


@shared_task(
    bind=True,
    name=RUN_JOB_TASK,
    acks_late=True,  # redelivered if the agent dies mid-run; ingest is idempotent per run
    reject_on_worker_lost=True,  # a killed pool child requeues at once; Job.attempts caps the loop
    time_limit=settings.INFERLEDGER_JOB_TIME_LIMIT_MAX_S,  # each job sends its own, smaller limits
    soft_time_limit=settings.INFERLEDGER_JOB_TIME_LIMIT_MAX_S - settings.INFERLEDGER_JOB_SOFT_MARGIN_S,
)
def run_job(self, job_id: str, spec: dict, agent_name: str) -> dict:
    """On the agent: run the job's items with the harness and send every result to the control plane."""
    from harness.host.job import execute_job

    send_report(job_started, job_id, agent_name)
    try:
        report = execute_job(
            job_id,
            spec,
            progress=lambda percent, point: send_report(job_progress, job_id, percent, point, agent_name),
            deliver=lambda payload: send_report(ingest_job_result, job_id, payload, agent_name),
        )
    except SoftTimeLimitExceeded:
        error = f"exceeded its time limit ({spec.get('time_limit_s')} s)"
        send_report(job_finished, job_id, [], [], error, agent_name)
        return {"error": "time limit"}
    except Exception as exc:  # a benchmark that breaks fails its job with the reason; it is not retried
        logger.exception("job %s failed", job_id)
        error = f"{type(exc).__name__}: {exc}\n\n{traceback.format_exc()}"
        send_report(job_finished, job_id, [], [], error, agent_name)
        return {"error": str(exc)}
    send_report(job_finished, job_id, report.run_ids, report.skips, report.error, agent_name)
    return {"run_ids": report.run_ids, "skipped": len(report.skips)}


@control_task("agents.register_agent", atomic=True)
def register_agent(self, report: dict, seal: dict | None = None) -> None:
    from .registry import agent_register

    checked = _checked(self, str(report.get("name", "")), [report], seal)
    if not checked.refusal:
        agent_register(report=report, seen_at=checked.signed_at)


@control_task("agents.agent_heartbeat", atomic=True)
def agent_heartbeat(self, name: str, running_job_ids: list, seal: dict | None = None) -> None:
    """The agent is alive as of the report's signing time, holding these jobs (what the reaper needs to tell a
    job lost with the broker from one still running)."""
    from .jobs import jobs_reported_running
    from .registry import agent_heartbeat as heartbeat

    checked = _checked(self, name, [name, running_job_ids], seal)
    agent = None if checked.refusal else heartbeat(name=name, seen_at=checked.signed_at)
    if agent is not None:  # the jobs it lists are alive as of then (agents.jobs.jobs_recover_lost reads that)
        jobs_reported_running(agent=agent, job_ids=[str(job) for job in running_job_ids], at=checked.signed_at)


def _owning_agent(task, job_id: str, agent_name: str, args: list, report_seal, **options) -> CheckedReport | None:
    """The accepted report when its verified sender is the job's agent; None (logged) otherwise."""
    from .jobs import job_owned_by

    checked = _checked(task, agent_name, args, report_seal, **options)
    if checked.refusal:
        return None
    if checked.agent is not None and not job_owned_by(job_id=job_id, agent=checked.agent):
        logger.warning("%s refused: job %s is not agent %s's", task.name, job_id, checked.agent.name)
        return None
    return checked


@control_task("agents.job_started", atomic=True)
def job_started(self, job_id: str, agent_name: str, seal: dict | None = None) -> None:
    from .jobs import job_claim

    checked = _owning_agent(self, job_id, agent_name, [job_id, agent_name], seal)
    if checked:
        job_claim(job_id=job_id, agent_name=agent_name, at=checked.signed_at)


@control_task("agents.job_progress", atomic=True)
def job_progress(self, job_id: str, percent: float, point: str, agent_name: str = "", seal=None) -> None:
    from .jobs import job_progress as progress

    checked = _owning_agent(self, job_id, agent_name, [job_id, percent, point, agent_name], seal)
    if checked:
        progress(job_id=job_id, percent=percent, point=point, at=checked.signed_at)


@control_task("agents.ingest_job_result", atomic=True)
def ingest_job_result(self, job_id: str, payload, agent_name: str = "", seal: dict | None = None) -> str:
    """Store a result only from the registered agent that owns the job; anything else is quarantined."""
    from results.ingest import quarantine_payload

    from .control import DATABASE_ERRORS
    from .jobs import job_ingest

    source = f"agent {agent_name}" if agent_name else "agent"
    checked = _checked(self, agent_name, [job_id, payload, agent_name], seal)
    if checked.refusal:  # forged or replayed: kept bounded, as any unverified sender's message
        reason = f"refused: {checked.refusal} (job {job_id})"
        return quarantine_payload(payload, reason=reason, source=source, link_run=False, sender_verified=False).status
    try:
        with transaction.atomic():  # a failed ingest leaves the report's transaction usable for the quarantine
            return job_ingest(job_id=job_id, payload=payload, sender=checked.agent).status
    except Exception as exc:
        if isinstance(exc, DATABASE_ERRORS):
            raise
        # Never ack a result that was not stored: keep it, with the reason, for an operator to replay.
        logger.exception("ingest of a result of job %s failed", job_id)
        return quarantine_payload(payload, reason=f"ingest failed: {type(exc).__name__}: {exc}", source=source).status


def _requeue_token(report_seal, waited_s: float) -> str:
    """The control plane's own mark on a job_finished it sent back to its queue (an agent cannot make one)."""
    nonce = str((report_seal or {}).get("nonce", ""))
    return salted_hmac("agents.job_finished.requeue", f"{nonce}:{float(waited_s)!r}").hexdigest()


@control_task("agents.job_finished", atomic=True)
def job_finished(
    self,
    job_id: str,
    run_ids: list,
    skips: list,
    error: str,
    agent_name: str = "",
    seal=None,
    waited_s=0.0,
    requeue_token: str = "",
) -> None:
    """Close the job once every result it announces has been ingested (they travel as separate messages)."""
    from .jobs import job_fail, job_finish, job_results_missing

    args = [job_id, run_ids, skips, error, agent_name]
    requeued = bool(requeue_token) and constant_time_compare(requeue_token, _requeue_token(seal, waited_s))
    if not _owning_agent(self, job_id, agent_name, args, seal, repeat_allowed=requeued):
        return
    polled_at = time.monotonic()
    missing = job_results_missing(job_id=job_id, run_ids=run_ids)
    while missing and time.monotonic() - polled_at < FINISH_POLL_S:
        time.sleep(0.5)
        missing = job_results_missing(job_id=job_id, run_ids=run_ids)
    waited_s = float(waited_s) + (time.monotonic() - polled_at)
    if missing and waited_s < FINISH_WAIT_S and not self.request.is_eager:
        # Behind the results still queued: re-send now (no countdown: ETA messages are held by the worker), once
        # this transaction (the nonce it spent) is committed.
        kwargs = {"seal": seal, "waited_s": waited_s, "requeue_token": _requeue_token(seal, waited_s)}
        transaction.on_commit(lambda: self.apply_async(args=args, kwargs=kwargs))
        return
    if missing:
        job_fail(job_id=job_id, reason=f"results never arrived for run(s) {', '.join(sorted(missing))}")
        return
    job_finish(job_id=job_id, run_ids=run_ids, skips=skips, error=error)


@control_task("agents.reap_jobs")
def reap_jobs(self) -> list:
    from .control import report_nonces_prune
    from .jobs import jobs_reap

    report_nonces_prune()
    return jobs_reap()


@control_task("agents.control_heartbeat")
def control_heartbeat(self) -> str:
    from .liveness import control_worker_seen

    return control_worker_seen(hostname=self.request.hostname or "control").status


@control_task("agents.fire_schedule")
def fire_schedule(self, schedule_id: int) -> str | None:
    from .schedules import schedule_fire

    job = schedule_fire(schedule_id=schedule_id)
    return str(job.pk) if job else None
