"""Per-agent seals on the reports agents send through the broker. Django-free on the signing side.

Anyone who can reach the broker can publish a task message, and can copy one it saw. So every report an agent
sends (its registration, heartbeats, job start, progress, results, end) carries ``seal``: the time it was
signed, a random nonce, and an HMAC-SHA256 over the task's name, its arguments, that time and that nonce,
keyed with the secret issued to that agent at enrollment (``manage.py enroll_agent NAME``). The control plane
recomputes it with the key it stored for the named agent, refuses a report signed longer ago than
INFERLEDGER_AGENT_MESSAGE_MAX_AGE_S (or from the future), and refuses a nonce it has already accepted
(agents.control); a report refused changes nothing, and a result refused is quarantined.
"""

from __future__ import annotations

import hashlib
import hmac
import json
import secrets
import time

SEAL_KWARG = "seal"
NONCE_BYTES = 16


def new_secret() -> str:
    return secrets.token_hex(32)


def _message(task_name: str, args: list, signed_at: float, nonce: str) -> bytes:
    return json.dumps(
        [task_name, args, signed_at, nonce], sort_keys=True, separators=(",", ":"), allow_nan=False
    ).encode()


def _digest(secret: str, task_name: str, args: list, signed_at: float, nonce: str) -> str:
    return hmac.new(secret.encode(), _message(task_name, args, signed_at, nonce), hashlib.sha256).hexdigest()


def seal(secret: str, task_name: str, args: list, *, signed_at: float | None = None, nonce: str | None = None) -> dict:
    """{'signed_at': unix seconds, 'nonce': hex, 'signature': hex} for this report, signed now."""
    signed_at = round(time.time() if signed_at is None else signed_at, 3)
    nonce = nonce or secrets.token_hex(NONCE_BYTES)
    return {"signed_at": signed_at, "nonce": nonce, "signature": _digest(secret, task_name, args, signed_at, nonce)}


def verify(secret: str, task_name: str, args: list, report_seal) -> bool:
    """True when ``report_seal`` was made with ``secret`` over exactly this task, these arguments, time and nonce."""
    if not secret or not isinstance(report_seal, dict):
        return False
    signed_at, nonce, signature = (report_seal.get(key) for key in ("signed_at", "nonce", "signature"))
    if not isinstance(signed_at, int | float) or isinstance(signed_at, bool) or not nonce or not signature:
        return False
    try:
        expected = _digest(secret, task_name, args, signed_at, str(nonce))
    except (TypeError, ValueError):
        return False
    return hmac.compare_digest(expected, str(signature))
