"""What every accounting view does around its calculation: validate the question, and answer a question the
calculation refuses with a 400 that names the field (the views stay thin; the rules live in the calculations)."""

from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from types import MappingProxyType

from rest_framework.exceptions import ValidationError

from accounting.errors import FieldError
from accounting.pricing.utilization import default_utilization

# Accepted query strings and what they parsed to, per serializer: checking a question (its fields, the workload,
# the SLA, the published rule) cost a cached ranking request about 2 ms of CPU on our 2-core host, and the same
# few questions come back. Kept only where the parse reads nothing that changes while the process runs: registry
# workloads (user: and endpoint: ids are read from outside), with the configured default utilization in the key.
_PARSED: dict = {}
PARSED_MAX = 512  # distinct query strings kept per process; the whole memo is dropped when full


def validated(serializer_class, data) -> dict:
    """`data` through the serializer: its validated data, or a 400 naming every invalid field."""
    form = serializer_class(data=data)
    form.is_valid(raise_exception=True)
    return form.validated_data


def validated_query(serializer_class, query) -> Mapping:
    """validated() for a GET query string, the same parse reused for the same query string (read-only).
    A refused query string is parsed anew every time (its 400 is not kept)."""
    if ":" in (query.get("workload") or ""):
        return validated(serializer_class, query)
    key = (serializer_class, str(default_utilization()), tuple(sorted((k, tuple(v)) for k, v in query.lists())))
    found = _PARSED.get(key)
    if found is None:
        found = MappingProxyType(dict(validated(serializer_class, query)))
        if len(_PARSED) >= PARSED_MAX:
            _PARSED.clear()
        _PARSED[key] = found
    return found


@contextmanager
def refused_as_400(*errors: type[ValueError], field: str = "non_field_errors") -> Iterator[None]:
    """Raise any of `errors` as a 400: under the field a FieldError names, else under `field`."""
    try:
        yield
    except errors as exc:
        raise ValidationError({exc.field if isinstance(exc, FieldError) else field: [str(exc)]}) from None
