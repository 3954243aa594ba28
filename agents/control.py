"""How control tasks run: through a database outage without losing work, and only for reports that verify.

A control task that meets a transient database error (PostgreSQL restarting, a failover) waits it out
in-process: it retries with a capped exponential backoff for up to INFERLEDGER_DB_OUTAGE_MAX_S, holding
its message unacknowledged. No countdown/ETA message is created (a worker holding one died on a Redis
restart, see inferledger/broker.py) and nothing is acked before it is stored. Past the limit the
message is requeued, never dropped.
"""

from __future__ import annotations

import functools
import logging
import time
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from typing import TYPE_CHECKING

from celery import shared_task
from celery.exceptions import Reject
from django.conf import settings
from django.db import IntegrityError, InterfaceError, OperationalError, connections, transaction
from django.db.models import F
from django.utils import timezone

from .signing import verify

if TYPE_CHECKING:
    from .models import Agent

logger = logging.getLogger(__name__)
DATABASE_ERRORS = (OperationalError, InterfaceError)
# A report signed this far ahead of the control worker's clock is still accepted (hosts' clocks drift a little).
CLOCK_SKEW_MAX_S = 60


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


@dataclass(frozen=True)
class CheckedReport:
    """Who sent a report and when, or why it is refused (``refusal`` empty when accepted)."""

    agent: Agent | None
    signed_at: datetime
    refusal: str = ""


def _refuse(agent, agent_name: str, task_name: str, reason: str, now: datetime) -> CheckedReport:
    """Count the refusal on the named agent (the API and the admin show it) and log it."""
    logger.warning("%s from agent %r refused: %s", task_name, agent_name, reason)
    if agent is not None:
        type(agent).objects.filter(pk=agent.pk).update(
            refused_reports=F("refused_reports") + 1, last_refused_at=now, last_refused_reason=reason[:300]
        )
    return CheckedReport(agent=None, signed_at=now, refusal=reason)


def checked_report(
    task_name: str, agent_name: str, args: list, seal, *, received_at: float, repeat_allowed: bool = False
) -> CheckedReport:
    """Accept a report only when the named, enrolled agent sealed it, within the window, and never before.

    ``received_at`` (unix seconds) is when the control worker took the message; the report's age is counted up
    to then, so waiting out a database outage does not age it. Accepting records its nonce: call this inside the
    transaction that applies the report, so a report whose effect was rolled back can be retried.
    ``repeat_allowed``: the control plane itself sent this report again (job_finished waiting for results).

    Without a broker (the embedded default) tasks run in-process and nothing crosses a network: the named agent
    is trusted, as of now.
    """
    from .models import Agent, AgentReportNonce

    now = timezone.now()
    agent = Agent.objects.filter(name=agent_name).first() if agent_name else None
    if not settings.CELERY_BROKER_URL:
        return CheckedReport(agent=agent, signed_at=now)
    if not agent_name:
        return _refuse(None, agent_name, task_name, "unsigned report (no agent named)", now)
    if agent is None or not agent.signing_key:
        return _refuse(agent, agent_name, task_name,
                       f"agent {agent_name!r} is not enrolled (manage.py enroll_agent {agent_name})", now)  # fmt: skip
    if not verify(agent.signing_key, task_name, args, seal):
        return _refuse(agent, agent_name, task_name, f"signature does not verify for agent {agent_name!r}", now)
    age_s = received_at - float(seal["signed_at"])
    window_s = settings.INFERLEDGER_AGENT_MESSAGE_MAX_AGE_S
    if age_s > window_s:
        reason = f"signed {age_s:.0f} s before it was received, older than the {window_s} s window"
        return _refuse(agent, agent_name, task_name, reason, now)
    if -age_s > CLOCK_SKEW_MAX_S:
        reason = f"signed {-age_s:.0f} s in the future (the agent's clock is ahead; at most {CLOCK_SKEW_MAX_S} s)"
        return _refuse(agent, agent_name, task_name, reason, now)
    signed_at = datetime.fromtimestamp(float(seal["signed_at"]), tz=UTC)
    if repeat_allowed:
        return CheckedReport(agent=agent, signed_at=min(signed_at, now))
    try:
        with transaction.atomic():
            AgentReportNonce.objects.create(agent=agent, nonce=str(seal["nonce"])[:64], signed_at=signed_at)
    except IntegrityError:
        return _refuse(agent, agent_name, task_name, f"repeated report (nonce {seal['nonce']} already accepted)", now)
    return CheckedReport(agent=agent, signed_at=min(signed_at, now))


def report_nonces_prune(*, now: datetime | None = None) -> int:
    """Forget nonces older than the window (with the skew): a report that old is refused by its age alone."""
    from .models import AgentReportNonce

    now = now or timezone.now()
    horizon = now - timedelta(seconds=settings.INFERLEDGER_AGENT_MESSAGE_MAX_AGE_S + CLOCK_SKEW_MAX_S)
    deleted, _by_model = AgentReportNonce.objects.filter(signed_at__lt=horizon).delete()
    return deleted


# Control tasks wait out a database outage in-process; their limits cover that wait plus the work.
CONTROL_TASK = {
    "soft_time_limit": settings.INFERLEDGER_DB_OUTAGE_MAX_S + settings.CELERY_TASK_SOFT_TIME_LIMIT,
    "time_limit": settings.INFERLEDGER_DB_OUTAGE_MAX_S + settings.CELERY_TASK_TIME_LIMIT,
}


def control_task(name: str, *, atomic: bool = False):
    """A control-plane task (bound) that waits out a database outage and is requeued past the limit.

    ``atomic``: the task runs in one transaction, so a report whose effect is rolled back by a database error
    is checked again (its nonce not yet spent) when the call is retried.
    """

    def decorate(fn):
        @functools.wraps(fn)
        def body(self, *args, **kwargs):
            self.request.received_at = time.time()  # a report's age is counted to here, not to after an outage

            def call():
                if not atomic:
                    return fn(self, *args, **kwargs)
                with transaction.atomic():
                    return fn(self, *args, **kwargs)

            try:
                return through_database_outage(call, what=name, eager=bool(self.request.is_eager))
            except DatabaseOutageTooLong as exc:
                logger.error("%s; the message goes back to its queue", exc)
                raise Reject(str(exc), requeue=True) from exc

        return shared_task(bind=True, name=name, **CONTROL_TASK)(body)

    return decorate
