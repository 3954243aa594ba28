"""Declaring a request trace on the control plane: its file read once, checked, stored with its digest and the
length and arrival distributions it states, for jobs to replay against endpoints (``trace:<name>``)."""

from __future__ import annotations

from django.db import IntegrityError, transaction

from harness.endpoints.trace import FORMATS, NAME_PATTERN, TraceError, content_sha256, parse_trace

from .models import RequestTrace

MAX_TITLE_CHARS = 200


class TraceDeclarationError(ValueError):
    """A declaration refused; ``errors`` maps each bad field to what is wrong (a malformed trace: its line and
    field, under ``content``)."""

    def __init__(self, errors: dict[str, str]):
        super().__init__("; ".join(f"{field}: {message}" for field, message in errors.items()))
        self.errors = errors


def trace_declare(*, name: str, format: str, content: str, title: str = "") -> RequestTrace:  # noqa: A002
    """Parse ``content`` as a ``format`` trace and store it under ``name`` with its digest and distributions; raises
    TraceDeclarationError, storing nothing, when any field is bad or the name is taken (a declared trace is never
    replaced: its runs would mix two traces)."""
    errors = {}
    if not isinstance(name, str) or not NAME_PATTERN.match(name):
        errors["name"] = "must be 1-48 lowercase letters, digits, '.', '_' or '-'"
    if format not in FORMATS:
        errors["format"] = f"unknown {format!r}; known: {', '.join(FORMATS)}"
    if not isinstance(title, str) or len(title) > MAX_TITLE_CHARS:
        errors["title"] = f"at most {MAX_TITLE_CHARS} characters"
    if not isinstance(content, str) or not content.strip():
        errors["content"] = "must be the trace file's text"
    elif "format" not in errors:
        try:
            trace = parse_trace(name if "name" not in errors else "", content, format)
        except TraceError as exc:
            errors["content"] = str(exc)
    if "name" not in errors and RequestTrace.objects.filter(name=name).exists():
        errors["name"] = f"{name!r} is already declared (as trace:{name}); declare another name"
    if errors:
        raise TraceDeclarationError(errors)
    try:
        with transaction.atomic():
            return RequestTrace.objects.create(
                name=name, title=title, format=format, content=content, sha256=content_sha256(content),
                distributions=trace.distributions(),
            )  # fmt: skip
    except IntegrityError:  # declared by a concurrent request since the check above
        raise TraceDeclarationError({"name": f"{name!r} is already declared (as trace:{name})"}) from None
