"""The built-in local agent of the embedded default (no broker): a process beside the web server that
registers this host as agent ``local``, heartbeats, and runs the jobs queued for it one at a time.

A job never runs inside an HTTP request: without a broker ``job_dispatch`` leaves the job queued and this
loop picks it up (``make run`` starts it; ``manage.py run_agent --name local`` starts it by hand). It calls
the same services the Celery tasks call (claim, progress, ingest, finish), directly, since it runs where
the database is. A job an earlier process left running (``make run`` stopped mid-suite) is run again when the
agent starts (``resume_left_running``).
"""

from __future__ import annotations

import fcntl
import hashlib
import logging
import os
import tempfile
import threading
import traceback
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from django.conf import settings
from django.db import close_old_connections, connection

from harness.host.job import execute_job

from .jobs import job_claim, job_fail, job_finish, job_ingest, job_progress, job_spec, spec_for_agent
from .models import Job, JobState
from .registry import agent_heartbeat, local_agent

logger = logging.getLogger(__name__)
POLL_S = 2.0


def run_local_job(job: Job) -> None:
    """Run one queued job of the local agent to its end (succeeded or failed with the reason)."""
    if job.agent is None:
        raise ValueError(f"job {job.pk} has no agent: the local agent runs only its own jobs")
    job_id, agent_name = str(job.pk), job.agent.name
    if not job_claim(job_id=job_id, agent_name=agent_name):
        return
    try:
        report = execute_job(
            job_id,
            spec_for_agent(job_spec(job)),  # the same JSON an agent gets through the broker
            progress=lambda percent, point: job_progress(job_id=job_id, percent=percent, point=point),
            deliver=lambda payload: job_ingest(job_id=job_id, payload=payload),
        )
    except Exception as exc:  # a benchmark that breaks fails its job with the reason
        logger.exception("job %s failed", job_id)
        job_fail(job_id=job_id, reason=f"{type(exc).__name__}: {exc}\n\n{traceback.format_exc()}")
        return
    job_finish(job_id=job_id, run_ids=report.run_ids, skips=report.skips, error=report.error)


def run_pending_local_jobs(agent_name: str = "local") -> int:
    """Run every job queued for the local agent, oldest first; returns how many were started."""
    started = 0
    while True:
        job = (
            Job.objects.select_related("agent")
            .filter(agent__name=agent_name, state=JobState.QUEUED)
            .order_by("created_at")
            .first()
        )
        if job is None:
            return started
        run_local_job(job)
        started += 1


def resume_left_running(agent_name: str = "local") -> int:
    """Run again each job an earlier process of this agent left running (``make run`` stopped mid-suite): the
    built-in agent runs its jobs in its own process, so when no other process serves it (``sole_process``), a job
    still marked running runs nowhere, and would otherwise wait for its deadline (its time limit, 30 minutes for
    the quick suite) and fail. It is taken up as a redelivered job is (job_claim: a new attempt, within
    INFERLEDGER_JOB_MAX_ATTEMPTS; each run is stored once, its id derived from the job's). Returns how many ran."""
    resumed = 0
    for job in (
        Job.objects.select_related("agent")
        .filter(agent__name=agent_name, state=JobState.RUNNING)
        .order_by("created_at")
    ):
        logger.warning(
            "local agent %s: job %s was left running at %.0f %% by an earlier run; running it again (attempt %d)",
            agent_name, job.pk, job.progress_pct or 0.0, job.attempts + 1,
        )  # fmt: skip
        run_local_job(job)
        resumed += 1
    return resumed


@contextmanager
def sole_process(agent_name: str) -> Iterator[bool]:
    """Whether this is the only process serving the built-in agent ``agent_name`` for this database on this host:
    an exclusive lock on a file named after both, which the OS releases when its process ends, however it ends
    (a heartbeat cannot tell: a process stopped a second ago was heard from a second ago)."""
    database = settings.DATABASES["default"]
    digest = hashlib.sha256(f"{database.get('HOST', '')}:{database.get('PORT', '')}:{database['NAME']}".encode())
    path = Path(tempfile.gettempdir()) / f"inferledger-agent-{agent_name}-{digest.hexdigest()[:16]}.lock"
    with path.open("a") as handle:
        try:
            fcntl.flock(handle, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except OSError:
            yield False
            return
        try:
            yield True
        finally:
            fcntl.flock(handle, fcntl.LOCK_UN)


def _heartbeat(name: str, stop: threading.Event, interval_s: float) -> None:
    while not stop.wait(interval_s):
        try:
            agent_heartbeat(name=name)
        except Exception:  # a locked or unreachable database: the next beat may get through
            logger.exception("local agent heartbeat not recorded")
        finally:
            connection.close()


def serve_local_agent(
    name: str = "local", stop: threading.Event | None = None, poll_s: float = POLL_S, once: bool = False
) -> None:
    """Register, heartbeat and run queued jobs until ``stop`` is set or the process that started us exits
    (with ``once``: run the jobs queued now, then return)."""
    with sole_process(name) as alone:
        _serve(name, stop or threading.Event(), poll_s, once, resume=alone)


def _serve(name: str, stop: threading.Event, poll_s: float, once: bool, *, resume: bool) -> None:
    parent_pid = os.getppid()
    agent = local_agent(name)
    beat = threading.Thread(
        target=_heartbeat,
        args=(agent.name, stop, min(settings.INFERLEDGER_AGENT_HEARTBEAT_S, 30)),
        name="local-agent-heartbeat",
        daemon=True,
    )
    beat.start()
    logger.info("local agent %s: online, waiting for jobs", agent.name)
    try:
        if not resume:
            logger.warning("local agent %s: another process serves it here; the jobs it runs are its own", agent.name)
        else:
            try:
                resume_left_running(agent.name)
            except Exception:
                logger.exception("local agent: a job left running could not be run again")
        while not stop.is_set():
            if os.getppid() != parent_pid:  # make run (our parent) has gone: so do we
                return
            if not connection.in_atomic_block:  # inside a caller's transaction (a test's), it owns the connection
                close_old_connections()
            try:
                run_pending_local_jobs(agent.name)
            except Exception:
                logger.exception("local agent: a job could not be run")
            if once:
                return
            stop.wait(poll_s)
    finally:
        stop.set()
