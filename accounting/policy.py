"""Which runs count, in which unit, under which standard SLAs: the rules stated once.

Runs that count (rankings, snapshots, recommendations):
  - the run's model class is the one asked for;
  - LoadGen judged every point VALID (`loadgen_valid`) and the accuracy guard did not fail
    (`accuracy_passed` is True, or None for an fp32 reference run);
  - per (accelerator, origin, workload, backend, precision, scenario), only the latest run by
    `started_at` (ties broken by id) among those started at or before `as_of`;
  - measured runs only, unless external (published) results are asked for; the two never share a row.
Throughput is inferences/s, except for `llm-decoder` where it is output tokens/s
(`output_tokens_per_s`, or `throughput_per_s` when the point's unit is already output tokens).
"""

from decimal import Decimal

from django.conf import settings
from django.db.models import Case, F, FloatField, Q, Value, When, Window
from django.db.models.functions import RowNumber

from agents.harness.verdict import describe_accuracy
from agents.models import BenchmarkRun, RunOrigin

LLM_CLASS = "llm-decoder"
UNIT_INFERENCES, UNIT_OUTPUT_TOKENS = "inferences", "output_tokens"

# The SLAs every snapshot is computed under, per model class (p99 in ms); None means "no SLA".
# Chosen around MLPerf's server latency bounds (ResNet-50 15 ms, BERT 130 ms) and interactive budgets.
STANDARD_SLAS_MS: dict[str, tuple] = {
    "cv-classification": (Decimal("15"), Decimal("100"), None),
    "encoder": (Decimal("50"), Decimal("130"), None),
    "llm-decoder": (Decimal("2000"), Decimal("20000"), None),
    "tabular": (Decimal("5"), Decimal("20"), None),
}
SNAPSHOT_UTILIZATION = Decimal("1")


def standard_slas(model_class: str) -> tuple:
    table = getattr(settings, "ACCOUNTING_STANDARD_SLAS_MS", None) or STANDARD_SLAS_MS
    return tuple(table.get(model_class, (None,)))


def unit_for(model_class: str) -> str:
    return UNIT_OUTPUT_TOKENS if model_class == LLM_CLASS else UNIT_INFERENCES


def throughput_expression(model_class: str, prefix: str = ""):
    """SQL for the ranking throughput of a point (NULL when the point has none in the class's unit)."""
    if model_class != LLM_CLASS:
        return F(f"{prefix}throughput_per_s")
    return Case(
        When(**{f"{prefix}output_tokens_per_s__isnull": False}, then=F(f"{prefix}output_tokens_per_s")),
        When(**{f"{prefix}throughput_unit": UNIT_OUTPUT_TOKENS}, then=F(f"{prefix}throughput_per_s")),
        default=Value(None),
        output_field=FloatField(),
    )


def point_throughput(point, model_class: str) -> float | None:
    """The same rule as throughput_expression, on a loaded OperatingPoint."""
    if model_class != LLM_CLASS:
        return point.throughput_per_s
    if point.output_tokens_per_s is not None:
        return point.output_tokens_per_s
    return point.throughput_per_s if point.throughput_unit == UNIT_OUTPUT_TOKENS else None


def eligible_runs(
    *, model_class: str, as_of=None, include_external=False, precision=None, backend=None, accelerator_ids=None
):
    runs = BenchmarkRun.objects.filter(model_class=model_class, loadgen_valid=True).filter(
        Q(accuracy_passed=True) | Q(accuracy_passed__isnull=True)
    )
    if not include_external:
        runs = runs.filter(origin=RunOrigin.MEASURED)
    if as_of is not None:
        runs = runs.filter(started_at__lte=as_of)
    if precision:
        runs = runs.filter(precision=precision)
    if backend:
        runs = runs.filter(backend=backend)
    if accelerator_ids is not None:
        runs = runs.filter(accelerator_id__in=accelerator_ids)
    return runs


def why_not_ranked(run: BenchmarkRun) -> list[str]:
    """The reasons ``eligible_runs`` leaves ``run`` out of every ranking (empty when it can be ranked)."""
    reasons = []
    if not run.loadgen_valid:
        reasons.append("LoadGen judged a point INVALID")
    if run.accuracy_passed is False:
        reasons.append(f"accuracy guard {describe_accuracy(run.accuracy)}")
    return reasons


def latest_run_ids(runs):
    """A subquery of the ids of the latest run per (accelerator, origin, workload, backend, precision, scenario)."""
    ranked = runs.annotate(
        recency=Window(
            RowNumber(),
            partition_by=[
                F("accelerator_id"),
                F("origin"),
                F("workload_name"),
                F("backend"),
                F("precision"),
                F("scenario"),
            ],
            order_by=[F("started_at").desc(), F("id").asc()],
        )
    )
    return ranked.filter(recency=1).values("id")
