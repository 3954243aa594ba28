"""The agent registry on the control plane: registration, heartbeats, picking an agent for a job."""

from __future__ import annotations

import logging

from django.conf import settings
from django.db import transaction
from django.db.models import Count, Q
from django.utils import timezone

from hardware_catalog.devices import accelerator_for_device
from hardware_catalog.models import Accelerator

from .models import ACTIVE_JOB_STATES, Agent
from .signals import agent_first_registered

logger = logging.getLogger(__name__)


def broker_configured() -> bool:
    """False in the embedded default: tasks then run eagerly, in-process."""
    return bool(settings.CELERY_BROKER_URL)


def agent_register(*, report: dict, seen_at=None) -> Agent:
    """Create or refresh an agent from its report (signed at ``seen_at``, default now), linking its devices to
    catalog accelerators.

    The first registration of an agent on a broker seeds its daily quick-suite schedule.
    """
    now = seen_at or timezone.now()
    devices = report.get("devices") or []
    with transaction.atomic():
        seen = {
            "hostname": report.get("hostname", ""),
            "queue": report.get("queue") or f"agent.{report['name']}",
            "devices": devices,
            "versions": report.get("versions") or {},
            "last_seen_at": now,
        }
        agent, created = Agent.objects.update_or_create(
            name=report["name"], defaults=seen, create_defaults={**seen, "first_seen_at": now}
        )
        # The first registration is the agent's first report, also when enroll_agent created its row before it.
        first = created or agent.first_seen_at is None
        if agent.first_seen_at is None:  # enrolled before, speaking now for the first time
            Agent.objects.filter(pk=agent.pk).update(first_seen_at=now)
        environment = {"cpu_count": next((d.get("vcpu_count") for d in devices if d.get("vcpu_count")), 1)}
        agent.accelerators.set([accelerator_for_device(device, environment) for device in devices])
        if first and broker_configured():
            agent_first_registered.send(sender=Agent, agent=agent)
    return agent


def agent_enroll(*, name: str) -> tuple[Agent, str]:
    """Issue (or replace) the agent's signing secret; returns the agent and the secret to set on its host.

    The agent's reports are accepted only when signed with it. Replacing it locks out the old secret.
    """
    from .signing import new_secret

    secret = new_secret()
    agent, _created = Agent.objects.update_or_create(
        name=name,
        defaults={"signing_key": secret, "enrolled_at": timezone.now()},
        create_defaults={"queue": f"agent.{name}", "signing_key": secret, "enrolled_at": timezone.now()},
    )
    return agent, secret


def agent_heartbeat(*, name: str, seen_at=None) -> Agent | None:
    """Record that the agent was alive at ``seen_at`` (the heartbeat's signing time, default now); None (and
    nothing written) for an agent never registered.

    last_seen_at only moves forward: a heartbeat that arrives late (or a copy) cannot make the agent look
    fresher than its newest one.
    """
    seen_at = seen_at or timezone.now()
    agent = Agent.objects.filter(name=name).first()
    if agent is None:
        logger.warning("heartbeat from unregistered agent %r ignored", name)
        return None
    Agent.objects.filter(pk=agent.pk).filter(Q(last_seen_at__lt=seen_at) | Q(last_seen_at__isnull=True)).update(
        last_seen_at=seen_at
    )
    return agent


def agent_for_accelerator(accelerator: Accelerator) -> Agent | None:
    """The online agent with this accelerator that has the fewest active jobs."""
    return (
        Agent.objects.online()
        .filter(accelerators=accelerator)
        .annotate(active_jobs=Count("jobs", filter=Q(jobs__state__in=ACTIVE_JOB_STATES)))
        .order_by("active_jobs", "name")
        .first()
    )


LOCAL_AGENT_NAME = "local"


def local_agent(name: str = LOCAL_AGENT_NAME) -> Agent:
    """The local host as an agent, registered in-process: the embedded default's target for jobs."""
    from harness.host.inventory import collect_inventory

    return agent_register(report=collect_inventory(name))
