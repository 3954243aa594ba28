"""The unit an undeclared benchmark's stored results count (workloads.lookup asks; the registry is Django-free)."""

from __future__ import annotations

import workloads
from results.models import OperatingPoint


def unit_of_undeclared(workload_id: str) -> workloads.Unit | None:
    """Output tokens when its stored points count tokens, samples when they count samples, None when none is stored."""
    units = set(OperatingPoint.objects.filter(run__workload_name=workload_id).values_list("throughput_unit", flat=True))
    if units == {workloads.Unit.OUTPUT_TOKENS.value}:
        return workloads.Unit.OUTPUT_TOKENS
    return workloads.Unit.SAMPLES if units else None
