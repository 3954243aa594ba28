"""Celery entry points: thin, by id, idempotent (a period already stored is returned, not metered twice).

Control tasks like every other (inferledger.control_tasks.control_task): a database outage is waited out
in-process, never with countdown retries that a Redis restart would lose."""

import logging

from django.utils import timezone

from inferledger.control_tasks import control_task

logger = logging.getLogger(__name__)


@control_task("metering.meter_deployment")
def meter_deployment(self, deployment_id: int) -> int | None:
    """Meter the previous UTC day of the deployment (the daily schedule's firing); the stored period's id."""
    from .models import Deployment
    from .services import MeteringError, period_meter, previous_utc_day

    deployment = Deployment.objects.filter(pk=deployment_id).first()
    if deployment is None:
        return None
    start, end = previous_utc_day(timezone.now())
    try:
        return period_meter(deployment=deployment, start=start, end=end).pk
    except MeteringError as exc:
        logger.warning("metering %s %s..%s: %s", deployment, start, end, exc)
        return None
