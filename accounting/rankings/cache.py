"""A cache of serialized rankings, valid for as long as the data they were built from.

A ranking is a function of its query and of the data: runs, prices in force, assumption sets in force and
the catalog. The *data version* names that data: run count and newest ingestion, price rows (and how many
are in force now, so a price whose effective_from passes changes it), assumption sets (likewise), the open
cost alarms and the open alarms of metered deployments (which the pages read per data version; metering registers
its part, `register_data_version_part`), and a generation counter in the cache that any save or delete of a run,
price, assumption set, accelerator or alarm bumps (and an alarm's acknowledgement or withdrawal). A cached ranking
is served only under the version it was built from, so new data shows at once in the process that wrote it, and
within DATA_VERSION_SECONDS in any other (the database part of the version is re-read that often; with a shared
cache such as Redis the generation counter is seen at once).

Single flight: whenever a query must be built (cold, or its version moved, or expired), the first request
takes a lock per query and builds it; requests for the same query that arrive meanwhile get the previous
ranking where one exists (stale-while-revalidate, bounded by the time of one rebuild), and otherwise wait for
the one being built (polling the cache; if its builder dies, the lock lapses and one waiter takes it over).
So a cold cache under N concurrent requests builds each query once. Every build is counted (REBUILDS_KEY,
`rebuild_count()`): benchmarks/api_load.py prints it. ACCOUNTING_RANKING_CACHE_SECONDS (default
300; 0 turns the cache off) is a backstop for changes no version sees (raw SQL, bulk updates): an entry
older than that is rebuilt the same way.

Every reader of an answer goes through here with the same key for the same question (the rankings API and the
dashboard: accounting.api.answers), so a question is built once for all of them. A build may keep parts beside
its value (`WithParts`: the engine's result the dashboard reads, which the API does not load), and something
drawn from a cached value alone (the overview's chart of a ranking) is cached the same way (`derived`), both
under the value's tag: its key and the data version it was built from, so they change exactly when the value
is rebuilt. `per_data_version` keeps any other read of the data (the overview's workload coverage) for as long
as the data version stands. Every key names the release that built its value (inferledger.release): a shared
cache outlives a deploy, and a new release never reads what an older one built (a value of another shape, or
drawn by other code).
"""

import hashlib
import json
import time
from collections.abc import Callable
from dataclasses import dataclass, field, replace
from datetime import datetime

from django.conf import settings
from django.core.cache import cache
from django.db.models import Count, Max, Q
from django.utils import timezone

from accounting.models import OPEN_ALARM, CostAlarm
from hardware_catalog.models import OnPremAssumptions, Price
from inferledger.release import release_digest
from results.models import BenchmarkRun

DATA_VERSION_KEY = "accounting:data-version"
GENERATION_KEY = "accounting:data-generation"
DATA_VERSION_SECONDS = 2
REBUILDS_KEY = "accounting:ranking-rebuilds"
# Longer than any rebuild; if the rebuilding process dies, the lock lapses and another request rebuilds.
REBUILD_LOCK_SECONDS = 60
# How often a request waiting for another's rebuild looks for the result (a rebuild takes 0.1-3 s).
WAIT_POLL_SECONDS = 0.02


# Parts of the data version read from the apps above accounting (metering's open alarms, which the overview shows):
# name -> read(now) -> text. The app that owns the data registers its part (its AppConfig.ready), since accounting
# imports none of the apps that read it.
_OTHER_APPS_PARTS: dict[str, Callable[[datetime], str]] = {}


def register_data_version_part(name: str, read: Callable[[datetime], str]) -> None:
    """Make read(now) part of the data version: what the pages keep per data version changes when it does."""
    _OTHER_APPS_PARTS[name] = read


def cache_seconds() -> int:
    return int(getattr(settings, "ACCOUNTING_RANKING_CACHE_SECONDS", 300))


def data_version(*also: str) -> tuple[str, dict]:
    """(the current data version, the cache's values for the keys `also`): one round trip to the cache."""
    found = cache.get_many([DATA_VERSION_KEY, GENERATION_KEY, *also])
    version = found.get(DATA_VERSION_KEY)
    if version is None:
        version = read_data_version(timezone.now())
        cache.set(DATA_VERSION_KEY, version, DATA_VERSION_SECONDS)
    return f"{version}:{found.get(GENERATION_KEY, 0)}", found


def forget_data_version(**kwargs) -> None:
    """Signal receiver: the data changed, so every cached ranking is out of date."""
    cache.delete(DATA_VERSION_KEY)
    try:
        cache.incr(GENERATION_KEY)
    except ValueError:  # no counter yet (or it was evicted): any new value differs from the one read
        cache.set(GENERATION_KEY, time.time_ns(), None)


def read_data_version(now) -> str:
    runs = BenchmarkRun.objects.aggregate(count=Count("id"), newest=Max("ingested_at"))
    prices = Price.objects.aggregate(
        newest=Max("id"), count=Count("id"), in_force=Count("id", filter=Q(effective_from__lte=now))
    )
    assumptions = OnPremAssumptions.objects.aggregate(
        newest=Max("id"), in_force=Count("id", filter=Q(created_at__lte=now))
    )
    # The open cost alarms too (raised, acknowledged, withdrawn), so that the pages read them per data version.
    alarms = CostAlarm.objects.aggregate(newest=Max("id"), open=Count("id", filter=OPEN_ALARM))
    others = "".join(f":{name}={_OTHER_APPS_PARTS[name](now)}" for name in sorted(_OTHER_APPS_PARTS))
    return (
        f"{runs['count']}:{runs['newest']}:{prices['newest']}:{prices['count']}:{prices['in_force']}:"
        f"{assumptions['newest']}:{assumptions['in_force']}:{alarms['newest']}:{alarms['open']}{others}"
    )


def cache_keys(params: dict) -> tuple[str, str]:
    """(the key of the ranking for these params, the key of the lock held while one request rebuilds it)."""
    named = {"release": release_digest(), **{k: str(v) for k, v in params.items()}}
    digest = hashlib.sha256(json.dumps(named, sort_keys=True).encode()).hexdigest()
    return f"accounting:ranking:{digest}", f"accounting:ranking-rebuild:{digest}"


@dataclass(frozen=True)
class WithParts:
    """What a build may return: the value, and parts kept beside it under its tag (read with `derived`), so a
    reader of the value alone (the API) does not load the parts (the result the dashboard's tables read)."""

    value: object
    parts: dict[str, object]


@dataclass(frozen=True)
class Cached:
    """A cached value and its tag: its key and the data version it was built from (None: built uncached)."""

    value: object
    tag: str | None
    parts: dict = field(default_factory=dict)  # the parts built by this very request (none when read from the cache)


def cached(params: dict, build):
    """The stored ranking for these params when it was built from the current data; otherwise build() it, once.

    While another request is building the same params, the previous ranking is returned if there is one;
    otherwise this request waits for that build instead of starting its own.
    """
    return cached_with_tag(params, build).value


def cached_with_tag(params: dict, build) -> Cached:
    """`cached`, with the tag of the value returned (for `derived`)."""
    seconds = cache_seconds()
    if seconds <= 0:
        return _uncached(build())
    key, lock_key = cache_keys(params)
    version, found = data_version(key)
    entry = found.get(key)
    if _current(entry, version, seconds):
        return _tagged(key, entry)
    if cache.add(lock_key, 1, REBUILD_LOCK_SECONDS):
        return _build_holding_lock(key, lock_key, version, seconds, build)
    if entry is not None:
        return _tagged(key, entry)  # another request is rebuilding it
    return _wait_for_build(key, lock_key, version, seconds, build)


def derived(tag: str | None, name: str, draw):
    """A part of the value tagged `tag` (WithParts), or what draw() makes from that value alone (a chart of a
    ranking): made once per built value, and by draw() again only if the cache lost it.

    Two first requests may both draw it (drawing costs far less than a rebuild, so it takes no lock).
    """
    if tag is None:
        return draw()
    key = f"{tag}:{name}"
    drawn = cache.get(key)
    if drawn is None:
        drawn = draw()
        cache.set(key, drawn, cache_seconds() * 2)  # as long as the value it was drawn from is kept
    return drawn


def _tagged(key: str, entry: dict) -> Cached:
    version = hashlib.sha256(entry["version"].encode()).hexdigest()[:16]
    return Cached(entry["value"], f"{key}:{version}")


def _current(entry: dict | None, version: str, seconds: int) -> bool:
    """The entry was built from this data version, within the backstop's seconds."""
    return entry is not None and entry["version"] == version and time.time() - entry["built_at"] < seconds


def _build_holding_lock(key: str, lock_key: str, version: str, seconds: int, build) -> Cached:
    try:
        # Read again under the lock: the previous holder may have stored it and let go between this request's read
        # and its taking the lock (seen under load: two builds of one cold key).
        entry = cache.get(key)
        if _current(entry, version, seconds):
            return _tagged(key, entry)
        built = build()
        _count_rebuild()
        # Kept past its freshness so that a stale copy exists to serve while one request rebuilds it.
        entry = {"version": version, "built_at": time.time(), "value": _value(built)}
        found = _tagged(key, entry)
        parts = built.parts if isinstance(built, WithParts) else {}
        # The parts first: whoever reads the entry finds them beside it.
        cache.set_many({f"{found.tag}:{name}": part for name, part in parts.items()}, seconds * 2)
        cache.set(key, entry, seconds * 2)
        return replace(found, parts=parts)
    finally:
        cache.delete(lock_key)


def _wait_for_build(key: str, lock_key: str, version: str, seconds: int, build) -> Cached:
    """Another request holds the lock of a query nobody has built yet: wait for its result (bounded)."""
    waiting_since = time.time()
    deadline = time.monotonic() + REBUILD_LOCK_SECONDS
    while time.monotonic() < deadline:
        time.sleep(WAIT_POLL_SECONDS)
        entry = cache.get(key)
        if entry is not None and (entry["version"] == version or entry["built_at"] >= waiting_since):
            return _tagged(key, entry)
        if cache.add(lock_key, 1, REBUILD_LOCK_SECONDS):  # its builder died (or failed): take over
            return _build_holding_lock(key, lock_key, version, seconds, build)
    return _uncached(build())


def _value(built):
    return built.value if isinstance(built, WithParts) else built


def _uncached(built) -> Cached:
    return Cached(_value(built), None, built.parts if isinstance(built, WithParts) else {})


def _count_rebuild() -> None:
    try:
        cache.incr(REBUILDS_KEY)
    except ValueError:  # the first build (or the counter was evicted)
        if not cache.add(REBUILDS_KEY, 1, None):
            cache.incr(REBUILDS_KEY)


def rebuild_count() -> int:
    """How many rankings were built since the counter began (all processes sharing the cache)."""
    return int(cache.get(REBUILDS_KEY) or 0)


def per_data_version(name: str, read):
    """read() of the data, kept while the data version stands (not a ranking: no lock, not counted as a build)."""
    seconds = cache_seconds()
    if seconds <= 0:
        return read()
    key = f"accounting:per-version:{release_digest()}:{name}"
    version, found = data_version(key)
    entry = found.get(key)
    if entry is not None and entry["version"] == version:
        return entry["value"]
    value = read()
    cache.set(key, {"version": version, "value": value}, seconds)
    return value
