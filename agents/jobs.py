"""Job lifecycle on the control plane: submit, claim, progress, results, finish, cancel, reap.

Every state change is a conditional UPDATE on the job's current state, so a message delivered twice
(acks_late redelivery, two reports racing) changes the job at most once.
"""

from __future__ import annotations

import logging
import uuid
from datetime import timedelta

import kombu.exceptions
import redis.exceptions
from django.conf import settings
from django.db import IntegrityError, transaction
from django.db.models import F, Q, Value
from django.db.models.functions import Coalesce, Greatest
from django.utils import timezone

from inferledger.celery import app as celery_app
from results.ingest import QUARANTINED, IngestOutcome, ingest_result, quarantine_payload
from results.models import BenchmarkRun, QuarantinedPayload

from .broker_health import RUN_JOB_TASK, forget_deliveries, jobs_in_broker, jobs_known_to_broker
from .jobspec import SPEC_FIELDS, JobSpecError, validate_spec
from .models import ACTIVE_JOB_STATES, Agent, Job, JobState
from .registry import agent_for_accelerator, broker_configured, local_agent

logger = logging.getLogger(__name__)
# What publishing a message raises while the broker is unreachable.
BROKER_ERRORS = (kombu.exceptions.OperationalError, redis.exceptions.ConnectionError, redis.exceptions.TimeoutError,
                 ConnectionError, TimeoutError)  # fmt: skip


def job_spec(job) -> dict:
    """The spec fields of a job or schedule as model values (the endpoint and user workload as their records)."""
    return {name: getattr(job, name) for name in SPEC_FIELDS}


def spec_for_agent(spec: dict) -> dict:
    """A spec as the JSON the agent receives (and agents.jobspec validates): the endpoint, the user workload and the
    trace as their declarations (the trace's whole text and digest), the endpoint's API key included. Only the
    job's message carries this; nothing shows or logs it."""
    endpoint, user_workload, trace = spec.get("endpoint"), spec.get("user_workload"), spec.get("trace")
    return spec | {
        "endpoint": endpoint.as_spec() if endpoint is not None else None,
        "user_workload": user_workload.as_spec() if user_workload is not None else None,
        "trace": trace.as_spec() if trace is not None else None,
    }


def soft_time_limit_s(time_limit_s: int) -> int:
    return time_limit_s - min(settings.INFERLEDGER_JOB_SOFT_MARGIN_S, time_limit_s // 10)


def _resolve_agent(job: Job) -> Agent:
    if job.agent is not None:
        return job.agent
    if job.accelerator is not None:
        agent = agent_for_accelerator(job.accelerator)
        if agent is None:
            raise JobSpecError({"accelerator": f"no online agent has a {job.accelerator}"})
        return agent
    if not broker_configured():
        return local_agent()
    raise JobSpecError({"agent": "give an agent, or an accelerator to pick an online agent with it"})


class JobNotSent(Exception):
    """The job is stored (queued) but its message could not be published: the broker is unreachable. The reaper
    sends it once the broker is back (jobs_redispatch_lost), so a client must not create it again."""

    def __init__(self, job: Job, cause: Exception):
        super().__init__(f"job {job.pk} is kept (queued) but could not be sent: {type(cause).__name__}")
        self.job, self.cause = job, cause


class IdempotencyKeyReused(Exception):
    """An Idempotency-Key already used by this user for a job that asked for something else."""

    def __init__(self, job: Job, fields: list[str]):
        super().__init__(f"Idempotency-Key already used for job {job.pk}, which differs in: {', '.join(fields)}")
        self.job, self.fields = job, fields


def job_submit(job: Job) -> Job:
    """Validate, pick the agent, save as queued and dispatch to the agent's queue once committed.

    Raises JobNotSent when the broker cannot take the message: the job is committed and stays queued."""
    validate_spec(spec_for_agent(job_spec(job)), time_limit_max_s=settings.INFERLEDGER_JOB_TIME_LIMIT_MAX_S)
    job.agent = _resolve_agent(job)
    job.state = JobState.QUEUED
    job.deadline_at = timezone.now() + timedelta(seconds=settings.INFERLEDGER_JOB_START_TIMEOUT_S)
    job.save()
    transaction.on_commit(lambda: _dispatch_kept(job))
    return job


def _dispatch_kept(job: Job) -> None:
    try:
        job_dispatch(job)
    except BROKER_ERRORS as exc:
        logger.warning("job %s kept but not sent (the broker is unreachable): %s", job.pk, exc)
        raise JobNotSent(job, exc) from exc


def job_create(*, spec: dict, agent: Agent | None = None, accelerator=None, created_by=None, **fields) -> Job:
    return job_submit(Job(**spec, agent=agent, accelerator=accelerator, created_by=created_by, **fields))


def job_create_once(
    *, idempotency_key: str, spec: dict, agent: Agent | None = None, accelerator=None, created_by=None
) -> tuple[Job, bool]:
    """(job, created): the job this user created with this key, or a new one. A key is the user's: a retry of a
    create (its answer lost, or a 503) never makes a second job. Raises IdempotencyKeyReused when the earlier
    job asked for something else, and JobNotSent (as job_submit) for a new job the broker could not take."""
    earlier = Job.objects.filter(created_by=created_by, idempotency_key=idempotency_key).first()
    if earlier is None:
        try:
            with transaction.atomic():
                job = job_create(spec=spec, agent=agent, accelerator=accelerator, created_by=created_by,
                                 idempotency_key=idempotency_key)  # fmt: skip
            return job, True
        except IntegrityError:  # the same key, created by a concurrent retry between the look-up and the insert
            earlier = Job.objects.get(created_by=created_by, idempotency_key=idempotency_key)
    asked = Job(**spec, agent=agent, accelerator=accelerator)
    differing = [name for name in SPEC_FIELDS if getattr(asked, name) != getattr(earlier, name)]
    for name in ("agent", "accelerator"):
        if getattr(asked, name) not in (None, getattr(earlier, name)):
            differing.append(name)
    if differing:
        raise IdempotencyKeyReused(earlier, differing)
    return earlier, False


def job_dispatch(job: Job) -> None:
    """Send the job to its agent's queue; the task id is the job id (cancel revokes it by that id).

    Sent by name (``RUN_JOB_TASK``): the agent's task module calls these services, so this module does not
    import it back. Without a broker (the embedded default) nothing is sent: the job stays queued for the
    built-in local agent process (agents.local_runner), and never runs inside the request that submitted it.
    """
    if not broker_configured():
        return
    agent = job.agent
    if agent is None:
        raise ValueError(f"job {job.pk} has no agent to be sent to")
    celery_app.send_task(
        RUN_JOB_TASK,
        kwargs={"job_id": str(job.pk), "spec": spec_for_agent(job_spec(job)), "agent_name": agent.name},
        queue=agent.queue,
        task_id=str(job.pk),
        time_limit=job.time_limit_s,
        soft_time_limit=soft_time_limit_s(job.time_limit_s),
    )
    Job.objects.filter(pk=job.pk).update(dispatched_at=timezone.now())


def _stop_on_agent(job_id) -> None:
    """Stop a running copy of the job on whichever agent holds it (no-op without a broker)."""
    if broker_configured():
        celery_app.control.revoke(str(job_id), terminate=True)


def job_claim(*, job_id, agent_name: str, at=None) -> bool:
    """The agent reports it started (at ``at``, default now): queued -> running (or count a redelivery); False
    means stop it."""
    job = Job.objects.filter(pk=job_id).first()
    if job is None or job.state not in ACTIVE_JOB_STATES:
        return False  # cancelled, or finished already (its start report arrived after its end)
    now = timezone.now()
    changes = {
        "reported_at": at or now,
        "attempts": F("attempts") + 1,
        "deadline_at": now + timedelta(seconds=job.time_limit_s + settings.INFERLEDGER_JOB_REPORT_GRACE_S),
        "progress_pct": 0.0,
        "current_point": "",
        "agent": Agent.objects.filter(name=agent_name).first() or job.agent,
    }
    claimed = Job.objects.filter(pk=job_id, state=JobState.QUEUED).update(
        state=JobState.RUNNING, started_at=now, **changes
    )
    if not claimed:
        # Redelivered after the agent died mid-run (acks_late + reject_on_worker_lost): a new attempt.
        claimed = Job.objects.filter(
            pk=job_id, state=JobState.RUNNING, attempts__lt=settings.INFERLEDGER_JOB_MAX_ATTEMPTS
        ).update(**changes)
    if not claimed:
        job_fail(job_id=job_id, reason=f"gave up after {settings.INFERLEDGER_JOB_MAX_ATTEMPTS} attempts")
        _stop_on_agent(job_id)
    return bool(claimed)


def job_owned_by(*, job_id, agent: Agent) -> bool:
    return Job.objects.filter(pk=job_id, agent=agent).exists()


def job_progress(*, job_id, percent: float, point: str, at=None) -> None:
    # A queued job too: its start report may still be queued behind (or lost with) a database outage.
    at = at or timezone.now()
    Job.objects.filter(pk=job_id, state__in=ACTIVE_JOB_STATES).update(
        progress_pct=min(max(float(percent), 0.0), 100.0), current_point=point[:200],
        reported_at=Greatest(Coalesce("reported_at", Value(at)), Value(at)),
    )  # fmt: skip


def jobs_reported_running(*, agent: Agent, job_ids, at) -> int:
    """The agent's heartbeat (signed at ``at``) lists these jobs as held: they are alive as of then."""
    ids = [job_id for job_id in job_ids if _is_uuid(job_id)]
    if not ids:
        return 0
    return Job.objects.filter(pk__in=ids, agent=agent, state__in=ACTIVE_JOB_STATES).update(
        reported_at=Greatest(Coalesce("reported_at", Value(at)), Value(at))
    )


def _is_uuid(value) -> bool:
    try:
        uuid.UUID(str(value))
    except ValueError:
        return False
    return True


def job_ingest(*, job_id, payload, sender: Agent | None = None) -> IngestOutcome:
    """Store one result of a job from its own agent; a quarantined result fails the job with the reason.

    ``sender`` is the verified agent that sent it (None: in-process, the job's own agent). A result for
    an unknown job, or from an agent that does not own the job, is quarantined and changes no job.
    """
    job = Job.objects.select_related("agent").filter(pk=job_id).first()
    agent = sender or (job.agent if job else None)
    source = f"agent {agent.name}" if agent else "agent"
    if job is None:
        return quarantine_payload(payload, reason=f"refused: unknown job {job_id}", source=source, link_run=False)
    if sender is not None and job.agent_id != sender.pk:
        owner = job.agent.name if job.agent else "no agent"
        reason = f"refused: job {job_id} belongs to {owner}, not agent {sender.name}"
        return quarantine_payload(payload, reason=reason, source=source, link_run=False)
    if job.state not in ACTIVE_JOB_STATES and not _already_stored(job, payload):
        # A finished job's runs are what it ended with: a late result is kept for an operator, never attached.
        reason = f"refused: job {job_id} had already ended ({job.state}) when this result arrived"
        return quarantine_payload(payload, reason=reason, source=source, link_run=False)
    outcome = ingest_result(payload, source=source, job=job, agent=agent)
    if outcome.status == QUARANTINED:
        job_fail(job_id=job.pk, reason=f"result quarantined: {outcome.reason}")
    return outcome


def _already_stored(job: Job, payload) -> bool:
    """A copy of one of the job's stored runs (a redelivery): ingest answers it as the duplicate it is."""
    run_id = payload.get("run_id") if isinstance(payload, dict) else None
    if not isinstance(run_id, str) or not _is_uuid(run_id):
        return False
    return BenchmarkRun.objects.filter(pk=run_id, job=job).exists()


def job_results_missing(*, job_id, run_ids: list[str]) -> set[str]:
    """Run ids the agent sent that are neither stored nor quarantined yet (their ingest is still queued)."""
    arrived = {str(pk) for pk in BenchmarkRun.objects.filter(pk__in=run_ids).values_list("pk", flat=True)}
    arrived |= {
        str(pk) for pk in QuarantinedPayload.objects.filter(run_id__in=run_ids).values_list("run_id", flat=True)
    }
    return set(run_ids) - arrived


def job_finish(*, job_id, run_ids: list[str], skips: list[dict], error: str = "") -> None:
    """The agent is done: succeeded when something was measured, failed with the reason otherwise."""
    if error:
        job_fail(job_id=job_id, reason=error, skips=skips)
        return
    if not run_ids:
        reasons = "; ".join(
            f"{s['workload']} {s['scenario']} {s['backend']}/{s['precision']}: {s['reason']}" for s in skips
        )
        job_fail(job_id=job_id, reason=f"nothing was measured ({reasons or 'no items'})", skips=skips)
        return
    # A queued job too: its runs are stored, its start report was delayed or lost (a database outage).
    now = timezone.now()
    Job.objects.filter(pk=job_id, state=JobState.QUEUED, attempts=0).update(started_at=now, attempts=1)
    Job.objects.filter(pk=job_id, state__in=ACTIVE_JOB_STATES).update(
        state=JobState.SUCCEEDED, finished_at=now, progress_pct=100.0, skips=skips, error=""
    )


def job_fail(*, job_id, reason: str, skips: list[dict] | None = None) -> bool:
    changes = {"state": JobState.FAILED, "finished_at": timezone.now(), "error": reason}
    if skips is not None:
        changes["skips"] = skips
    return bool(Job.objects.filter(pk=job_id, state__in=ACTIVE_JOB_STATES).update(**changes))


def job_cancel(*, job: Job, by: str = "") -> bool:
    """Cancel a queued or running job and stop it on its agent; False when it had already finished."""
    cancelled = Job.objects.filter(pk=job.pk, state__in=ACTIVE_JOB_STATES).update(
        state=JobState.CANCELLED, finished_at=timezone.now(), error=f"cancelled{' by ' + by if by else ''}"
    )
    if cancelled:
        transaction.on_commit(lambda: _stop_on_agent(job.pk))
    return bool(cancelled)


def jobs_redispatch_lost(*, now=None) -> list[tuple[str, str]]:
    """Send again each queued job whose message the broker no longer holds (a Redis restart without persistence).

    Safe: the job id is the task id and each item's run id derives from it, so a job delivered twice
    still stores each run once. A job is a suspect INFERLEDGER_LOST_JOB_GRACE_S after its last dispatch.
    """
    if not broker_configured():
        return []
    now = now or timezone.now()
    cutoff = now - timedelta(seconds=settings.INFERLEDGER_LOST_JOB_GRACE_S)
    suspects = [
        (job, job.agent)
        for job in Job.objects.filter(state=JobState.QUEUED, agent__isnull=False)
        .filter(Q(dispatched_at__lt=cutoff) | Q(dispatched_at__isnull=True, created_at__lt=cutoff))
        .select_related("agent")
        if job.agent is not None
    ]
    if not suspects:
        return []
    try:
        held = jobs_known_to_broker([job.pk for job, _agent in suspects], {agent.queue for _job, agent in suspects})
    except Exception as exc:  # the broker is unreachable: nothing can be told, nothing is sent
        logger.warning("reaper: could not list the broker's messages (%s)", exc)
        return []
    actions = []
    for job, agent in suspects:
        if str(job.pk) in held:
            continue
        unchanged = Job.objects.filter(pk=job.pk, state=JobState.QUEUED, dispatched_at=job.dispatched_at)
        if job.redispatches >= settings.INFERLEDGER_JOB_MAX_ATTEMPTS:
            # Sent that often and never started: the agent takes the message and dies before its first report.
            reason = (
                f"agent {agent.name} never reported starting it; its message was gone from the broker "
                f"{job.redispatches + 1} times"
            )
            if unchanged.update(state=JobState.FAILED, finished_at=now, error=reason):
                logger.warning("reaper: job %s failed: %s", job.pk, reason)
                actions.append((str(job.pk), "failed"))
            continue
        reason = f"its message was no longer in the broker at {now:%Y-%m-%d %H:%M:%S} UTC; dispatched again"
        if unchanged.update(dispatched_at=now, error=reason, redispatches=F("redispatches") + 1):
            logger.warning("reaper: job %s %s", job.pk, reason)
            job_dispatch(job)
            actions.append((str(job.pk), "redispatched"))
    return actions


def jobs_recover_lost(*, now=None) -> list[tuple[str, str]]:
    """Send again (or fail, past the attempt limit) each running job its agent no longer holds: its message was
    lost with the broker (a Redis restart cancels the running task; its message is not redelivered before the
    visibility timeout, or at all without persistence).

    Told from the agent's liveness and progress: its heartbeats list the jobs it holds, and a job is a suspect
    once the agent has been heard from INFERLEDGER_LOST_JOB_GRACE_S after the job's last report (start, progress
    or a heartbeat listing it) without listing it. It is lost when the broker holds no message of it waiting and
    no report about it, and no delivery of it newer than that heartbeat. Its stale delivery is dropped (so it
    cannot come back later and run it twice) and it is sent again: its run ids derive from the job id, so each
    run is stored once. The bound: AGENT_HEARTBEAT_S + LOST_JOB_GRACE_S + REAPER_INTERVAL_S after the broker is
    back (docs/operations.md).
    """
    if not broker_configured():
        return []
    now = now or timezone.now()
    grace = timedelta(seconds=settings.INFERLEDGER_LOST_JOB_GRACE_S)
    suspects = [
        (job, job.agent, job.agent.last_seen_at)
        for job in Job.objects.filter(state=JobState.RUNNING, agent__isnull=False, reported_at__isnull=False)
        .filter(agent__last_seen_at__gt=F("reported_at") + grace)
        .select_related("agent")
        if job.agent is not None and job.agent.last_seen_at is not None
    ]
    if not suspects:
        return []
    try:
        held = jobs_in_broker([job.pk for job, _a, _s in suspects], {agent.queue for _j, agent, _s in suspects})
    except Exception as exc:  # the broker is unreachable: nothing can be told, nothing is sent
        logger.warning("reaper: could not list the broker's messages (%s)", exc)
        return []
    actions = []
    for job, agent, heard_at in suspects:
        in_broker = held[str(job.pk)]
        if (
            in_broker.waiting
            or in_broker.reported
            or any(at >= heard_at.timestamp() for _t, at in in_broker.deliveries)
        ):
            continue  # to be delivered, a report to process, or delivered after the agent's newest heartbeat
        unchanged = Job.objects.filter(pk=job.pk, state=JobState.RUNNING, reported_at=job.reported_at)
        lost = (
            f"agent {agent.name} stopped reporting it at {job.reported_at:%Y-%m-%d %H:%M:%S} UTC while still "
            f"heartbeating (last at {heard_at:%H:%M:%S} UTC) and the broker no longer held it"
        )
        if job.attempts >= settings.INFERLEDGER_JOB_MAX_ATTEMPTS:
            reason = f"{lost}; not sent again after {job.attempts} attempts"
            if unchanged.update(state=JobState.FAILED, finished_at=now, error=reason):
                forget_deliveries(tag for tag, _at in in_broker.deliveries)
                logger.warning("reaper: job %s failed: %s", job.pk, reason)
                actions.append((str(job.pk), "failed"))
            continue
        reason = f"{lost}; sent again at {now:%Y-%m-%d %H:%M:%S} UTC"
        requeued = unchanged.update(
            state=JobState.QUEUED, error=reason, dispatched_at=now, redispatches=F("redispatches") + 1,
            deadline_at=now + timedelta(seconds=settings.INFERLEDGER_JOB_START_TIMEOUT_S),
        )  # fmt: skip
        if requeued:
            forget_deliveries(tag for tag, _at in in_broker.deliveries)
            logger.warning("reaper: job %s %s", job.pk, reason)
            job_dispatch(job)
            actions.append((str(job.pk), "redispatched"))
    return actions


def jobs_reap(*, now=None) -> list[tuple[str, str]]:
    """Fail (or requeue, below the attempt limit) active jobs past their deadline, and re-dispatch lost
    queued and running ones; returns (job id, action)."""
    now = now or timezone.now()
    actions = jobs_redispatch_lost(now=now) + jobs_recover_lost(now=now)
    handled = {job_id for job_id, _action in actions}
    for job in Job.objects.past_deadline(now).exclude(pk__in=handled).select_related("agent"):
        agent = job.agent.name if job.agent else "no agent"
        if job.state == JobState.QUEUED:
            reason = f"agent {agent} did not start the job by its deadline ({job.deadline_at:%Y-%m-%d %H:%M:%S} UTC)"
            if job.agent and job.agent.last_seen_at:
                reason += f"; agent last heard from at {job.agent.last_seen_at:%Y-%m-%d %H:%M:%S} UTC"
            elif job.agent:
                reason += "; the agent has never reported"
            done = Job.objects.filter(pk=job.pk, state=JobState.QUEUED, deadline_at__lt=now).update(
                state=JobState.FAILED, finished_at=now, error=reason
            )
            action = "failed"
        elif job.agent is None:  # its agent was deleted: there is nowhere to requeue it
            reason = f"its agent was deleted while the job was running (attempt {job.attempts}); not requeued"
            done = Job.objects.filter(pk=job.pk, state=JobState.RUNNING, deadline_at__lt=now).update(
                state=JobState.FAILED, finished_at=now, error=reason
            )
            action = "failed"
        elif job.attempts < settings.INFERLEDGER_JOB_MAX_ATTEMPTS:
            done = _requeue(job, now)
            action = "requeued"
        else:
            reason = (
                f"agent {agent} reported no result within the time limit ({job.time_limit_s} s) "
                f"plus {settings.INFERLEDGER_JOB_REPORT_GRACE_S} s, {job.attempts} attempts"
            )
            done = Job.objects.filter(pk=job.pk, state=JobState.RUNNING, deadline_at__lt=now).update(
                state=JobState.FAILED, finished_at=now, error=reason
            )
            action = "failed"
        if done:
            logger.warning("reaper: job %s %s", job.pk, action)
            actions.append((str(job.pk), action))
    return actions


def _requeue(job: Job, now) -> int:
    reason = f"attempt {job.attempts} on {job.agent} reported nothing by its deadline; requeued"
    with transaction.atomic():
        done = Job.objects.filter(pk=job.pk, state=JobState.RUNNING, deadline_at__lt=now).update(
            state=JobState.QUEUED,
            error=reason,
            deadline_at=now + timedelta(seconds=settings.INFERLEDGER_JOB_START_TIMEOUT_S),
        )
        if done:
            # Robust: a job that cannot be sent now (its agent deleted meanwhile, the broker down) is logged and
            # left queued for the next pass to fail by its deadline; it must not abort this pass for the others.
            transaction.on_commit(lambda: _redispatch(job.pk), robust=True)
    return done


def _redispatch(job_id) -> None:
    """Send a requeued job again, as it is now in the database (its agent may have been deleted since)."""
    job = Job.objects.select_related("agent").filter(pk=job_id, state=JobState.QUEUED).first()
    if job is None:
        return
    if job.agent is None:
        job_fail(job_id=job_id, reason="its agent was deleted before the job could be requeued")
        return
    job_dispatch(job)
