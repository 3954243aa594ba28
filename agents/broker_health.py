"""What the control plane can see of the broker: whether it persists queued jobs, which jobs it holds.

Redis is the broker. Without persistence (no AOF, no RDB snapshots) a Redis restart loses every queued
job silently; with RDB snapshots only, it loses those queued since the last snapshot. The control
worker reads the settings at start and with every heartbeat, logs a warning and records it for the
status endpoint. The reaper asks which job ids the broker still holds, to re-dispatch lost ones.
"""

from __future__ import annotations

import json

from django.conf import settings
from kombu.transport.redis import PRIORITY_STEPS, Channel

SOCKET_TIMEOUT_S = 2


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
    reports = " ".join(str(header.get("argsrepr", "")) for header in headers if header.get("task") != "agents.run_job")
    return {job_id for job_id in map(str, job_ids) if job_id in task_ids or job_id in reports}
