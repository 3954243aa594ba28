"""Dashboard pages: parse the GET controls, read through selectors, draw with figures, render or export CSV."""

import hashlib
from dataclasses import dataclass
from decimal import Decimal
from functools import partial

from django.conf import settings
from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.core.exceptions import PermissionDenied, ValidationError
from django.http import JsonResponse
from django.shortcuts import redirect, render
from django.utils.html import format_html_join
from django.views.decorators.http import require_GET

from accounting import comparisons, policy
from accounting.api.answers import ranking_answer
from accounting.coverage import default_workload, workload_coverage
from accounting.empty_answers import moment_text
from accounting.errors import FieldError
from accounting.pricing.money import cost_basis_text
from accounting.pricing.utilization import default_utilization
from accounting.question import CostQuestion
from accounting.rankings.cache import per_data_version
from accounting.sla import Sla
from agents.jobs import job_create
from agents.jobspec import JobSpecError
from metering import selectors as metering_selectors
from metering.models import Deployment
from metering.selectors import monthly_trend
from results.point_logs import log_download
from results.verdict import describe_accuracy

from . import figures, page_cache, page_tables, selectors
from .figures import unit_words
from .forms import AsOfField, CompareForm, EnqueueForm, OverviewForm, TrendsForm
from .tables import export_context, export_or_none
from .templatetags.dashboard import DrawnTable


def _page(request, template: str, context: dict, *, tables: list, filename: str, export_context: dict | None = None):
    export = export_or_none(request, tables, filename_prefix=filename, context=export_context)
    if export is not None:
        return export
    return render(request, template, {**context, "tables": {table.name: table for table in tables}})


def _decimal_param(request, name):
    from decimal import Decimal, InvalidOperation

    try:
        value = Decimal(request.GET.get(name, ""))
    except InvalidOperation:
        return None
    return value if value.is_finite() and value > 0 else None


def _workload_and_sla(request, form, data, *, default=None):
    """The workload the page answers for and its SLA: the bounds typed in, else the workload's reference SLA.

    With neither a workload nor a model class asked for, `default` (else the tabular reference) is answered.
    Returns (workload, sla), or (None, None) after adding the error to the form.
    """
    asked, model_class = data.get("workload") or None, data.get("model_class") or None
    if asked is None and model_class is None and default is not None:
        workload = default
    else:
        try:
            fallback = None if asked else "tabular"
            workload = policy.resolve_workload(workload=asked, model_class=model_class or fallback)
        except policy.ParameterError as exc:
            form.add_error(None, f"{exc.field}: {exc}")
            return None, None
    # A bound present in the URL, even empty (= no SLA), replaces the default.
    typed = {name: data.get(name) for name in SLA_CONTROLS.values() if name in request.GET}
    if not typed:
        return workload, policy.reference_sla(workload)
    try:
        return workload, policy.requested_sla(workload, **typed)
    except policy.ParameterError as exc:
        form.add_error(None, f"{exc.field}: {exc}")
        return workload, policy.reference_sla(workload)


def _as_of(request):
    """(the page's as_of from the query string, or None for now; the error to show for one it cannot read)."""
    try:
        return AsOfField().clean(request.GET.get("as_of", "")), ""
    except ValidationError as exc:
        return None, f"as_of: {' '.join(exc.messages)}"


def _as_of_context(as_of) -> dict:
    """The CSV export's line for the moment the page answers for (only when one was asked)."""
    return {"figures as of": moment_text(as_of)} if as_of else {}


SLA_CONTROLS = {"p99_ms": "sla_p99_ms", "ttft_p99_ms": "ttft_p99_ms", "tpot_p99_ms": "tpot_p99_ms"}


def _showing_applied_sla(request, form, sla, make_form):
    """The form again with the applied default SLA in its boxes when the URL named none, so the boxes show
    the SLA in force and pressing the button untouched keeps the same answer (and puts it in the URL)."""
    if any(name in request.GET for name in SLA_CONTROLS.values()) or not sla or form.errors:
        return form
    shown = request.GET.copy()
    for bound, value in sla.bounds.items():
        shown[SLA_CONTROLS[bound]] = f"{value.normalize():f}"
    form = make_form(shown)
    form.is_valid()
    return form


def _standard_sla_links(request, workload, applied: Sla) -> list[dict]:
    """The workload's standard SLAs by name (the reference first), each a link to this page under it: the SLA
    picker, so another standard SLA (MLPerf Interactive, say) is one click away."""
    links = []
    for name, sla in policy.standard_sla_choices(workload):
        query = request.GET.copy()
        query["workload"] = workload.id
        for bound, parameter in SLA_CONTROLS.items():
            value = sla.bounds.get(bound)
            query[parameter] = "" if value is None else f"{value.normalize():f}"
        links.append({"name": name, "sla": sla, "url": f"?{query.urlencode()}", "applied": sla == applied})
    return links


def _overview_form(data, *, workload, published, coverage):
    """The overview's form showing the workload answered for (in place of a model class) and the published rule."""
    shown = data.copy()
    shown["workload"] = workload.id
    shown.pop("model_class", None)
    shown["published"] = published.value
    form = OverviewForm(shown, coverage=coverage)
    form.is_valid()
    return form


@login_required
def overview(request):
    """What one inference of a workload costs on each accelerator. The content is drawn once per data version and
    query string (page_cache); a CSV export builds its rows for the request."""
    if request.GET.get("export"):
        page = _overview_page(request, export=True)
        export = export_or_none(request, page.tables, filename_prefix=page.filename, context=page.export_context)
        if export is not None:
            return export
    content = page_cache.content(request, "overview", lambda: _overview_page(request).html(request))
    return render(request, "dashboard/overview.html", {"content": content})


def _overview_page(request, *, export: bool = False) -> page_cache.Page:
    coverage = per_data_version("workload-coverage", workload_coverage)  # one read of every run, kept per data version
    form = OverviewForm(request.GET, coverage=coverage)
    form.is_valid()
    params = {name: form.cleaned_data.get(name) for name in form.fields}
    params["model_class"] = request.GET.get("model_class") or None  # old links: the class's reference workload
    default = default_workload(coverage)
    workload, sla = _workload_and_sla(request, form, params, default=default)
    if workload is None:
        workload, sla = default, policy.reference_sla(default)
    published = policy.Published(params.get("published") or policy.DEFAULT_PUBLISHED)
    if not form.errors:
        shown = partial(_overview_form, workload=workload, published=published, coverage=coverage)
        form = _showing_applied_sla(request, shown(request.GET), sla, shown)
    question = CostQuestion.ask(  # the one question the page asks (accounting.question)
        workload=workload.id,
        sla_p99_ms=sla.p99_ms,
        ttft_p99_ms=sla.ttft_p99_ms,
        tpot_p99_ms=sla.tpot_p99_ms,
        price_kind=params["price_kind"] or "cloud_on_demand",
        utilization=params["utilization"],  # None: the configured default (accounting.pricing.utilization)
        published=published,
        as_of=params.get("as_of"),  # None: now
    )
    answer = ranking_answer(question)  # the rankings API's cached answer to the same question
    empty_reason = answer.empty_reason  # worked out once, when the answer was built
    # The page answers what an inference costs: its cost alarms stay, of benchmark figures and of metered deployments
    # (read together per data version, which counts both); agents and jobs are on the Jobs page.
    cost_alarms, metered_alarms = per_data_version("open-alarms", _open_alarms)
    live_tables = [page_tables.alarms_table(*cost_alarms), page_tables.metered_alarms_table(*metered_alarms)]
    # What the page shows of the ranking (its summary, chart and table) is drawn once per built answer; the ranking
    # itself is read (unpickled) only to draw them or to export its table.
    drawn = answer.drawn("overview-page", lambda: _overview_drawing(answer.result(), empty_reason))
    context = {"form": form, "form_fields": _fields_html(form), "ranking": drawn, "chart": drawn.chart, "sla": sla,
               "published": published, "as_of": question.as_of, "empty_reason": empty_reason,
               "coverage": coverage.get(workload.id), "sla_links": _standard_sla_links(request, workload, sla),
               "reference_sla": policy.reference_sla(workload)}  # fmt: skip
    csv_context = export_context(
        workload=workload.id,
        sla=str(sla),
        cost_basis=cost_basis_text(drawn.price_kind, drawn.utilization),
        **{"published results": f"{published.value}: {published.description}"},
        **_as_of_context(question.as_of),
    )
    if export:  # the CSV needs the rows themselves, not their drawing
        ranking_table = page_tables.ranking_table(answer.result(), empty_reason=empty_reason)
    else:
        ranking_table = drawn.table
    return page_cache.Page("dashboard/_overview_content.html", context, [ranking_table, *live_tables],
                filename=f"overview-{workload.id}", export_context=csv_context)  # fmt: skip


def _fields_html(form) -> str:
    """The form's controls as HTML, drawn once per data version and set of values shown: the workload picker lists
    every workload with what it has results on, and drawing the controls was most of the page's rendering."""
    if form.errors:
        return _draw_fields(form)
    shown = repr(sorted((name, str(form[name].value())) for name in form.fields))
    key = f"overview-form:{hashlib.sha256(shown.encode()).hexdigest()}"
    return per_data_version(key, lambda: _draw_fields(form))


def _draw_fields(form) -> str:
    return format_html_join("", "<label>{} {}</label>", ((field.label, field) for field in form))


@dataclass(frozen=True)
class OverviewDrawing:
    """What the overview shows of one ranking: the summary line's figures, the chart and the table, drawn once."""

    workload: object  # workloads.Workload
    sla: str
    price_kind: str
    utilization: Decimal
    unit: str
    rows: list  # the first row only (the cheapest): the summary names it
    ranked_accelerator_count: int  # distinct accelerators among the ranked rows
    infeasible_count: int
    chart: str | None
    table: DrawnTable


def _open_alarms() -> tuple[tuple[list, int], tuple[list, int]]:
    """(the newest open cost alarms, how many are open), and the same of metered deployments' alarms."""
    return selectors.open_alarms(), metering_selectors.open_alarms()


def _overview_drawing(result, empty_reason) -> OverviewDrawing:
    chart = (
        figures.render(figures.ranking_bars(result.rows, unit=result.unit), "ranking-chart") if result.rows else None
    )
    return OverviewDrawing(
        workload=result.workload, sla=str(result.sla), price_kind=result.price_kind, utilization=result.utilization,
        unit=result.unit, rows=result.rows[:1], infeasible_count=len(result.infeasible), chart=chart,
        ranked_accelerator_count=len({row.accelerator.pk for row in result.rows}),
        table=DrawnTable.of(page_tables.ranking_table(result, empty_reason=empty_reason)),
    )  # fmt: skip


@login_required
def hardware(request, accelerator_id: int):
    as_of, as_of_error = _as_of(request)
    page = selectors.hardware_page(
        accelerator_id, price_kind=request.GET.get("price_kind"), workload=request.GET.get("workload"), as_of=as_of
    )
    cloud = [price for price in page.prices if not price.is_purchase]
    purchase = [price for price in page.prices if price.is_purchase]
    charts = {}
    if cloud:
        charts["cloud"] = figures.render(figures.price_history(cloud, purchase=False), "cloud-price-chart")
    if purchase:
        charts["purchase"] = figures.render(figures.price_history(purchase, purchase=True), "purchase-price-chart")
    charts["cost"] = [
        figures.render(
            figures.cost_series(
                series,
                title=f"{page.workload}: cost per 1M {unit_words(unit)} over time ({page.price_kind}, best throughput)",
                unit=unit,
            ),
            f"cost-trend-chart-{unit}",
        )
        for unit, series in page.series.items()
    ]
    tables = [
        page_tables.specs_table(page.accelerator),
        page_tables.prices_table(page.prices),
        page_tables.snapshots_table(page.snapshots),
        page_tables.runs_table(page.runs),
    ]
    context = {"page": page, "accelerator": page.accelerator, "charts": charts, "as_of_error": as_of_error,
               "as_of_shown": request.GET.get("as_of", "")}  # fmt: skip
    csv_context = export_context(
        workload=page.workload or "none measured here",
        sla="no SLA (best throughput)",
        cost_basis=cost_basis_text(page.price_kind, policy.snapshot_utilization()) if page.price_kind else "no prices",
        accelerator=str(page.accelerator),
        **_as_of_context(as_of),
    )
    return _page(request, "dashboard/hardware.html", context, tables=tables, filename=str(page.accelerator),
                 export_context=csv_context)  # fmt: skip


@login_required
def run_detail(request, run_id):
    point_index = request.GET.get("point")
    page = selectors.run_page(
        run_id,
        sla=_run_sla(request),
        point_index=int(point_index) if point_index and point_index.isdigit() else None,
    )
    run = page.run
    endpoint = (run.payload or {}).get("endpoint")  # the server's public description (no secret is stored there)
    unit = page.unit
    charts = {}
    if page.points:
        chosen_index = page.chosen.index if page.chosen else None
        charts["pareto"] = figures.render(
            figures.pareto(
                page.points, page.throughput_per_s, sla_p99_ms=page.sla_p99_ms, chosen_index=chosen_index, unit=unit
            ),
            "pareto-chart",
        )
        charts["cdf"] = figures.render(figures.latency_cdf(page.focus), "cdf-chart")
        budget_measured = any(
            getattr(point, field) is not None
            for point in page.points
            for field in ("queue_wait_mean_ms", "batch_formation_mean_ms", "compute_mean_ms")
        )  # published results state no budget: no empty chart
        if run.scenario == "server" and not endpoint and budget_measured:
            charts["budget"] = figures.render(figures.latency_budget(page.points), "budget-chart")
        if page.layers is not None and page.focus is not None:
            charts["layers"] = figures.render(
                figures.latency_layers_pareto(page.layers, page.focus.label), "latency-layers-chart"
            )
        if any(point.power_w_mean is not None for point in page.points):
            charts["power"] = figures.render(figures.point_power(page.points), "power-chart")
    tables = [
        page_tables.points_table(
            page.points,
            page.throughput_per_s,
            unit=unit,
            chosen_index=page.chosen.index if page.chosen else None,
            published=page.published is not None,
        ),
        *(
            [
                page_tables.endpoint_points_table(page.points),
                page_tables.key_value_table("endpoint_description", "Endpoint", endpoint),
            ]
            if endpoint
            else []
        ),
        *([page_tables.latency_layers_table(page.layers)] if page.layers is not None else []),
        page_tables.key_value_table("environment", "Environment", run.environment),
        page_tables.key_value_table("settings", "Settings", run.settings),
        page_tables.key_value_table("telemetry", "Telemetry summary", _flat_telemetry(run.telemetry)),
    ]
    context = {
        "page": page,
        "run": run,
        "charts": charts,
        "unit": unit,
        "chosen_throughput_per_s": page.throughput_per_s.get(page.chosen.index) if page.chosen else None,
        "accuracy": describe_accuracy(run.accuracy) if run.accuracy_passed is not None else "",
        "not_ranked": policy.why_not_ranked(run),
        "invalid_points": [point.index for point in page.points if not point.loadgen_valid],
    }
    csv_context = export_context(
        workload=run.workload_name,
        sla=f"{page.sla} (chooses the point)",
        cost_basis="not priced on this page (the run's measurements)",
        run=str(run.pk),
        accelerator=str(run.accelerator),
    )
    return _page(request, "dashboard/run.html", context, tables=tables, filename=f"run-{run.pk}",
                 export_context=csv_context)  # fmt: skip


RUN_SLA_PARAMS = {"sla": "p99_ms", "ttft": "ttft_p99_ms", "tpot": "tpot_p99_ms"}


def _run_sla(request) -> Sla | None:
    """The run page's SLA from ?sla= (p99), ?ttft=, ?tpot= (ms); None when the URL names none (the default)."""
    if not any(request.GET.get(name) for name in RUN_SLA_PARAMS):
        return None
    return Sla(**{bound: _decimal_param(request, name) for name, bound in RUN_SLA_PARAMS.items()})


def _flat_telemetry(telemetry: dict) -> dict:
    flat = {}
    for key, value in (telemetry or {}).items():
        if isinstance(value, dict):
            flat.update({f"{key}.{inner}": inner_value for inner, inner_value in value.items()})
        else:
            flat[key] = value
    return flat


@login_required
def trends(request):
    workloads = selectors.trend_workloads()
    query = request.GET.copy()
    if not query.get("workload") and workloads:
        # The same first answer as the overview's (results on the most accelerators), not the first name.
        preferred = default_workload().id
        query["workload"] = preferred if preferred in workloads else workloads[0]
    form = TrendsForm(query, workloads=workloads, accelerators=selectors.accelerators_with_snapshots())
    form.is_valid()
    data = form.cleaned_data
    price_kind = data.get("price_kind") or "cloud_on_demand"
    chosen = data.get("workload") or (workloads[0] if workloads else None)
    question = _trend_question(form, data, workload=chosen, price_kind=price_kind)
    sla = question.sla if question else Sla()
    page = selectors.trends_page(
        workload=chosen,
        price_kind=price_kind,
        sla=sla,
        accelerator_ids=[int(pk) for pk in data.get("accelerators") or []],
        workloads=workloads,
        as_of=data.get("as_of"),
    )
    sla_words = str(sla) if sla else "no SLA (best throughput)"
    charts = [
        figures.render(
            figures.cost_series(
                series,
                alarms=[mark for mark in page.alarms if mark.unit == unit],
                title=f"Cost per 1M {unit_words(unit)} over time: {page.workload}, {price_kind} prices, {sla_words}",
                unit=unit,
                height_px=460,
            ),
            f"trend-chart-{unit}",
        )
        for unit, series in page.series.items()
    ]
    metered = _metered_trend(request)
    tables = [page_tables.snapshots_table(page.snapshots), *metered.pop("tables")]
    context = {"form": form, "page": page, "charts": charts, "metered": metered, "sla": sla, "sla_words": sla_words,
               "sla_links": _standard_sla_links(request, question.workload, sla) if question else []}  # fmt: skip
    csv_context = export_context(
        workload=page.workload or "none",
        sla=sla_words,
        cost_basis=cost_basis_text(price_kind, policy.snapshot_utilization()),
        **_as_of_context(data.get("as_of")),
    )
    return _page(request, "dashboard/trends.html", context, tables=tables, filename=f"trends-{page.workload}",
                 export_context=csv_context)  # fmt: skip


def _metered_trend(request) -> dict:
    """The Trends page's production section: a chosen deployment's metered cost month by month (?deployment=<name>,
    else the first by name), beside the benchmark's prediction, as the metering API's trend answers it."""
    deployments = list(Deployment.objects.select_related("accelerator").order_by("name"))
    chosen = next((d for d in deployments if d.name == request.GET.get("deployment")), None)
    chosen = chosen or (deployments[0] if deployments else None)
    if chosen is None:
        return {"deployments": [], "chosen": None, "chart": None, "tables": []}
    months = monthly_trend(chosen)
    unit = months[-1].unit if months else policy.unit_for(policy.resolve_workload(workload=chosen.workload_name))
    chart = None
    if months:
        title = (
            f"Metered cost per 1M {unit_words(unit)} by month: {chosen.name}, {chosen.accelerator_count} x "
            f"{chosen.accelerator}, {chosen.price_kind}"
        )
        chart = figures.render(figures.metered_trend(months, title=title, unit=unit), "metered-trend-chart")
    return {
        "deployments": deployments, "chosen": chosen, "chart": chart,
        "tables": [page_tables.metered_months_table(chosen, months)],
    }  # fmt: skip


def _trend_question(form, data, *, workload: str | None, price_kind: str) -> CostQuestion | None:
    """The question a trend answers, asked as the overview asks it (accounting.question: the same workload and
    SLA rules), at the utilization snapshots are computed at. No bound typed: no SLA (best throughput), the
    series every run has. A bound that does not fit the workload (a TTFT for a vision model, a p99 for an LLM)
    is named on the form and the trend is drawn with no SLA. None without a workload."""
    if workload is None:
        return None
    bounds = {name: data.get(name) for name in SLA_CONTROLS.values()}
    ask = partial(CostQuestion.ask, workload=workload, price_kind=price_kind, utilization=policy.snapshot_utilization())
    try:
        return ask(**bounds)
    except policy.ParameterError as exc:
        form.add_error(None, f"{exc.field}: {exc}")
    try:
        return ask()
    except policy.ParameterError:
        return None


@login_required
def compare(request):
    """Two run sets of one workload, compared by accounting.comparisons (the API's rules)."""
    accelerators, scenarios = selectors.measured_accelerators(), selectors.measured_scenarios()
    form = CompareForm(request.GET, accelerators=accelerators, scenarios=scenarios)
    context = {"form": form, "sides": None}
    tables = []
    csv_context = None
    if form.is_valid():
        data = form.cleaned_data
        workload, sla = _workload_and_sla(request, form, data)
        if workload is not None:
            context.update(_comparison(data, workload, sla))
            context["form"] = _showing_applied_sla(
                request, form, sla, lambda shown: CompareForm(shown, accelerators=accelerators, scenarios=scenarios)
            )
            if context.get("scenario") and context["form"].is_valid():
                context["form"].show_applied_scenario(context["scenario"])
                context["scenario_links"] = _scenario_links(request, context["shared_scenarios"], context["scenario"])
            tables.append(page_tables.compare_table(context["sides"]))
            csv_context = export_context(
                workload=workload.id,
                sla=str(sla),
                cost_basis=cost_basis_text(data["price_kind"], context.get("utilization") or _utilization(data)),
                **{"annual volume (units of work)": data["annual_volume"]},
                **_as_of_context(data.get("as_of")),
            )
    return _page(request, "dashboard/compare.html", context, tables=tables, filename="compare",
                 export_context=csv_context)  # fmt: skip


def _utilization(data) -> Decimal:
    """The utilization the page prices at: the box's, else the configured default (accounting.pricing.utilization)."""
    return data.get("utilization") or default_utilization()


def _scenario_links(request, shared: tuple[str, ...], applied: str) -> list[dict]:
    """Each scenario both sets measured, a link to this comparison in it: another scenario is one click away."""
    links = []
    for name in shared:
        query = request.GET.copy()
        query["scenario"] = name
        links.append({"name": name, "url": f"?{query.urlencode()}", "applied": name == applied})
    return links


def _comparison(data, workload, sla) -> dict:
    labels = {side: f"{data[f'{side}_backend']}/{data[f'{side}_precision']}" for side in ("before", "after")}
    as_of = data.get("as_of")  # None: now
    run_sets = {
        side: selectors.configuration_runs(
            workload=workload.id,
            backend=data[f"{side}_backend"],
            precision=data[f"{side}_precision"],
            accelerator_id=data["accelerator"],
            as_of=as_of,
        )  # fmt: skip
        for side in ("before", "after")
    }
    by_then = f" started on or before {moment_text(as_of)}" if as_of else ""
    missing = f"no eligible runs with this backend and precision{by_then}"
    reasons = {side: missing for side, runs in run_sets.items() if not runs}
    result = None
    if not reasons:
        try:
            question = comparisons.comparison_question(  # the one question the page asks (accounting.question)
                run_sets["before"], run_sets["after"], no_sla=not sla, sla_p99_ms=sla.p99_ms,
                ttft_p99_ms=sla.ttft_p99_ms, tpot_p99_ms=sla.tpot_p99_ms, price_kind=data["price_kind"],
                utilization=data.get("utilization"),  # None: the configured default (accounting.pricing.utilization)
                as_of=as_of,  # None: now
            )  # fmt: skip
            result = comparisons.compare(
                question, before=run_sets["before"], after=run_sets["after"], annual_volume=data["annual_volume"],
                scenario=data.get("scenario") or None,
            )  # fmt: skip
        except FieldError as exc:  # a comparison's refusal (ComparisonError) or the question's (ParameterError)
            reasons = {exc.field if exc.field in labels else "before": str(exc)}
    sides = [
        selectors.CompareSide(labels[side], getattr(result, side) if result else None, reasons.get(side, ""))
        for side in ("before", "after")
    ]
    before, after = sides
    context = {"sides": sides, "before": before, "after": after, "sla": sla, "workload": workload,
               "unit": policy.unit_for(workload), "as_of": as_of}  # fmt: skip
    if result is not None:
        before_usd, after_usd = result.before.cost_per_million_usd, result.after.cost_per_million_usd
        context["verdict"], context["verdict_explanation"] = result.verdict, result.explanation
        context["utilization"] = result.utilization
        context["scenario"] = result.scenario
        context["shared_scenarios"] = result.shared_scenarios
        context["savings_usd"] = result.annual_savings_usd
        context["change_fraction"] = (after_usd - before_usd) / before_usd if before_usd else None
        context["chart"] = figures.render(
            figures.before_after(before_usd=before_usd, after_usd=after_usd, unit=context["unit"]), "compare-chart"
        )
    return context


@login_required
def jobs(request):
    if request.method == "POST":
        return _enqueue(request)
    active, finished, agents = selectors.jobs_page()
    tables = [
        page_tables.jobs_table(active, name="active", title="Queue and running jobs"),
        page_tables.jobs_table(finished, name="finished", title="Recent finished jobs"),
        page_tables.agents_table(agents),
    ]
    form = EnqueueForm() if request.user.is_staff else None
    context = {"active": active, "form": form, "has_agents": bool(agents)}
    return _page(request, "dashboard/jobs.html", context, tables=tables, filename="jobs")


def _enqueue(request):
    if not request.user.is_staff:
        raise PermissionDenied("Only staff can enqueue benchmark jobs.")
    form = EnqueueForm(request.POST)
    if form.is_valid():
        data = form.cleaned_data
        spec = {"suite": data["suite"], "workloads": data["workloads"], "time_limit_s": data["time_limit_s"],
                "user_workload": data["user_workload"]}  # fmt: skip
        try:
            job = job_create(spec=spec, agent=data["agent"], created_by=request.user)
        except JobSpecError as exc:
            form.add_error(None, "; ".join(f"{field}: {error}" for field, error in exc.errors.items()))
        else:
            messages.success(request, f"Job {job.pk} queued on {job.agent}.")
            return redirect("dashboard:jobs")
    active, finished, agents = selectors.jobs_page()
    tables = [
        page_tables.jobs_table(active, name="active", title="Queue and running jobs"),
        page_tables.jobs_table(finished, name="finished", title="Recent finished jobs"),
        page_tables.agents_table(agents),
    ]
    context = {"active": active, "form": form, "has_agents": bool(agents), "tables": {t.name: t for t in tables}}
    return render(request, "dashboard/jobs.html", context, status=400)


@login_required
@require_GET
def jobs_progress(request):
    """Progress of the given jobs (?id=…&id=…), polled by the Jobs page every few seconds."""
    ids = [value for value in request.GET.getlist("id") if _is_uuid(value)][:100]
    return JsonResponse({"jobs": selectors.job_progress(ids), "poll_ms": settings.DASHBOARD_POLL_MS})


def _is_uuid(value: str) -> bool:
    import uuid

    try:
        uuid.UUID(value)
    except ValueError:
        return False
    return True


@login_required
def loadgen_log(request, run_id, index: int, kind: str):
    """LoadGen's own summary or detail log of one operating point, as it wrote it."""
    return log_download(run_id, index, kind)
