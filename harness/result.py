"""The ``inferledger.result/1`` payload: JSON Schema validation plus checks JSON Schema cannot express.

``validate_result(payload)`` raises ``ResultValidationError`` whose message starts with the JSON path of
the offending field, e.g. ``points[0].latency_ms.p99: -1 is less than the minimum of 0``. The Django
ingest imports both names from here.
"""

from __future__ import annotations

import functools
import json
import math
from collections.abc import Iterator
from datetime import datetime
from pathlib import Path

from jsonschema import Draft202012Validator
from jsonschema.exceptions import best_match

import workloads as registry

SCHEMA_PATH = Path(__file__).parent / "schema" / "inferledger.result.v1.json"


class ResultValidationError(ValueError):
    """A payload that does not satisfy ``inferledger.result/1``; ``path`` names the bad field."""

    def __init__(self, path: str, message: str):
        super().__init__(f"{path}: {message}")
        self.path, self.reason = path, message


@functools.cache
def load_schema() -> dict:
    return json.loads(SCHEMA_PATH.read_text())


@functools.cache
def _validator() -> Draft202012Validator:
    schema = load_schema()
    Draft202012Validator.check_schema(schema)
    return Draft202012Validator(schema)


def json_path(parts) -> str:
    """['points', 0, 'latency_ms', 'p99'] -> 'points[0].latency_ms.p99' ('$' for the root)."""
    text = ""
    for part in parts:
        text += f"[{part}]" if isinstance(part, int) else (f".{part}" if text else str(part))
    return text or "$"


def _non_finite(value, parts: tuple = ()) -> Iterator[tuple[tuple, float]]:
    if isinstance(value, float) and not math.isfinite(value):
        yield parts, value
    elif isinstance(value, dict):
        for key, item in value.items():
            yield from _non_finite(item, (*parts, key))
    elif isinstance(value, list | tuple):
        for index, item in enumerate(value):
            yield from _non_finite(item, (*parts, index))


def validate_result(payload: dict) -> None:
    """Raise ResultValidationError unless ``payload`` is a valid, finite ``inferledger.result/1``."""
    for parts, value in _non_finite(payload):
        raise ResultValidationError(json_path(parts), f"{value!r} is not a finite number")
    error = best_match(_validator().iter_errors(payload))
    if error is not None:
        raise ResultValidationError(json_path(error.absolute_path), error.message)
    if _instant(payload["finished_at"]) < _instant(payload["started_at"]):
        raise ResultValidationError("finished_at", "is earlier than started_at")
    _check_workload(payload["workload"])


def _check_workload(workload: dict) -> None:
    """``workload.id`` names a registered workload of the stated model class (results are keyed by it)."""
    try:
        registered = registry.get(workload["id"])
    except registry.UnknownWorkload as exc:
        raise ResultValidationError("workload.id", str(exc)) from None
    if registered.model_class != workload["model_class"]:
        raise ResultValidationError(
            "workload.model_class",
            f"{workload['model_class']!r} is not the class of workload {registered.id!r} ({registered.model_class})",
        )


def _instant(text: str) -> datetime:
    return datetime.fromisoformat(text.replace("Z", "+00:00"))


def dumps_result(payload: dict) -> str:
    """Validate then serialise (NaN/Inf can never reach disk)."""
    validate_result(payload)
    return json.dumps(payload, indent=2, allow_nan=False, sort_keys=False) + "\n"
