"""The agent's side of the registry: when a worker consuming ``agent.<name>`` starts, it registers the
host (devices, versions) and heartbeats every INFERLEDGER_AGENT_HEARTBEAT_S, all as control-queue tasks.
"""

from __future__ import annotations

import logging
import threading

from celery.signals import worker_ready, worker_shutting_down
from django.conf import settings

logger = logging.getLogger(__name__)
AGENT_QUEUE_PREFIX = "agent."
_stop = threading.Event()


def agent_names(queue_names) -> list[str]:
    return [name[len(AGENT_QUEUE_PREFIX) :] for name in queue_names if name.startswith(AGENT_QUEUE_PREFIX)]


def _heartbeat_loop(name: str, interval_s: float) -> None:
    from .tasks import agent_heartbeat

    while not _stop.wait(interval_s):
        try:
            agent_heartbeat.delay(name)
        except Exception:  # the broker is down: keep trying, the next beat may get through
            logger.exception("agent %s: heartbeat not sent", name)


@worker_ready.connect
def register_on_start(sender=None, **kwargs):
    """Register every agent queue this worker consumes; a control worker consumes none and does nothing."""
    from .inventory import collect_inventory
    from .tasks import register_agent

    for name in agent_names(sender.app.amqp.queues.consume_from):
        register_agent.delay(collect_inventory(name))
        thread = threading.Thread(
            target=_heartbeat_loop,
            args=(name, settings.INFERLEDGER_AGENT_HEARTBEAT_S),
            name=f"heartbeat-{name}",
            daemon=True,
        )
        thread.start()
        logger.info("agent %s registered; heartbeat every %s s", name, settings.INFERLEDGER_AGENT_HEARTBEAT_S)


@worker_shutting_down.connect
def stop_heartbeats(**kwargs):
    _stop.set()
