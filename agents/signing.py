"""Per-agent signatures on the reports agents send through the broker. Django-free on the signing side.

Anyone who can reach the broker can publish a task message. So every report an agent sends (its
registration, heartbeats, job start, progress, results, end) carries ``signature``: an HMAC-SHA256 over
the task's name and its arguments, keyed with the secret issued to that agent at enrollment
(``manage.py enroll_agent NAME``). The control plane recomputes it with the key it stored for the named
agent; a report that does not verify changes nothing, and a result that does not is quarantined.
"""

from __future__ import annotations

import hashlib
import hmac
import json
import secrets

SIGNATURE_KWARG = "signature"


def new_secret() -> str:
    return secrets.token_hex(32)


def _message(task_name: str, args: list) -> bytes:
    return json.dumps([task_name, args], sort_keys=True, separators=(",", ":"), allow_nan=False).encode()


def sign(secret: str, task_name: str, args: list) -> str:
    return hmac.new(secret.encode(), _message(task_name, args), hashlib.sha256).hexdigest()


def verify(secret: str, task_name: str, args: list, signature: str | None) -> bool:
    if not secret or not signature:
        return False
    try:
        expected = sign(secret, task_name, args)
    except (TypeError, ValueError):
        return False
    return hmac.compare_digest(expected, str(signature))
