"""The control worker's liveness and the broker's persistence, recorded for users to see.

Beat sends ``agents.control_heartbeat`` every INFERLEDGER_CONTROL_HEARTBEAT_S; the control worker that
runs it records its host name, the time and the broker's persistence settings. A row older than
INFERLEDGER_CONTROL_OFFLINE_AFTER_S means no control worker (or no beat, or no broker) is working:
ingest, the reaper and schedules are stopped. ``GET /api/v1/status/`` shows it.
"""

from __future__ import annotations

import logging

from django.utils import timezone

from .broker_health import broker_persistence, persistence_warning
from .models import ControlWorker

logger = logging.getLogger(__name__)


def control_worker_seen(*, hostname: str, started: bool = False) -> ControlWorker:
    persistence = broker_persistence()
    warning = persistence_warning(persistence)
    before = ControlWorker.objects.filter(hostname=hostname).values_list("broker_warning", flat=True).first()
    if warning and (started or warning != before):  # at start and when it changes, not every heartbeat
        logger.warning("broker: %s", warning)
    now = timezone.now()
    fields = {"last_seen_at": now, "broker_persistence": persistence, "broker_warning": warning}
    if started:
        fields["started_at"] = now
    worker, _created = ControlWorker.objects.update_or_create(hostname=hostname, defaults=fields)
    return worker


def control_plane_status() -> dict:
    """What the status endpoint shows: each control worker's liveness and the broker's persistence."""
    workers = list(ControlWorker.objects.all())
    latest = max(workers, key=lambda worker: worker.last_seen_at, default=None)
    return {
        "control_workers": [
            {
                "hostname": worker.hostname,
                "status": worker.status,
                "started_at": worker.started_at,
                "last_seen_at": worker.last_seen_at,
            }
            for worker in workers
        ],
        "control_online": any(worker.status == "online" for worker in workers),
        "broker_persistence": latest.broker_persistence if latest else {},
        "broker_warning": latest.broker_warning if latest else "no control worker has reported yet",
    }
