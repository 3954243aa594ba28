"""Which agent a control-plane report comes from: only reports that verify change anything.

Waiting out a database outage is every control task's (inferledger.control_tasks, re-exported here).
"""

from __future__ import annotations

import logging
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from typing import TYPE_CHECKING

from django.conf import settings
from django.db import IntegrityError, transaction
from django.db.models import F
from django.utils import timezone

from inferledger.control_tasks import (  # noqa: F401 (re-exported: agents' tasks and tests use them from here)
    DATABASE_ERRORS,
    DatabaseOutageTooLong,
    through_database_outage,
)

from .signing import verify

if TYPE_CHECKING:
    from .models import Agent

logger = logging.getLogger(__name__)
# A report signed this far ahead of the control worker's clock is still accepted (hosts' clocks drift a little).
CLOCK_SKEW_MAX_S = 60


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
