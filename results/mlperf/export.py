"""Published results as rows for finance and scripts (``manage.py published_results --csv``)."""

from results.models import PublishedResult

# The first columns are a contract (issue #13); more may follow them, never before them.
COLUMNS = (
    "round", "division", "submitter", "system", "benchmark", "scenario", "metric", "value", "unit",
    "accelerator", "accelerators_per_system", "source_path",
)  # fmt: skip
EXTRA_COLUMNS = (
    "accelerator_as_published", "accelerator_variant", "system_type", "workload", "model_class", "run_scenario",
    "inferred_from", "per_accelerator_value", "per_accelerator_unit", "run_id",
)  # fmt: skip


def _per_accelerator(result: PublishedResult) -> str:
    if result.unit == "ns":
        return ""  # a latency is the system's; it does not divide by accelerators
    return repr(float(result.value) / result.accelerators_per_system)


def rows():
    """One row per stored published result, in provenance order."""
    results = PublishedResult.objects.select_related("run__accelerator").order_by(
        "round", "division", "submitter", "system", "benchmark", "scenario"
    )
    for result in results.iterator(chunk_size=500):
        run = result.run
        yield (
            result.round, result.division, result.submitter, result.system, result.benchmark, result.scenario,
            result.metric, result.value, result.unit, str(run.accelerator), result.accelerators_per_system,
            result.source_path, result.accelerator_name, result.accelerator_variant, result.system_type,
            run.workload_name, run.model_class, run.scenario, result.inferred_from, _per_accelerator(result),
            "" if result.unit == "ns" else f"{result.unit} per accelerator", str(run.pk),
        )  # fmt: skip
