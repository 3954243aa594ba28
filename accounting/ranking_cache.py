"""A short-lived cache of serialized rankings, keyed by the query and a version of the data.

The version (run count and newest ingestion, newest price row, newest assumption set) changes whenever
a run, price or assumption set is added, so a cached ranking is never older than the data it was built
from. Reading the version costs three aggregate queries, most of a cached request's time, so the version
itself is kept for DATA_VERSION_SECONDS and dropped at once when this process saves or deletes a run,
price or assumption set; a write made by another process (or a bulk insert, which sends no signal)
shows within those seconds. A price row whose effective_from passes while cached takes effect within
ACCOUNTING_RANKING_CACHE_SECONDS (default 30; 0 turns the cache off). Requests with `as_of` are cached too.
"""

import hashlib
import json
import random

from django.conf import settings
from django.core.cache import cache
from django.db.models import Count, Max

from agents.models import BenchmarkRun
from hardware_catalog.models import OnPremAssumptions, Price


def cache_seconds() -> int:
    return int(getattr(settings, "ACCOUNTING_RANKING_CACHE_SECONDS", 30))


DATA_VERSION_KEY = "accounting:data-version"
DATA_VERSION_SECONDS = 2


def data_version() -> str:
    version = cache.get(DATA_VERSION_KEY)
    if version is None:
        version = _read_data_version()
        cache.set(DATA_VERSION_KEY, version, DATA_VERSION_SECONDS)
    return version


def forget_data_version(**kwargs) -> None:
    """Signal receiver: the data changed, so the next ranking reads the version afresh."""
    cache.delete(DATA_VERSION_KEY)


def _read_data_version() -> str:
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
    # Entries built together (after a deploy, or a data change) would all expire together and be rebuilt
    # at once while requests queue behind them; a spread lifetime (half to all of the limit) staggers that.
    cache.set(key, value, seconds * random.uniform(0.5, 1.0))
    return value
