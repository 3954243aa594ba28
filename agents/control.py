"""How control tasks run: through a database outage without losing work, and only for reports that verify.

A control task that meets a transient database error (PostgreSQL restarting, a failover) waits it out
in-process: it retries with a capped exponential backoff for up to INFERLEDGER_DB_OUTAGE_MAX_S, holding
its message unacknowledged. No countdown/ETA message is created (a worker holding one died on a Redis
restart, see inferledger/broker.py) and nothing is acked before it is stored. Past the limit the
message is requeued, never dropped.
"""

from __future__ import annotations

import logging
import time

from django.conf import settings
from django.db import InterfaceError, OperationalError, connections

from .signing import verify

logger = logging.getLogger(__name__)
DATABASE_ERRORS = (OperationalError, InterfaceError)


class DatabaseOutageTooLong(Exception):
    """The database stayed unreachable past INFERLEDGER_DB_OUTAGE_MAX_S; the message goes back to its queue."""


def _drop_broken_connections() -> None:
    for connection in connections.all(initialized_only=True):
        try:
            connection.close()
        except DATABASE_ERRORS:
            pass


def through_database_outage(call, *, what: str, eager: bool = False):
    """``call()``, retried on transient database errors for up to INFERLEDGER_DB_OUTAGE_MAX_S.

    ``eager`` (a task run in-process, in a web request) does not wait: the error propagates at once.
    """
    started = time.monotonic()
    delay_s = 0.5
    while True:
        try:
            return call()
        except DATABASE_ERRORS as exc:
            if eager:
                raise
            waited_s = time.monotonic() - started
            if waited_s >= settings.INFERLEDGER_DB_OUTAGE_MAX_S:
                raise DatabaseOutageTooLong(f"{what}: database unreachable for {waited_s:.0f} s: {exc}") from exc
            logger.warning("%s: database unavailable (%s); retrying in %.1f s", what, str(exc).strip(), delay_s)
            _drop_broken_connections()
            time.sleep(delay_s)
            delay_s = min(delay_s * 2, settings.INFERLEDGER_DB_RETRY_BACKOFF_MAX_S)


def sender_agent(task_name: str, agent_name: str, args: list, signature: str | None):
    """The registered agent that signed this report, or None (with the reason logged by the caller).

    Without a broker (the embedded default) tasks run in-process and nothing crosses a network: the
    named agent is trusted.
    """
    from .models import Agent

    agent = Agent.objects.filter(name=agent_name).first() if agent_name else None
    if not settings.CELERY_BROKER_URL:
        return agent
    if agent is None or not verify(agent.signing_key, task_name, args, signature):
        return None
    return agent


def rejection_reason(agent_name: str) -> str:
    from .models import Agent

    if not agent_name:
        return "unsigned report (no agent named)"
    if not Agent.objects.filter(name=agent_name).exclude(signing_key="").exists():
        return f"agent {agent_name!r} is not enrolled (manage.py enroll_agent {agent_name})"
    return f"signature does not verify for agent {agent_name!r}"
