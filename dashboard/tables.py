"""Tables shown on the dashboard pages, described once and rendered twice: as HTML and as CSV.

A page builds `Table`s from its selector data; the template renders them with `{% data_table %}` and
the view answers `?export=<table name>` with the same rows as CSV, so every table can be downloaded
and the download always matches what is on screen (raw values, units in the headers).
"""

import csv
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from decimal import Decimal

from django.http import Http404, HttpResponse
from django.utils import timezone
from django.utils.text import slugify

from inferledger.csv_cells import SPREADSHEET_BOM, safe_row


@dataclass(frozen=True)
class Column:
    header: str  # with its unit, e.g. "Cost per 1M (USD)"
    value: Callable[[object], object]
    kind: str = "text"  # text | usd | number | ms | pct | int
    link: Callable[[object], str | None] | None = None


@dataclass
class Table:
    name: str
    title: str
    columns: list[Column]
    rows: list
    empty: str = "Nothing to show yet."
    muted: Callable[[object], bool] = field(default=lambda row: False)  # greyed-out rows (e.g. infeasible)
    # Rows that state their own workload, SLA and cost basis (alarms): the CSV adds only the as-of time,
    # not the page's context, which would contradict them.
    rows_state_context: bool = False

    def cells(self) -> Iterable[tuple[object, list[tuple[Column, object, str | None]]]]:
        for row in self.rows:
            yield (
                row,
                [(column, column.value(row), column.link(row) if column.link else None) for column in self.columns],
            )


def _csv_value(value) -> str:
    if value is None:
        return ""
    if isinstance(value, float):
        return repr(value)
    if isinstance(value, Decimal):
        return format(value, "f")
    return str(value)


def _now_text() -> str:
    return timezone.now().strftime("%Y-%m-%dT%H:%M:%SZ")


def export_context(*, workload: str, sla: str, cost_basis: str, **more) -> dict:
    """What a page's figures were computed under, as CSV columns: the workload, the SLA, the cost basis
    (price kind and utilization), and anything else the page applied (keys as the column headers)."""
    return {"workload": workload, "SLA": sla, "cost basis": cost_basis, **more}


def csv_response(table: Table, *, filename_prefix: str, context: dict | None = None) -> HttpResponse:
    """The table as CSV; ``context`` (export_context()) and the as-of time are columns on every row, so a row
    copied elsewhere still says what it was computed under and when."""
    context = {**({} if table.rows_state_context else context or {}), "as of (UTC)": _now_text()}
    response = HttpResponse(content_type="text/csv; charset=utf-8")
    response["Content-Disposition"] = f'attachment; filename="{slugify(filename_prefix)}-{table.name}.csv"'
    response.write(SPREADSHEET_BOM)
    writer = csv.writer(response)
    writer.writerow(safe_row([*(column.header for column in table.columns), *context]))
    context_cells = [_csv_value(value) for value in context.values()]
    for row in table.rows:
        writer.writerow(safe_row([*(_csv_value(column.value(row)) for column in table.columns), *context_cells]))
    return response


def export_or_none(
    request, tables: list[Table], *, filename_prefix: str, context: dict | None = None
) -> HttpResponse | None:
    """The CSV for `?export=<name>` when asked for; 404 for an unknown table name."""
    name = request.GET.get("export")
    if not name:
        return None
    for table in tables:
        if table.name == name:
            return csv_response(table, filename_prefix=filename_prefix, context=context)
    raise Http404(f"no table named {name!r} on this page")
