"""The Redis broker transport, with one fix: restoring held messages after the connection was lost.

When the broker connection drops (Redis restarts), Celery's consumer first collects the connection
(``Connection.collect`` sets the transport's ``client`` to None), then closes it. Closing a channel
restores the messages the worker still holds unacknowledged (a running late-ack task, an ETA/countdown
message waiting for its time). kombu's Redis channel builds a fresh client for that restore from
``transport.client``, which is now None: ``AttributeError: 'NoneType' object has no attribute
'hostname'`` escapes ``Connection.close`` and stops the worker ("Unrecoverable error"). See
celery/kombu#582 and #970 for the same crash on other paths.

This channel remembers its connection details at creation and uses them for that restore, so the held
messages go back to their queue (or, while Redis is still down, stay in its unacked set and come back
after the visibility timeout) and the worker reconnects.
"""

from kombu.transport import redis


class Channel(redis.Channel):
    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self._connection_info = self.connection.client

    def _connparams(self, asynchronous=False):
        transport = self.connection
        if transport.client is not None or self._connection_info is None:
            return super()._connparams(asynchronous=asynchronous)
        transport.client = self._connection_info  # the connection was collected: reuse its details once
        try:
            return super()._connparams(asynchronous=asynchronous)
        finally:
            transport.client = None


class Transport(redis.Transport):
    Channel = Channel


TRANSPORT = "inferledger.broker:Transport"


def transport_for(broker_url: str) -> str | None:
    """Our transport for redis:// and rediss:// URLs; None (kombu picks by the scheme) for anything else."""
    return TRANSPORT if broker_url.startswith(("redis://", "rediss://")) else None
