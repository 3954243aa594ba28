"""Published results as rows for finance and scripts (``manage.py published_results --csv``).

Every stored result is a row: the ranked ones, those of a benchmark the registry does not declare (ranked only
against themselves) and the held ones (no catalog entry for their part yet, or a system of several parts), each with
``ranking`` saying which; ``value``/``unit`` are the figure as its source published it, and ``table_value``/
``table_unit`` the results table's where the result is in one too.
"""

import workloads
from results.models import HeldPublishedResult, PublishedResult

from . import metrics

# The first columns are a contract (issue #13); more may follow them, never before them.
COLUMNS = (
    "round", "division", "submitter", "system", "benchmark", "scenario", "metric", "value", "unit",
    "accelerator", "accelerators_per_system", "source_path",
)  # fmt: skip
EXTRA_COLUMNS = (
    "accelerator_as_published", "accelerator_variant", "system_type", "workload", "model_class", "run_scenario",
    "inferred_from", "per_accelerator_value", "per_accelerator_unit", "run_id", "availability", "table_value",
    "table_unit", "ranking",
)  # fmt: skip


def _per_accelerator(result: PublishedResult) -> tuple[str, str]:
    """The figure per accelerator and its unit; none for a latency (the system's: it does not divide)."""
    figure, unit = metrics.figure_of(
        value=result.value, unit=result.unit, metric=result.metric, benchmark=result.benchmark
    )
    if unit == "ns":
        return "", ""
    return repr(float(result.value) / result.accelerators_per_system), f"{unit} per accelerator"


def rows():
    """One row per stored published result, in provenance order: stored as runs, then held."""
    results = PublishedResult.objects.select_related("run__accelerator").order_by(
        "round", "division", "submitter", "system", "benchmark", "scenario"
    )
    for result in results.iterator(chunk_size=500):
        run = result.run
        per_accelerator, per_accelerator_unit = _per_accelerator(result)
        yield (
            result.round, result.division, result.submitter, result.system, result.benchmark, result.scenario,
            result.metric, result.value, result.unit, str(run.accelerator), result.accelerators_per_system,
            result.source_path, result.accelerator_name, result.accelerator_variant, result.system_type,
            run.workload_name, run.model_class, run.scenario, result.inferred_from, per_accelerator,
            per_accelerator_unit, str(run.pk), result.availability,
            result.table_value, result.table_unit,
            workloads.NOT_DECLARED if run.model_class == workloads.UNDECLARED else "ranked",
        )  # fmt: skip
    held_results = HeldPublishedResult.objects.order_by(
        "round", "division", "submitter", "system", "benchmark", "scenario"
    )
    for held in held_results:
        record = held.record
        yield (
            held.round, held.division, held.submitter, held.system, held.benchmark, held.scenario, held.metric,
            held.value, held.unit, "", held.accelerators_per_system or "", held.source_path,
            " + ".join(held.accelerator_names), "", record.get("system_description", {}).get("system_type", ""),
            "", "", "", record.get("inferred_from", ""), "", "", str(held.pk), held.availability,
            record.get("table_value", ""), record.get("table_unit", ""), f"not ranked: {held.reason}",
        )  # fmt: skip
