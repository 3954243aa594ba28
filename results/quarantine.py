"""What the quarantine keeps of a refused message: everything, in a form PostgreSQL can store.

PostgreSQL text cannot hold a NUL character: a payload with one made the quarantine insert itself fail
(DataError) and the message vanished. NULs are stored escaped as the six characters ``\\u0000`` (JSON's own
spelling; lone surrogates likewise), with the size and SHA-256 of the text as received.

A sender whose signature did not verify (or who sent none) is anyone who can reach the broker: its payload
is kept as a prefix of UNVERIFIED_PREFIX_CHARS characters plus the size and digest of the whole, so a flood
of large forgeries cannot fill the database; a verified agent's payload is kept whole, for replay.
"""

import hashlib
from dataclasses import dataclass
from typing import Any

UNVERIFIED_PREFIX_CHARS = 4096
# A staff member reading one entry gets at most this much of its raw text (the list never returns it).
DETAIL_RAW_MAX_CHARS = 1_000_000
NUL = "\x00"
NUL_ESCAPED = "\\u0000"


def escape_nul(text: str) -> str:
    """``text`` as PostgreSQL can store it: NULs as ``\\u0000``, lone surrogates (not UTF-8) as ``\\udxxx``."""
    return text.replace(NUL, NUL_ESCAPED).encode("utf-8", "backslashreplace").decode("utf-8")


def contains_nul(value: Any) -> bool:
    """Whether any string in a decoded JSON document (keys included) holds a NUL character."""
    if isinstance(value, str):
        return NUL in value
    if isinstance(value, dict):
        return any(contains_nul(key) or contains_nul(item) for key, item in value.items())
    if isinstance(value, list):
        return any(contains_nul(item) for item in value)
    return False


@dataclass(frozen=True)
class KeptText:
    raw: str  # NUL-escaped; a prefix when truncated
    raw_size_bytes: int  # of the text as received, UTF-8
    raw_sha256: str  # of the text as received, UTF-8
    raw_truncated: bool

    def as_fields(self) -> dict:
        return {
            "raw": self.raw,
            "raw_size_bytes": self.raw_size_bytes,
            "raw_sha256": self.raw_sha256,
            "raw_truncated": self.raw_truncated,
        }


def kept_text(raw: str, *, sender_verified: bool) -> KeptText:
    """What a quarantine row stores of ``raw``: whole for a verified sender, a bounded prefix otherwise."""
    encoded = raw.encode("utf-8", "surrogatepass")
    truncated = not sender_verified and len(raw) > UNVERIFIED_PREFIX_CHARS
    shown = raw[:UNVERIFIED_PREFIX_CHARS] if truncated else raw
    return KeptText(escape_nul(shown), len(encoded), hashlib.sha256(encoded).hexdigest(), truncated)
