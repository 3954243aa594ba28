"""Why an answer has nothing to show, in words a person can act on: the one place that says it.

An answer with no row names the first rule of its question that left nothing, in the order the engines apply
them (``accounting.policy.eligible_runs``, then the price in force, then the SLA rule):

1. no run or published result of the workload is stored at all;
2. some are stored, but none counts (LoadGen INVALID, a measurement not valid, the accuracy guard failed);
3. none started on or before ``as_of`` (the earliest date there is, named);
4. none at the asked precision / backend (the ones stored, named);
5. none under the published rule (``published=none`` when only published results exist);
6. none of their accelerators has a price of the kind in force at ``as_of`` (the earliest such price, named);
7. every accelerator with a price misses the SLA (how many each bound excludes, and the best figure);
8. otherwise the engine's own reasons for each one left out (a front that does not reach the speed asked).

Utilization scales every cost and never empties an answer, so it is never the reason. The rankings API, the
LLM serving API (ranking and fronts) and the dashboard pages all ask ``why_empty`` / ``why_no_fronts``;
the engines stay unaware of it (it reads their answers, never the other way round).
"""

from __future__ import annotations

from collections import Counter
from datetime import datetime, time

from django.db.models import Min

from accounting import policy
from accounting import sla as sla_rule
from accounting.question import CostQuestion
from accounting.serving.points import stored_names_of
from hardware_catalog.models import Accelerator, Price
from hardware_catalog.selectors import cheapest_prices_in_force
from results.models import BenchmarkRun, OperatingPoint, RunOrigin
from workloads import Workload


def moment_text(at: datetime) -> str:
    """A date for an as-of that is the end of a day (what a YYYY-MM-DD as_of means), else the date-time."""
    if at.time() == time.max:
        return at.date().isoformat()
    return at.isoformat(timespec="minutes")


def why_empty(question: CostQuestion, answer) -> str | None:
    """Why ``answer`` (a rankings ``Ranking``, or an LLM ``ServingRanking``: it lists ``refused``) for ``question``
    has no row; None when it has rows."""
    if answer.rows:
        return None
    serving = hasattr(answer, "refused")
    at = answer.as_of
    eligible, reason = _eligible_or_reason(
        question.workload, as_of=question.as_of, published=question.published, precision=question.precision,
        backend=question.backend, serving=serving,
    )  # fmt: skip
    if reason:
        return reason
    left_out = [(refusal.group.accelerator, refusal.reason) for refusal in answer.refused] if serving else [
        (row.accelerator, row.reason) for row in answer.infeasible
    ]  # fmt: skip
    accelerators = list(
        Accelerator.objects.filter(pk__in=eligible.values("accelerator_id")).select_related("priced_as")
    )
    priced = cheapest_prices_in_force(
        accelerators, kind=question.price_kind, at=at, region=question.region, provider=question.provider
    )
    if not priced:
        return _no_price(question, accelerators, at)
    if question.sla:
        excluded = _sla_exclusions(question, eligible.filter(accelerator_id__in=priced))
        if excluded is not None:
            return excluded
    return _left_out(question, [(acc, why) for acc, why in left_out if acc.pk in priced], len(priced))


def why_no_fronts(
    workload: Workload, *, as_of=None, published=policy.Published.ALL, precision=None, backend=None
) -> str | None:
    """Why an LLM workload has no serving front under these filters; None when some run counts for one
    (a front then exists unless no point states output tokens/s, said so)."""
    eligible, reason = _eligible_or_reason(
        workload, as_of=as_of, published=published, precision=precision, backend=backend, serving=True
    )
    if reason:
        return reason
    return (
        f"no operating point of the {eligible.count()} results of {workload.id} that count states output "
        "tokens/s, so none can be drawn on a front"
    )


def _runs_of(workload: Workload, runs, *, serving: bool):
    """The runs of the workload as each engine finds them: the rankings by workload id; the serving fronts also
    under a published benchmark's or the harness's name (accounting.serving.points.stored_names_of)."""
    if not serving:
        return runs.filter(workload_name=workload.id)
    runs = runs.filter(model_class=workload.model_class)
    return runs.filter(stored_names_of(workload.id, runs))


def _eligible_or_reason(workload: Workload, *, as_of, published, precision, backend, serving: bool):
    """(the runs that count for the question, None), or (None, why none does): steps 1-5 of the module doc."""
    name = workload.id
    stored = _runs_of(workload, BenchmarkRun.objects.all(), serving=serving)
    if not stored.exists():
        return None, (
            f"no run or published result of {name} is stored: measure it (a benchmark job on an agent) or import "
            "published MLPerf results"
        )
    counting = stored.that_count()
    if not counting.exists():
        return None, _none_counts(name, stored)
    if as_of is not None:
        by_then = counting.filter(started_at__lte=as_of)
        if not by_then.exists():
            earliest = counting.aggregate(earliest=Min("started_at"))["earliest"]
            return None, (
                f"no result of {name} that counts started on or before {moment_text(as_of)}: the earliest started "
                f"on {_earliest_text(earliest, as_of)}"
            )
        counting = by_then
    when = f" on or before {moment_text(as_of)}" if as_of is not None else ""
    filtered = counting
    asked = []
    if precision:
        filtered, asked = filtered.filter(precision=precision), [*asked, f"precision {precision}"]
    if backend:
        filtered, asked = filtered.filter(backend=backend), [*asked, f"backend {backend}"]
    if not filtered.exists():
        precisions = ", ".join(sorted(set(counting.values_list("precision", flat=True))))
        backends = ", ".join(sorted(set(counting.values_list("backend", flat=True))))
        return None, (
            f"no result of {name}{when} at {' on '.join(asked)}: those that count are at precision {precisions} "
            f"on backend {backends}"
        )
    eligible = _runs_of(
        workload,
        policy.eligible_runs(workload=None, as_of=as_of, published=published, precision=precision, backend=backend),
        serving=serving,
    )
    if not eligible.exists():  # only published=none leaves nothing here: every counting run is published
        return None, (
            f"only published results of {name}{when} count ({filtered.filter(origin=RunOrigin.EXTERNAL).count()}), "
            f"and published={policy.Published(published).value} counts measured runs only: ask published=fill or all"
        )
    return eligible, None


def _none_counts(name: str, stored) -> str:
    total = stored.count()
    causes = {
        "LoadGen judged a point INVALID": stored.filter(loadgen_valid=False).count(),
        "a measurement not valid (rounds disagree or the host was unfit)": stored.filter(
            measurement_valid=False
        ).count(),
        "the accuracy guard failed": stored.filter(accuracy_passed=False).count(),
    }
    named = "; ".join(f"{count} with {cause}" for cause, count in causes.items() if count)
    return f"none of the {total} stored runs of {name} counts ({named}): each run's page says why"


def _earliest_text(earliest: datetime, as_of: datetime) -> str:
    return earliest.isoformat(timespec="minutes") if earliest.date() == as_of.date() else earliest.date().isoformat()


def _where(question: CostQuestion) -> str:
    named = [f"region {question.region}" if question.region else "", f"provider {question.provider}" if
             question.provider else ""]  # fmt: skip
    return "".join(f" in {part}" for part in named if part)


def _no_price(question: CostQuestion, accelerators: list[Accelerator], at: datetime) -> str:
    """Step 6: none of the accelerators with results has a price of the kind in force at `at`."""
    names = ", ".join(sorted(str(accelerator) for accelerator in accelerators))
    kind, where = question.price_kind, _where(question)
    rows = Price.objects.current().filter(
        kind=kind, accelerator_id__in={accelerator.pricing_accelerator.pk for accelerator in accelerators}
    )
    if question.region:
        rows = rows.filter(region=question.region)
    if question.provider:
        rows = rows.filter(provider__iexact=question.provider)
    first = rows.select_related("accelerator").order_by("effective_from", "pk").first()
    said = (
        f"none of the {len(accelerators)} accelerators with results ({names}) has a {kind} price{where} in force "
        f"on {moment_text(at)}"
    )
    if first is None:
        return f"{said}, nor any {kind} price{where} at all"
    return (
        f"{said}: the earliest takes effect on {first.effective_from.date().isoformat()} "
        f"({first.accelerator}, {first.provider} {first.instance_type}, price row {first.pk})"
    )


def _sla_exclusions(question: CostQuestion, runs) -> str | None:
    """Step 7: how many accelerators (with a price) each bound of the SLA excludes, by their best figures under
    the SLA rule (accounting.sla.best_figures); None when some accelerator meets every bound (not the SLA then)."""
    latest = OperatingPoint.objects.filter(run_id__in=policy.latest_run_ids(runs))
    best = sla_rule.best_figures(latest, workload=question.workload, partition=["run__accelerator_id"])
    if not best:
        return None
    bounds = question.sla.bounds
    if any(question.sla.holds({name: row[name] for name in bounds}) for row in best):
        return None
    parts = []
    for name, bound in bounds.items():
        figures = [row[name] for row in best]
        missed = sum(1 for value in figures if value is None or not value <= float(bound))
        known = [value for value in figures if value is not None]
        best_text = f"the best is {min(known):.3f} ms" if known else "none reports it"
        parts.append(f"{sla_rule.Sla(**{name: bound})} excludes {missed} ({best_text})")
    return (
        f"all {len(best)} accelerators with results and a {question.price_kind} price in force miss the SLA "
        f"{question.sla}: {'; '.join(parts)}"
    )


def _left_out(question: CostQuestion, left_out: list, priced: int) -> str:
    """Step 8: the engine's own reasons for each accelerator (with a price) it left out, counted."""
    if not left_out:
        return (
            f"none of the {priced} accelerators with results and a {question.price_kind} price has an operating "
            f"point with a throughput in {question.workload.unit.value}"
        )
    reasons = Counter(reason for _, reason in left_out).most_common()
    said = "; ".join(f"{reason} ({count})" for reason, count in reasons[:REASONS_SAID])
    if len(reasons) > REASONS_SAID:
        # Reasons that name their own figures (each front's slowest speed) differ for every result: 228 of them
        # made a 57,000-character reason, sent in a header too. The answer's refused rows list each one.
        others = sum(count for _, count in reasons[REASONS_SAID:])
        said += f"; and {others} more, for {len(reasons) - REASONS_SAID} other reasons (each listed in the answer)"
    return f"all {len(left_out)} results with a {question.price_kind} price in force are left out: {said}"


REASONS_SAID = 3  # the most common reasons an empty answer spells out; the rest are counted


def why_no_snapshots(snapshots, *, as_of: datetime | None, what: str) -> str:
    """Why a cost history shows nothing: ``snapshots`` is the history asked for before ``as_of`` is applied (a
    CostSnapshot queryset), ``what`` names it ("NVIDIA H100 on resnet50, cloud_on_demand prices")."""
    if as_of is not None:
        earliest = snapshots.aggregate(earliest=Min("effective_at"))["earliest"]
        if earliest is not None and earliest > as_of:
            return (
                f"no cost of {what} was in effect on or before {moment_text(as_of)}: the earliest is from "
                f"{_earliest_text(earliest, as_of)}"
            )
    return (
        f"no cost of {what} is recorded: one is recorded when a run that counts is stored for hardware with a price "
        "of the kind, and when a price arrives for hardware with such runs"
    )
