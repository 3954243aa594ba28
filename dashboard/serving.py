"""The LLM serving page: cost per 1M tokens read at the speed users need (issue #15).

Kept in its own modules (this view and form, `serving_figures`, `templates/dashboard/serving.html`) so
the other pages can change without touching it.
"""

from decimal import Decimal

from django import forms
from django.contrib.auth.decorators import login_required
from django.shortcuts import render

from accounting import policy
from accounting.api.answers import serving_answer
from accounting.empty_answers import moment_text, why_no_fronts
from accounting.pricing.money import cost_basis_text
from accounting.provenance import origin_label
from accounting.question import CostQuestion
from accounting.serving.front import best_covered_target
from accounting.serving.points import fronts, llm_workload
from hardware_catalog.models import PriceKind
from workloads import registry

from . import figures, page_cache, serving_figures
from .forms import AsOfField, ShowsAppliedValues
from .tables import Column, Table, export_context, export_or_none

DEFAULT_WORKLOAD = "llama2-70b-99"


def _llm_workloads():
    """The registry's LLM workloads, then the endpoints (``endpoint:<name>``) that runs were measured on."""
    from results.models import BenchmarkRun

    known = [(w.id, w.title) for w in registry.all_workloads() if w.is_llm and w.standard_llm_slas]
    endpoints = BenchmarkRun.objects.filter(model_class=registry.ENDPOINT).values_list("workload_name", flat=True)
    return known + [(name, name) for name in sorted(set(endpoints))]


class ServingForm(ShowsAppliedValues):
    workload = forms.ChoiceField(choices=_llm_workloads, required=False, initial=DEFAULT_WORKLOAD)
    interactivity_tps_per_user = forms.DecimalField(
        label="Target tokens/s per user", min_value=Decimal("0.001"), max_digits=12, decimal_places=3, required=False
    )
    price_kind = forms.ChoiceField(choices=PriceKind.choices, required=False, initial=PriceKind.CLOUD_ON_DEMAND)
    input_tokens_per_request = forms.DecimalField(
        label="Input tokens per request", min_value=Decimal("1"), max_digits=12, decimal_places=1, required=False
    )
    as_of = AsOfField()


def readout_table(ranking) -> Table:
    def costs(row):
        return row.basis.costs

    def at(point):
        return f"{point.label} ({point.interactivity_tps_per_user:.2f} tok/s per user)"

    def between(row):
        if row.reading.exact:
            return f"measured: {at(row.reading.lower)}"
        return f"{at(row.reading.lower)} ↔ {at(row.reading.upper)}"

    def output_range(row):
        found = costs(row).output_interval_usd_per_million
        return "" if found is None else f"{found[0]} – {found[1]}"

    def energy(row):
        if row.energy is None:
            return None
        return f"{row.energy.output_tokens_per_joule:.3g} ({row.energy.power_source})"

    columns = [
        Column("Rank", lambda r: f"{r.rank}{' (tied)' if r.tied_with_next else ''}"),
        Column("Hardware · engine · precision", lambda r: r.group.label),
        Column("Output tok/s per accelerator", lambda r: r.reading.output_tokens_per_s_per_accelerator, "number"),
        Column("Accelerators per replica", lambda r: r.reading.accelerators_per_replica, "int"),
        Column("Hourly per accelerator (USD)", lambda r: r.basis.hourly.total_usd_per_hour, "usd"),
        Column("Per 1M output tokens (USD)", lambda r: costs(r).output_usd_per_million, "usd"),
        Column("Per 1M output, range over runs (USD)", output_range),
        Column("Per 1M input tokens (USD)", lambda r: costs(r).input_usd_per_million, "usd"),
        Column("Per 1M total tokens (USD)", lambda r: costs(r).total_usd_per_million, "usd"),
        Column("Output tokens per joule", energy),
        Column("Read between", between),
        Column("Origin", lambda r: origin_label(r.group.origin)),
    ]
    return Table(
        "readout", "Cost read at the target, per hardware", columns, ranking.rows, empty="No front reaches it."
    )


def refused_table(ranking) -> Table:
    def span(refusal):
        found = refusal.group.front.interactivity_range
        return "" if found is None else f"{found[0]:.2f} – {found[1]:.2f}"

    columns = [
        Column("Hardware · engine · precision", lambda r: r.group.label),
        Column("Measured interactivity (tok/s per user)", span),
        Column("Why not read", lambda r: r.reason),
        Column("Origin", lambda r: origin_label(r.group.origin)),
    ]
    return Table("refused", "Not read at this target", columns, ranking.refused, empty="Every front reaches it.")


@login_required
def serving(request):
    """Cost per 1M tokens at the speed users need. The content is drawn once per data version and query string
    (page_cache): with no target given, finding the speed every front reaches reads every front. A CSV export
    builds its rows for the request."""
    if request.GET.get("export"):
        page = _serving_page(request)
        export = export_or_none(request, page.tables, filename_prefix=page.filename, context=page.export_context)
        if export is not None:
            return export
    content = page_cache.content(request, "serving", lambda: _serving_page(request).html(request))
    return render(request, "dashboard/serving.html", {"content": content})


def _serving_page(request) -> page_cache.Page:
    form = ServingForm(request.GET)
    form.is_valid()
    data = form.cleaned_data
    workload = data.get("workload") or DEFAULT_WORKLOAD
    target, as_of = data.get("interactivity_tps_per_user"), data.get("as_of")
    if target is None:
        found = best_covered_target(group.front for group in fronts(workload=workload, as_of=as_of))
        target = None if found is None else Decimal(repr(found))
        if target is not None and not form.errors:
            # The box shows the target the page reads at, so pressing the button untouched keeps the answer.
            shown = request.GET.copy()
            shown["interactivity_tps_per_user"] = f"{target.quantize(Decimal('0.001')).normalize():f}"
            form = ServingForm(shown)
            form.is_valid()
            target = form.cleaned_data.get("interactivity_tps_per_user") or target
    spec = llm_workload(workload)
    context = {"form": form, "workload": spec, "ranking": None, "chart": None, "target": target, "as_of": as_of}
    tables = []
    if target is None:  # no front to read: say why (nothing stored, none by as_of, ...)
        context["empty_reason"] = why_no_fronts(spec, as_of=as_of)
    else:
        question = CostQuestion.ask(  # the one question the page asks (accounting.question)
            workload=workload, price_kind=data.get("price_kind") or PriceKind.CLOUD_ON_DEMAND,
            interactivity_tps_per_user=target, input_tokens_per_request=data.get("input_tokens_per_request"),
            as_of=as_of,
        )  # fmt: skip
        answer = serving_answer(question)  # the serving ranking API's cached answer to the same question
        ranking = answer.result()
        tables = [readout_table(ranking), refused_table(ranking)]
        draw = lambda: figures.render(serving_figures.serving_fronts(ranking), "serving-chart", height=560)  # noqa: E731
        chart = answer.drawn("serving-chart", draw)
        missing_total = any(row.basis.costs.total_usd_per_million is None for row in ranking.rows)
        context.update({"ranking": ranking, "chart": chart, "missing_total": missing_total,
                        "empty_reason": answer.empty_reason})  # fmt: skip
    price_kind = data.get("price_kind") or PriceKind.CLOUD_ON_DEMAND
    csv_context = export_context(
        workload=workload,
        sla=f"interactivity >= {target} tokens/s per user" if target is not None else "no target",
        cost_basis=cost_basis_text(
            price_kind, ranking.utilization if target is not None else policy.snapshot_utilization()
        ),
        **{"input tokens per request": data.get("input_tokens_per_request") or "the workload's own"},
        **({"figures as of": moment_text(as_of)} if as_of else {}),
    )
    return page_cache.Page("dashboard/_serving_content.html", context, tables, filename=f"serving-{workload}",
                           export_context=csv_context)  # fmt: skip
