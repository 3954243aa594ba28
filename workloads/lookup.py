"""``workloads.get``: any workload id, built-in, endpoint (``endpoint:<name>``), user-declared (``user:<name>``) or an
MLPerf benchmark the registry does not declare (``mlperf:<name>``).

Here rather than in registry.py because user.py builds on the registry's types: the registry stays the
base that user-declared workloads depend on, never the other way round (no import cycle).
"""

from __future__ import annotations

from collections.abc import Callable

from . import registry
from .user import USER, user_workload

# The unit an undeclared benchmark's stored results count, asked of whoever stores them (the results app sets it:
# the registry is Django-free and the unit is a fact of the stored figures, not of the name).
_undeclared_unit: Callable[[str], registry.Unit | None] = lambda workload_id: None  # noqa: E731


def set_undeclared_unit_source(source: Callable[[str], registry.Unit | None]) -> None:
    global _undeclared_unit
    _undeclared_unit = source


def get(workload_id: str) -> registry.Workload:
    """The workload ``workload_id``; raises UnknownWorkload naming the known ids."""
    if workload_id.startswith(f"{USER}:"):
        return user_workload(workload_id)
    if workload_id.startswith(f"{registry.UNDECLARED}:"):
        return registry.undeclared_workload(workload_id, unit=_undeclared_unit(workload_id) or registry.Unit.SAMPLES)
    return registry.get(workload_id)
