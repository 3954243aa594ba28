"""The rankings cache: served only while its data is unchanged, rebuilt once while others get the old one."""

import threading
import time
from concurrent.futures import ThreadPoolExecutor
from datetime import UTC, datetime, timedelta

import pytest
from django.core.cache import cache
from django.utils import timezone

from accounting.rankings import cache as ranking_cache
from tests.money import per_million_text

pytestmark = pytest.mark.django_db

RANKINGS = "/api/v1/rankings/?model_class=cv-classification&price_kind=cloud_on_demand&sla_p99_ms=10"


def _cost(response) -> str:
    assert response.status_code == 200, response.data
    return response.data["rows"][0]["cost_per_million_usd"]


def test_a_new_run_shows_in_the_next_ranking(api, alpha, make_run):
    assert _cost(api.get(RANKINGS)) == per_million_text("2.00", 400)
    make_run(alpha, [{"throughput_per_s": 800, "latency_p99_ms": 9.0}], started_at=datetime(2025, 4, 1, tzinfo=UTC))
    assert _cost(api.get(RANKINGS)) == per_million_text("2.00", 800)


def test_an_edited_accelerator_rebuilds_the_next_ranking(api, alpha):
    """An accelerator's specs can be corrected (its identity cannot, issue 26): the next ranking is built again
    from the corrected catalog, not served from the cache."""
    api.get(RANKINGS)
    builds = ranking_cache.rebuild_count()
    api.get(RANKINGS)
    assert ranking_cache.rebuild_count() == builds  # unchanged data: served from the cache
    alpha.memory_gib = 96.0
    alpha.save()
    api.get(RANKINGS)
    assert ranking_cache.rebuild_count() == builds + 1


def test_the_version_moves_when_a_future_price_comes_into_force(alpha, make_price):
    in_a_day = timezone.now() + timedelta(days=1)
    make_price(alpha, "1.00", effective_from=in_a_day)
    before = ranking_cache.read_data_version(in_a_day - timedelta(seconds=1))
    after = ranking_cache.read_data_version(in_a_day)
    assert before != after


def test_a_cached_ranking_is_not_rebuilt_while_the_data_is_unchanged():
    builds = []
    build = lambda: builds.append(1) or len(builds)  # noqa: E731
    assert ranking_cache.cached({"q": 1}, build) == 1
    assert ranking_cache.cached({"q": 1}, build) == 1
    assert ranking_cache.cached({"q": 2}, build) == 2
    assert len(builds) == 2


def test_while_one_request_rebuilds_the_others_get_the_previous_ranking(alpha, make_run):
    assert ranking_cache.cached({"q": 1}, lambda: "old") == "old"
    make_run(alpha, [{"throughput_per_s": 800, "latency_p99_ms": 9.0}], started_at=datetime(2025, 4, 1, tzinfo=UTC))
    # Another worker holds the rebuild lock for this query: this request does not wait for it.
    _, lock_key = ranking_cache.cache_keys({"q": 1})
    cache.add(lock_key, 1, 60)
    assert ranking_cache.cached({"q": 1}, lambda: pytest.fail("must not rebuild while another does")) == "old"
    cache.delete(lock_key)
    assert ranking_cache.cached({"q": 1}, lambda: "new") == "new"
    assert ranking_cache.cached({"q": 1}, lambda: pytest.fail("fresh entry must be served")) == "new"


def test_an_entry_older_than_the_backstop_is_rebuilt(settings, monkeypatch):
    settings.ACCOUNTING_RANKING_CACHE_SECONDS = 300
    clock = [1_000_000.0]
    monkeypatch.setattr(ranking_cache.time, "time", lambda: clock[0])
    assert ranking_cache.cached({"q": 1}, lambda: "first") == "first"
    clock[0] += 299
    assert ranking_cache.cached({"q": 1}, lambda: "second") == "first"
    clock[0] += 2
    assert ranking_cache.cached({"q": 1}, lambda: "second") == "second"


def test_zero_seconds_turns_the_cache_off(settings):
    settings.ACCOUNTING_RANKING_CACHE_SECONDS = 0
    builds = []
    for _ in range(3):
        ranking_cache.cached({"q": 1}, lambda: builds.append(1))
    assert len(builds) == 3


def test_a_cold_query_under_16_concurrent_requests_is_built_once():
    """No stampede: the first request builds, the other 15 wait for its result instead of building their own."""
    ranking_cache.data_version()  # the data version is read once here, so the threads touch only the cache
    builds = []
    started = threading.Barrier(16)

    def build():
        builds.append(1)
        time.sleep(0.3)  # a rebuild the others arrive during (the count holds however they interleave)
        return "built"

    def request():
        started.wait()
        return ranking_cache.cached({"cold": 1}, build)

    with ThreadPoolExecutor(max_workers=16) as pool:
        answers = list(pool.map(lambda _: request(), range(16)))
    assert answers == ["built"] * 16
    assert len(builds) == 1
    assert ranking_cache.rebuild_count() == 1


def test_a_waiting_request_builds_when_the_builder_died(monkeypatch):
    """The lock of a builder that died lapses; the request waiting on it takes over instead of waiting forever."""
    ranking_cache.data_version()
    _, lock_key = ranking_cache.cache_keys({"orphan": 1})
    cache.add(lock_key, 1, 60)  # a builder took the lock, then its process was killed
    monkeypatch.setattr(ranking_cache, "WAIT_POLL_SECONDS", 0.01)
    original_sleep = time.sleep

    def sleep_then_lapse(seconds):
        original_sleep(seconds)
        cache.delete(lock_key)  # what the lock's expiry does after REBUILD_LOCK_SECONDS

    monkeypatch.setattr(ranking_cache.time, "sleep", sleep_then_lapse)
    assert ranking_cache.cached({"orphan": 1}, lambda: "taken over") == "taken over"
    assert cache.get(lock_key) is None  # released after the build


def test_parts_kept_beside_a_value_are_read_without_building_or_drawing():
    """A build's parts (the engine's result the dashboard reads) sit beside the value under its tag: a reader of
    the value alone gets the value only, a reader of a part gets it without drawing it again."""
    built = ranking_cache.WithParts("json", {"result": "engine result"})
    first = ranking_cache.cached_with_tag({"q": 1}, lambda: built)
    assert (first.value, first.parts) == ("json", {"result": "engine result"})  # this request built it
    again = ranking_cache.cached_with_tag({"q": 1}, lambda: pytest.fail("fresh entry must be served"))
    assert (again.value, again.parts, again.tag) == ("json", {}, first.tag)
    assert ranking_cache.derived(again.tag, "result", lambda: pytest.fail("kept beside the value")) == "engine result"


def test_a_read_kept_per_data_version_is_read_again_when_a_run_arrives(alpha, make_run):
    reads = []
    read = lambda: reads.append(1) or len(reads)  # noqa: E731
    assert ranking_cache.per_data_version("runs", read) == 1
    assert ranking_cache.per_data_version("runs", read) == 1
    make_run(alpha, [{"throughput_per_s": 800, "latency_p99_ms": 9.0}], started_at=datetime(2025, 4, 1, tzinfo=UTC))
    assert ranking_cache.per_data_version("runs", read) == 2
    assert ranking_cache.rebuild_count() == 0  # not a ranking: never counted as a build


def test_a_request_that_takes_the_lock_just_after_the_builder_let_go_builds_nothing(monkeypatch):
    """The race behind a second build of one cold key under load: this request reads no entry; meanwhile the
    builder stores its value and lets go of the lock; this request then takes the lock. It finds the stored value
    under the lock and serves it."""
    ranking_cache.data_version()
    original_add, raced = cache.add, []

    def builder_finishes_first(lock_key, *args, **kwargs):
        if not raced:  # the other request, once, between this one's read and its lock: stores, lets go
            raced.append(1)
            ranking_cache.cached({"raced": 1}, lambda: "built by the other request")
        return original_add(lock_key, *args, **kwargs)

    monkeypatch.setattr(cache, "add", builder_finishes_first)
    builds = []
    answer = ranking_cache.cached({"raced": 1}, lambda: builds.append(1) or "built twice")
    assert answer == "built by the other request" and builds == []
    assert ranking_cache.rebuild_count() == 1
    _, lock_key = ranking_cache.cache_keys({"raced": 1})
    assert cache.get(lock_key) is None  # let go of
