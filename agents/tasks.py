"""Celery tasks: thin wrappers that take ids, re-fetch, and call one service.

``run_job`` executes on an agent (queue ``agent.<name>``) and never touches the database: it reports
start, progress, results and the end as tasks on the control queue, which the control worker runs.
Every other task here runs on the control worker.
"""

from __future__ import annotations

import logging
import traceback

from celery import shared_task
from celery.exceptions import SoftTimeLimitExceeded
from django.conf import settings
from django.db import InterfaceError, OperationalError

from . import agent_runtime  # noqa: F401  (connects the agent's registration and heartbeat to worker start)

# Control tasks retry transient database errors only, with jittered exponential backoff.
CONTROL_TASK = {
    "autoretry_for": (OperationalError, InterfaceError),
    "retry_backoff": True,
    "retry_backoff_max": settings.INFERLEDGER_RETRY_BACKOFF_MAX_S,
    "retry_jitter": True,
    "max_retries": 5,
}
FINISH_WAIT_RETRIES, FINISH_WAIT_S = 20, 3
logger = logging.getLogger(__name__)


@shared_task(
    bind=True,
    name="agents.run_job",
    acks_late=True,  # redelivered if the agent dies mid-run; ingest is idempotent per run
    reject_on_worker_lost=True,  # a killed pool child requeues at once; Job.attempts caps the loop
    time_limit=settings.INFERLEDGER_JOB_TIME_LIMIT_MAX_S,  # each job sends its own, smaller limits
    soft_time_limit=settings.INFERLEDGER_JOB_TIME_LIMIT_MAX_S - settings.INFERLEDGER_JOB_SOFT_MARGIN_S,
)
def run_job(self, job_id: str, spec: dict, agent_name: str) -> dict:
    """On the agent: run the job's items with the harness and send every result to the control plane."""
    from .agent_job import execute_job

    job_started.delay(job_id, agent_name)
    try:
        report = execute_job(
            job_id,
            spec,
            progress=lambda percent, point: job_progress.delay(job_id, percent, point),
            deliver=lambda payload: ingest_job_result.delay(job_id, payload),
        )
    except SoftTimeLimitExceeded:
        job_finished.delay(job_id, [], [], f"exceeded its time limit ({spec.get('time_limit_s')} s)")
        return {"error": "time limit"}
    except Exception as exc:  # a benchmark that breaks fails its job with the reason; it is not retried
        logger.exception("job %s failed", job_id)
        job_finished.delay(job_id, [], [], f"{type(exc).__name__}: {exc}\n\n{traceback.format_exc()}")
        return {"error": str(exc)}
    job_finished.delay(job_id, report.run_ids, report.skips, report.error)
    return {"run_ids": report.run_ids, "skipped": len(report.skips)}


@shared_task(name="agents.register_agent", **CONTROL_TASK)
def register_agent(report: dict) -> None:
    from .registry import agent_register

    agent_register(report=report)


@shared_task(name="agents.agent_heartbeat", **CONTROL_TASK)
def agent_heartbeat(name: str) -> None:
    from .registry import agent_heartbeat as heartbeat

    heartbeat(name=name)


@shared_task(name="agents.job_started", **CONTROL_TASK)
def job_started(job_id: str, agent_name: str) -> None:
    from .jobs import job_claim

    job_claim(job_id=job_id, agent_name=agent_name)


@shared_task(name="agents.job_progress", **CONTROL_TASK)
def job_progress(job_id: str, percent: float, point: str) -> None:
    from .jobs import job_progress as progress

    progress(job_id=job_id, percent=percent, point=point)


@shared_task(name="agents.ingest_job_result", **CONTROL_TASK)
def ingest_job_result(job_id: str, payload: dict) -> str:
    from .jobs import job_ingest

    return job_ingest(job_id=job_id, payload=payload).status


@shared_task(bind=True, name="agents.job_finished", **CONTROL_TASK)
def job_finished(self, job_id: str, run_ids: list, skips: list, error: str) -> None:
    """Close the job once every result it announces has been ingested (they travel as separate messages)."""
    from .jobs import job_fail, job_finish, job_results_missing

    missing = job_results_missing(job_id=job_id, run_ids=run_ids)
    if missing and self.request.retries < FINISH_WAIT_RETRIES:
        raise self.retry(countdown=FINISH_WAIT_S, max_retries=FINISH_WAIT_RETRIES)
    if missing:
        job_fail(job_id=job_id, reason=f"results never arrived for run(s) {', '.join(sorted(missing))}")
        return
    job_finish(job_id=job_id, run_ids=run_ids, skips=skips, error=error)


@shared_task(name="agents.reap_jobs", **CONTROL_TASK)
def reap_jobs() -> list:
    from .jobs import jobs_reap

    return jobs_reap()


@shared_task(name="agents.fire_schedule", **CONTROL_TASK)
def fire_schedule(schedule_id: int) -> str | None:
    from .schedules import schedule_fire

    job = schedule_fire(schedule_id=schedule_id)
    return str(job.pk) if job else None
