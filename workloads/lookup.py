"""``workloads.get``: any workload id, built-in, endpoint (``endpoint:<name>``) or user-declared (``user:<name>``).

Here rather than in registry.py because user.py builds on the registry's types: the registry stays the
base that user-declared workloads depend on, never the other way round (no import cycle).
"""

from __future__ import annotations

from . import registry
from .user import USER, user_workload


def get(workload_id: str) -> registry.Workload:
    """The workload ``workload_id``; raises UnknownWorkload naming the known ids."""
    if workload_id.startswith(f"{USER}:"):
        return user_workload(workload_id)
    return registry.get(workload_id)
