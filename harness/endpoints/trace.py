"""Request traces: the traffic users really have, read from the formats they keep it in.

A trace is a list of requests, each with its arrival offset (seconds from the first request) when the format
records one, and its input and output lengths in tokens or its prompt text:

- ``mooncake``: JSONL of ``{"timestamp": ms, "input_length": tokens, "output_length": tokens}`` (Mooncake's
  released traces and NVIDIA AIPerf's trace replay; ``hash_ids``, the prefix-cache block ids, is kept);
- ``vllm-custom``: vLLM bench's ``--dataset-name custom`` JSONL of ``{"prompt": text, "output_tokens": n}``
  (no arrival times);
- ``sharegpt``: the ShareGPT conversation JSON (a list of ``{"id", "conversations": [{"from", "value"}]}``),
  read as vLLM bench reads it: the first human turn is the prompt, the reply after it the reference output
  (no arrival times, no token counts: lengths are stated in characters).

A malformed trace is refused whole, naming the line (the entry, for ShareGPT) and the field; an unknown field
is refused, not dropped.
"""

from __future__ import annotations

import hashlib
import json
import math
from dataclasses import dataclass, replace
from pathlib import Path

from workloads.registry import DECLARED_NAME_PATTERN

from ..stats import percentile

FORMATS = ("mooncake", "vllm-custom", "sharegpt")
MOONCAKE_FIELDS = {"timestamp", "input_length", "output_length", "hash_ids"}
VLLM_CUSTOM_FIELDS = {"prompt", "output_tokens"}
NAME_PATTERN = DECLARED_NAME_PATTERN  # workloads.registry: endpoints, traces and model files alike
# A declared trace as a job's spec carries it to the agent: the file's text travels with its digest.
DECLARATION_FIELDS = ("name", "format", "content", "sha256")


class TraceError(ValueError):
    """A trace that cannot be read: ``line`` (1-based; the entry for ShareGPT) and ``field`` name where."""

    def __init__(self, line: int, field: str, message: str):
        self.line, self.field = line, field
        super().__init__(f"line {line}, field {field!r}: {message}")


@dataclass(frozen=True)
class TraceRequest:
    offset_s: float | None  # arrival after the trace's first request; None: the format records none
    input_tokens: int | None = None
    output_tokens: int | None = None
    prompt: str | None = None
    reference_output: str | None = None
    hash_ids: tuple[int, ...] = ()


@dataclass(frozen=True)
class Trace:
    name: str
    format: str
    requests: tuple[TraceRequest, ...]
    sha256: str = ""  # of the file's text, when the trace was read from a declaration

    @property
    def workload_id(self) -> str:
        """A declared trace is a workload: its runs rank only against runs of the same trace."""
        return f"trace:{self.name}"

    @property
    def has_token_lengths(self) -> bool:
        return all(r.input_tokens is not None and r.output_tokens is not None for r in self.requests)

    @property
    def has_arrivals(self) -> bool:
        return all(request.offset_s is not None for request in self.requests)

    def distributions(self) -> dict:
        """The trace's length and arrival distributions, as a run states them."""
        stated: dict = {"requests": len(self.requests), "format": self.format}
        for name, values in (
            ("input_tokens", [r.input_tokens for r in self.requests if r.input_tokens is not None]),
            ("output_tokens", [r.output_tokens for r in self.requests if r.output_tokens is not None]),
            ("prompt_chars", [len(r.prompt) for r in self.requests if r.prompt is not None]),
            ("reference_output_chars", [len(r.reference_output) for r in self.requests if r.reference_output]),
        ):
            if values:
                stated[name] = summary(values)
        if self.has_arrivals and len(self.requests) > 1:
            offsets = sorted(r.offset_s for r in self.requests if r.offset_s is not None)
            gaps = [b - a for a, b in zip(offsets, offsets[1:], strict=False)]
            mean_gap = sum(gaps) / len(gaps)
            spread = math.sqrt(sum((gap - mean_gap) ** 2 for gap in gaps) / len(gaps))
            stated["arrivals"] = {
                "duration_s": offsets[-1] - offsets[0],
                "mean_rate_per_s": len(gaps) / (offsets[-1] - offsets[0]) if offsets[-1] > offsets[0] else None,
                "interarrival_s": summary(gaps),
                # 1 for Poisson arrivals, below 1 for steadier traffic, above for bursts.
                "interarrival_cv": spread / mean_gap if mean_gap > 0 else None,
            }
        else:
            stated["arrivals"] = None
        return stated


def summary(values: list) -> dict:
    ordered = sorted(values)
    return {"mean": sum(ordered) / len(ordered), "p50": percentile(ordered, 0.5), "p90": percentile(ordered, 0.9),
            "p99": percentile(ordered, 0.99), "min": ordered[0], "max": ordered[-1]}  # fmt: skip


def _count(entry: dict, line: int, field: str, *, required: bool = True, minimum: int = 1) -> int | None:
    if field not in entry:
        if required:
            raise TraceError(line, field, "missing")
        return None
    value = entry[field]
    if isinstance(value, bool) or not isinstance(value, int) or value < minimum:
        raise TraceError(line, field, f"must be an integer of at least {minimum}, got {value!r}")
    return value


def _unknown(entry: dict, known: set[str], line: int) -> None:
    extra = sorted(set(entry) - known)
    if extra:
        raise TraceError(line, extra[0], f"unknown field (known: {', '.join(sorted(known))})")


def _json_lines(text: str):
    for line, raw in enumerate(text.splitlines(), start=1):
        if not raw.strip():
            continue
        try:
            entry = json.loads(raw)
        except json.JSONDecodeError as exc:
            raise TraceError(line, "(line)", f"not JSON: {exc.msg} at column {exc.colno}") from None
        if not isinstance(entry, dict):
            raise TraceError(line, "(line)", "must be a JSON object")
        yield line, entry


def _mooncake(text: str) -> list[TraceRequest]:
    requests, first_ms, previous_ms = [], None, None
    for line, entry in _json_lines(text):
        _unknown(entry, MOONCAKE_FIELDS, line)
        stamp = entry.get("timestamp")
        if isinstance(stamp, bool) or not isinstance(stamp, int | float) or not math.isfinite(stamp) or stamp < 0:
            raise TraceError(line, "timestamp", f"must be a number of milliseconds, got {stamp!r}")
        if previous_ms is not None and stamp < previous_ms:
            raise TraceError(line, "timestamp", f"goes back in time ({stamp} after {previous_ms})")
        hash_ids = entry.get("hash_ids", [])
        if not isinstance(hash_ids, list) or not all(isinstance(h, int) and not isinstance(h, bool) for h in hash_ids):
            raise TraceError(line, "hash_ids", "must be a list of integers")
        first_ms = stamp if first_ms is None else first_ms
        previous_ms = stamp
        requests.append(TraceRequest(
            offset_s=(stamp - first_ms) / 1000.0,
            input_tokens=_count(entry, line, "input_length"),
            output_tokens=_count(entry, line, "output_length"),
            hash_ids=tuple(hash_ids),
        ))  # fmt: skip
    return requests


def _vllm_custom(text: str) -> list[TraceRequest]:
    requests = []
    for line, entry in _json_lines(text):
        _unknown(entry, VLLM_CUSTOM_FIELDS, line)
        prompt = entry.get("prompt")
        if not isinstance(prompt, str) or not prompt:
            raise TraceError(line, "prompt", "must be a non-empty string")
        requests.append(TraceRequest(None, prompt=prompt, output_tokens=_count(entry, line, "output_tokens",
                                                                               required=False)))  # fmt: skip
    return requests


def _sharegpt(text: str) -> list[TraceRequest]:
    try:
        entries = json.loads(text)
    except json.JSONDecodeError as exc:
        raise TraceError(exc.lineno, "(file)", f"not JSON: {exc.msg}") from None
    if not isinstance(entries, list):
        raise TraceError(1, "(file)", "must be a JSON list of conversations")
    requests = []
    for line, entry in enumerate(entries, start=1):
        turns = entry.get("conversations") if isinstance(entry, dict) else None
        if not isinstance(turns, list) or len(turns) < 2:
            raise TraceError(line, "conversations", "must list at least a human turn and the reply")
        for index, turn in enumerate(turns[:2]):
            if not isinstance(turn, dict) or not isinstance(turn.get("value"), str) or "from" not in turn:
                raise TraceError(line, f"conversations[{index}]", 'must be {"from": ..., "value": text}')
        requests.append(TraceRequest(None, prompt=turns[0]["value"], reference_output=turns[1]["value"]))
    return requests


READERS = {"mooncake": _mooncake, "vllm-custom": _vllm_custom, "sharegpt": _sharegpt}


def parse_trace(name: str, text: str, trace_format: str) -> Trace:
    if trace_format not in READERS:
        raise TraceError(0, "format", f"unknown trace format {trace_format!r}; known: {', '.join(FORMATS)}")
    requests = READERS[trace_format](text)
    if not requests:
        raise TraceError(1, "(file)", "the trace holds no request")
    return Trace(name, trace_format, tuple(requests))


def load_trace(name: str, path: str | Path, trace_format: str) -> Trace:
    return parse_trace(name, Path(path).read_text(encoding="utf-8"), trace_format)


def content_sha256(text: str) -> str:
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


def declaration_errors(declaration) -> dict[str, str]:
    """Each problem of a trace declaration as a job carries it (``DECLARATION_FIELDS``), keyed by field: unknown
    fields, a bad name or format, content whose digest is not the declared one, and a malformed trace (its line and
    field under ``content``)."""
    if not isinstance(declaration, dict):
        return {"trace": "must be a trace declaration (name, format, content, sha256)"}
    errors = {str(key): f"unknown field; known: {', '.join(DECLARATION_FIELDS)}"
              for key in declaration if key not in DECLARATION_FIELDS}  # fmt: skip
    name, text = declaration.get("name"), declaration.get("content")
    if not isinstance(name, str) or not NAME_PATTERN.match(name):
        errors["name"] = "must be 1-48 lowercase letters, digits, '.', '_' or '-'"
    if declaration.get("format") not in FORMATS:
        errors["format"] = f"unknown {declaration.get('format')!r}; known: {', '.join(FORMATS)}"
    if not isinstance(text, str):
        errors["content"] = "must be the trace file's text"
    elif declaration.get("sha256") != content_sha256(text):
        errors["sha256"] = "is not the SHA-256 of content: the trace is not the one declared"
    elif "format" not in errors:
        try:
            parse_trace(name if isinstance(name, str) else "", text, declaration["format"])
        except TraceError as exc:
            errors["content"] = str(exc)
    return errors


def trace_from_declaration(declaration: dict) -> Trace:
    """The trace a declaration carries; raises ValueError naming each bad field."""
    errors = declaration_errors(declaration)
    if errors:
        raise ValueError("; ".join(f"trace.{key}: {message}" for key, message in errors.items()))
    trace = parse_trace(declaration["name"], declaration["content"], declaration["format"])
    return replace(trace, sha256=declaration["sha256"])
