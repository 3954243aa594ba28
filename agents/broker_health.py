"""What the control plane can see of the broker: whether it persists queued jobs, which jobs it holds.

Redis is the broker. Without persistence (no AOF, no RDB snapshots) a Redis restart loses every queued
job silently; with RDB snapshots only, it loses those queued since the last snapshot. The control
worker reads the settings at start and with every heartbeat, logs a warning and records it for the
status endpoint. The reaper asks which job ids the broker still holds, to re-dispatch lost ones.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field

from django.conf import settings
from kombu.transport.redis import PRIORITY_STEPS, Channel

SOCKET_TIMEOUT_S = 2
# The agent-side task that runs a job (agents.tasks.run_job carries this name; agents.jobs sends it by name).
RUN_JOB_TASK = "agents.run_job"


def _client():
    import redis

    return redis.Redis.from_url(
        settings.CELERY_BROKER_URL, socket_timeout=SOCKET_TIMEOUT_S, socket_connect_timeout=SOCKET_TIMEOUT_S
    )


def broker_persistence() -> dict:
    """{'appendonly': 'yes'|'no', 'save': '<rdb schedule>'} as Redis reports them, or {'error': why}."""
    if not settings.CELERY_BROKER_URL.startswith(("redis://", "rediss://")):
        return {"error": "no Redis broker configured"}
    try:
        client = _client()
        appendonly = client.config_get("appendonly").get("appendonly", "")
        save = client.config_get("save").get("save", "")
    except Exception as exc:  # unreachable, or CONFIG disabled (managed Redis): say so, do not guess
        return {"error": f"{type(exc).__name__}: {exc}"}
    decode = lambda value: value.decode() if isinstance(value, bytes) else str(value)  # noqa: E731
    return {"appendonly": decode(appendonly), "save": decode(save)}


def persistence_warning(persistence: dict) -> str:
    """Why queued jobs could be lost on a broker restart; empty when the broker keeps them (AOF on)."""
    if persistence.get("error"):
        return f"could not read the broker's persistence settings ({persistence['error']})"
    if persistence.get("appendonly") == "yes":
        return ""
    if persistence.get("save"):
        return (
            f"Redis persists only by RDB snapshots (save {persistence['save']!r}): a restart loses the jobs "
            "queued since the last snapshot. Set 'appendonly yes' (docs/operations.md)."
        )
    return (
        "Redis has no persistence (appendonly no, save ''): a restart loses every queued job. "
        "Set 'appendonly yes' (docs/operations.md); meanwhile the reaper re-dispatches lost queued jobs."
    )


def _headers(raw) -> dict:
    try:
        message = json.loads(raw)
        if isinstance(message, list):  # the unacked hash stores [message, exchange, routing_key]
            message = message[0]
        return dict(message["headers"])
    except (ValueError, KeyError, TypeError, IndexError):
        return {}


def broker_headers(queues) -> list[dict]:
    """Headers of the messages waiting in these queues (every priority level) or delivered and not yet acked."""
    client = _client()
    names = [queue if not step else f"{queue}{Channel.sep}{step}" for queue in queues for step in PRIORITY_STEPS]
    pipe = client.pipeline()
    for name in names:
        pipe.lrange(name, 0, -1)
    pipe.hvals(Channel.unacked_key)
    return [_headers(raw) for raw_messages in pipe.execute() for raw in raw_messages]


def jobs_known_to_broker(job_ids, agent_queues) -> set[str]:
    """The job ids the broker still holds: the job's own message (its task id is the job id), or a report
    about it waiting for the control worker (the agent ran it; its start report is queued behind a backlog)."""
    headers = broker_headers([*agent_queues, settings.INFERLEDGER_CONTROL_QUEUE])
    task_ids = {str(header.get("id")) for header in headers}
    reports = " ".join(str(header.get("argsrepr", "")) for header in headers if header.get("task") != RUN_JOB_TASK)
    return {job_id for job_id in map(str, job_ids) if job_id in task_ids or job_id in reports}


@dataclass
class JobInBroker:
    """What the broker holds of one job: its message waiting in a queue, a report about it for the control
    worker, and its deliveries not acknowledged yet ((delivery tag, unix time delivered))."""

    waiting: bool = False
    reported: bool = False
    deliveries: list[tuple[str, float]] = field(default_factory=list)


def jobs_in_broker(job_ids, agent_queues) -> dict[str, JobInBroker]:
    """For each job id, what the broker holds of it (see JobInBroker)."""
    client = _client()
    ids = [str(job_id) for job_id in job_ids]
    queues = [*agent_queues, settings.INFERLEDGER_CONTROL_QUEUE]
    names = [queue if not step else f"{queue}{Channel.sep}{step}" for queue in queues for step in PRIORITY_STEPS]
    pipe = client.pipeline()
    for name in names:
        pipe.lrange(name, 0, -1)
    pipe.hgetall(Channel.unacked_key)
    pipe.zrange(Channel.unacked_index_key, 0, -1, withscores=True)
    *queued, unacked, delivered_at = pipe.execute()
    delivered = {_text(tag): score for tag, score in delivered_at}
    found = {job_id: JobInBroker() for job_id in ids}

    def note(headers: dict, tag: str | None) -> None:
        if headers.get("task") == RUN_JOB_TASK:
            job = found.get(str(headers.get("id")))
            if job is None:
                return
            if tag is None:
                job.waiting = True
            else:
                job.deliveries.append((tag, delivered.get(tag, 0.0)))
            return
        about = str(headers.get("argsrepr", ""))
        for job_id, job in found.items():
            job.reported |= job_id in about

    for raw_messages in queued:
        for raw in raw_messages:
            note(_headers(raw), None)
    for tag, raw in unacked.items():
        note(_headers(raw), _text(tag))
    return found


def forget_deliveries(tags) -> None:
    """Drop unacknowledged deliveries from the broker (as an ack would): a job lost on its agent is sent afresh,
    and its stale copy must not come back after the visibility timeout to run it a second time."""
    tags = list(tags)
    if tags:
        client = _client()
        client.pipeline().zrem(Channel.unacked_index_key, *tags).hdel(Channel.unacked_key, *tags).execute()


def _text(value) -> str:
    return value.decode() if isinstance(value, bytes) else str(value)
