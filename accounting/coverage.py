"""Which workloads have results, measured and/or published, and on how many accelerators.

The dashboard's workload picker says it for every workload, and a page asked for no workload answers for
`default_workload`: the one with results on the most accelerators, so the first screen ranks real hardware.
"""

from dataclasses import dataclass

import workloads
from results.models import BenchmarkRun, RunOrigin
from workloads import Workload


@dataclass(frozen=True)
class Coverage:
    """Accelerators with runs that count (policy: LoadGen VALID, accuracy guard not failed) per origin."""

    measured: frozenset[int] = frozenset()
    published: frozenset[int] = frozenset()

    @property
    def accelerators(self) -> int:
        return len(self.measured | self.published)

    def describe(self) -> str:
        """'measured on 1, published on 12 accelerators', or 'no results yet'."""
        parts = [f"{word} on {len(ids)}" for word, ids in (("measured", self.measured), ("published", self.published))
                 if ids]  # fmt: skip
        if not parts:
            return "no results yet"
        return ", ".join(parts) + (" accelerator" if self.accelerators == 1 else " accelerators")


def workload_coverage() -> dict[str, Coverage]:
    """Workload id -> its Coverage, for every workload with a run that counts (one query)."""
    found: dict[str, dict[str, set[int]]] = {}
    rows = BenchmarkRun.objects.that_count().values_list("workload_name", "origin", "accelerator_id").distinct()
    for workload_id, origin, accelerator_id in rows.order_by():
        found.setdefault(workload_id, {}).setdefault(origin, set()).add(accelerator_id)
    return {
        workload_id: Coverage(
            frozenset(by_origin.get(RunOrigin.MEASURED, ())), frozenset(by_origin.get(RunOrigin.EXTERNAL, ()))
        )
        for workload_id, by_origin in found.items()
    }


def default_workload(coverage: dict[str, Coverage] | None = None, *, fallback_model_class: str = "tabular") -> Workload:
    """The workload a page answers for when none is asked: of the registry's workloads (smoke-test stand-ins
    are answered only when named), the one with results on the most accelerators, then the most measured
    ones, then by id; with no results at all, the reference workload of `fallback_model_class`."""
    coverage = workload_coverage() if coverage is None else coverage
    candidates = [w for w in workloads.all_workloads() if not w.is_smoke_test and w.id in coverage]
    if not candidates:
        return workloads.reference_for(fallback_model_class)
    return min(candidates, key=lambda w: (-coverage[w.id].accelerators, -len(coverage[w.id].measured), w.id))
