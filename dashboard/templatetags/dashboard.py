"""Formatting for the dashboard: money as USD, times in ms, and the shared table partial."""

from dataclasses import dataclass
from decimal import Decimal, InvalidOperation

from django import template
from django.utils.html import conditional_escape as escape
from django.utils.html import format_html
from django.utils.safestring import mark_safe

from accounting import policy
from accounting.empty_answers import moment_text
from accounting.pricing.money import usd_text
from accounting.pricing.utilization import utilization_assumed

register = template.Library()


def _number(value):
    if value is None or value == "":
        return None
    try:
        return Decimal(str(value))
    except (InvalidOperation, ValueError):
        return None


@register.filter
def usd(value):
    """Money by magnitude (pricing.money.usd_text): cents from a dollar up, three significant digits below."""
    number = _number(value)
    return "—" if number is None else usd_text(number)


@register.filter
def ms(value):
    number = _number(value)
    if number is None:
        return "—"
    return f"{number:,.3f}" if abs(number) < 100 else f"{number:,.1f}"


@register.filter
def num(value, places=1):
    number = _number(value)
    if number is None:
        return "—"
    return f"{number:,.{int(places)}f}"


@register.filter
def pct(value):
    number = _number(value)
    return "—" if number is None else f"{number * 100:,.1f}%"


@register.filter
def absolute(value):
    number = _number(value)
    return None if number is None else abs(number)


FORMATTERS = {
    "usd": usd,
    "ms": ms,
    "number": num,
    "int": lambda v: num(v, 0),
    "pct": pct,
    "text": lambda v: "—" if v in (None, "") else v,
    "note": lambda v: "—" if v in (None, "") else (v if len(str(v)) <= 60 else f"{str(v)[:59]}…"),
}


@register.simple_tag(takes_context=True)
def data_table(context, table):
    """A table (dashboard.tables.Table) as HTML, with its CSV link. Written in Python rather than a template:
    a template loop over every cell was a third of the overview page's time (about 6 ms for four tables)."""
    query = context["request"].GET.copy()
    query["export"] = table.name
    header = format_html(
        '<section class="table" id="table-{}">\n  <header>\n    <h2>{}</h2>\n    <a class="csv" href="{}" download>CSV'
        "</a>\n  </header>\n",
        table.name, table.title, f"?{query.urlencode()}",
    )  # fmt: skip
    return header + (table.body_html if isinstance(table, DrawnTable) else table_body_html(table))


def table_body_html(table) -> str:
    """A table's rows (or the line saying it is empty) as HTML, closing the section data_table opens."""
    rows = list(table.cells())
    if not rows:
        return format_html('  <p class="empty">{}</p>\n</section>', table.empty)
    head = "".join(f'<th scope="col">{escape(column.header)}</th>' for column in table.columns)
    body = "".join(_row_html(table.muted(row), cells) for row, cells in rows)
    return mark_safe(  # noqa: S308 (every text in it is escaped above and in _row_html)
        f'  <div class="scroll">\n  <table>\n    <thead><tr>{head}</tr></thead>\n    <tbody>\n{body}    </tbody>\n'
        "  </table>\n  </div>\n</section>"
    )


@dataclass(frozen=True)
class DrawnTable:
    """A table whose rows were drawn once (table_body_html) for a cached answer: what data_table shows of it."""

    name: str
    title: str
    body_html: str

    @classmethod
    def of(cls, table) -> "DrawnTable":
        return cls(table.name, table.title, table_body_html(table))


def _row_html(muted: bool, cells) -> str:
    parts = []
    for column, value, link in cells:
        text = escape(FORMATTERS[column.kind](value))
        numeric = ' class="num"' if column.kind not in ("text", "note") else ""
        title = f' title="{escape(value)}"' if column.kind == "note" and value else ""
        content = f'<a href="{escape(link)}">{text}</a>' if link else text
        parts.append(f"<td{numeric}{title}>{content}</td>")
    muted_class = ' class="muted"' if muted else ""
    return f"      <tr{muted_class}>\n        {''.join(parts)}\n      </tr>\n"


@register.filter(name="utilization_assumed")
def utilization_assumed_filter(value):
    """What a cost at this utilization assumes, in words (accounting.pricing.utilization)."""
    number = _number(value)
    return "—" if number is None else utilization_assumed(number)


@register.simple_tag
def snapshot_utilization_assumed():
    """What the cost history (snapshots) assumes about utilization, in words."""
    return utilization_assumed(policy.snapshot_utilization())


@register.inclusion_tag("dashboard/_as_of.html")
def as_of_line(as_of, what="Every figure on this page"):
    """The moment the page answers for: "as of <date>" (runs started and prices in force by then), or now."""
    return {"as_of": as_of, "text": moment_text(as_of) if as_of else "", "what": what}
