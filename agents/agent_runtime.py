"""Worker start-up. An agent (a worker consuming ``agent.<name>``) registers its host (devices, versions)
and heartbeats every INFERLEDGER_AGENT_HEARTBEAT_S, all as signed control-queue tasks. A control worker
(consuming the control queue) checks the broker's persistence and records its own heartbeat.
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


def held_job_ids() -> list[str]:
    """The jobs this worker holds now (running, or reserved to run next): read in the worker's main process,
    which tracks the requests it hands to its pool."""
    from celery.worker import state

    from .jobs import RUN_JOB_TASK

    return sorted({request.id for request in list(state.reserved_requests) if request.name == RUN_JOB_TASK})


def _heartbeat_loop(name: str, interval_s: float) -> None:
    from .tasks import agent_heartbeat, send_report

    while not _stop.wait(interval_s):
        try:
            send_report(agent_heartbeat, name, held_job_ids())
        except Exception:  # the broker is down: keep trying, the next beat may get through
            logger.exception("agent %s: heartbeat not sent", name)


def _control_worker_started(hostname: str) -> None:
    from .liveness import control_worker_seen

    try:
        worker = control_worker_seen(hostname=hostname, started=True)
    except Exception:  # the database is down at start: the periodic heartbeat will record it later
        logger.exception("control worker %s: liveness not recorded at start", hostname)
        return
    logger.info("control worker %s: broker persistence %s", hostname, worker.broker_persistence)


@worker_ready.connect
def register_on_start(sender=None, **kwargs):
    """Register every agent queue this worker consumes; record a control worker's start."""
    from harness.host.inventory import collect_inventory

    from .tasks import register_agent, send_report

    queues = list(sender.app.amqp.queues.consume_from)
    if settings.INFERLEDGER_CONTROL_QUEUE in queues:
        _control_worker_started(sender.hostname)
    for name in agent_names(queues):
        if not settings.INFERLEDGER_AGENT_SECRET:
            logger.warning("agent %s: INFERLEDGER_AGENT_SECRET is not set; the control plane refuses its reports "
                           "(issue one with: manage.py enroll_agent %s)", name, name)  # fmt: skip
        send_report(register_agent, collect_inventory(name))
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
