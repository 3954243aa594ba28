"""A page's content (what its template draws under the site header) kept per data version and query string.

A page that only reads answers draws the same HTML for the same query until the data changes: drawing it (parsing
the form, reading the answer, its chart and tables, rendering) cost several times what serving the answer to the
API costs. So the content is drawn once per data version, release and query string, in the cache all workers
share (accounting.rankings.cache.per_data_version), and a repeat costs the session, one cache read and the site's
base template. Only what is the same for every user goes in it: the header (who is logged in, the logout form's
CSRF token) is drawn per request around it.
"""

import hashlib
from collections.abc import Callable
from dataclasses import dataclass

from django.template.loader import render_to_string
from django.utils.safestring import SafeString, mark_safe

from accounting.rankings.cache import per_data_version


def query_key(query) -> str:
    """A query string's key: its names and values in order of name (the order they were typed in does not count)."""
    pairs = sorted((name, values) for name, values in query.lists())
    return hashlib.sha256(repr(pairs).encode()).hexdigest()


def content(request, page: str, draw: Callable[[], str]) -> SafeString:
    """The page's content for this request's query string: draw() once per data version, then read back."""
    return mark_safe(per_data_version(f"page:{page}:{query_key(request.GET)}", draw))  # noqa: S308 (drawn by our templates)


@dataclass(frozen=True)
class Page:
    """A page's content: its template and context, its tables (each exportable as CSV) and the CSV's context."""

    template: str
    context: dict
    tables: list
    filename: str
    export_context: dict

    def html(self, request) -> str:
        tables = {table.name: table for table in self.tables}
        return render_to_string(self.template, {**self.context, "tables": tables}, request=request)
