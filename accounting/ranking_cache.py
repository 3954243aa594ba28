"""A short-lived cache of serialized rankings, keyed by the query and a version of the data.

The version (run count and newest ingestion, newest price row, newest assumption set) changes whenever
a run, price or assumption set is added, so a cached ranking is never older than the data it was built
from. A price row whose effective_from passes while cached takes effect within
ACCOUNTING_RANKING_CACHE_SECONDS (default 30; 0 turns the cache off). Requests with `as_of` are cached too.
"""

import hashlib
import json

from django.conf import settings
from django.core.cache import cache
from django.db.models import Count, Max

from agents.models import BenchmarkRun
from hardware_catalog.models import OnPremAssumptions, Price


def cache_seconds() -> int:
    return int(getattr(settings, "ACCOUNTING_RANKING_CACHE_SECONDS", 30))


def data_version() -> str:
    runs = BenchmarkRun.objects.aggregate(count=Count("id"), newest=Max("ingested_at"))
    prices = Price.objects.aggregate(newest=Max("id"), count=Count("id"))
    assumptions = OnPremAssumptions.objects.aggregate(newest=Max("id"))
    return f"{runs['count']}:{runs['newest']}:{prices['newest']}:{prices['count']}:{assumptions['newest']}"


def cached(params: dict, build):
    """build() when the cache is off or cold; the stored result for the same params and data otherwise."""
    seconds = cache_seconds()
    if seconds <= 0:
        return build()
    text = json.dumps({k: str(v) for k, v in sorted(params.items())}) + data_version()
    key = "accounting:ranking:" + hashlib.sha256(text.encode()).hexdigest()
    hit = cache.get(key)
    if hit is not None:
        return hit
    value = build()
    cache.set(key, value, seconds)
    return value
