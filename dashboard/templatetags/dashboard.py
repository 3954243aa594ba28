"""Formatting for the dashboard: money as USD, times in ms, and the shared table partial."""

from decimal import Decimal, InvalidOperation

from django import template

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


@register.inclusion_tag("dashboard/_table.html", takes_context=True)
def data_table(context, table):
    request = context["request"]
    query = request.GET.copy()
    query["export"] = table.name
    rows = [
        {
            "muted": table.muted(row),
            "cells": [
                {
                    "text": FORMATTERS[column.kind](value),
                    "title": value if column.kind == "note" else "",
                    "link": link,
                    "numeric": column.kind not in ("text", "note"),
                }
                for column, value, link in cells
            ],
        }
        for row, cells in table.cells()
    ]
    return {"table": table, "rows": rows, "csv_url": f"?{query.urlencode()}"}


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
