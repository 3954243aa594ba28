"""How control-plane tasks run: through a database outage without losing work (every app's control tasks).

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

from celery import shared_task
from celery.exceptions import Reject
from django.conf import settings
from django.db import InterfaceError, OperationalError, connections, transaction

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
