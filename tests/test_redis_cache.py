"""The Redis cache production runs (inferledger.redis_cache): Django's, with one client per pool."""

from concurrent.futures import ThreadPoolExecutor

import redis

from inferledger.redis_cache import SharedClientRedisCache
from tests.service_preflight import redis_url


def _cache() -> SharedClientRedisCache:
    return SharedClientRedisCache(redis_url(), {"KEY_PREFIX": "redis-cache-test"})


def test_a_redis_cache_url_gets_the_shared_client_backend():
    import environ

    from inferledger import settings

    found = environ.Env.cache_url_config("redis://127.0.0.1:6379/1")
    assert found["BACKEND"] == "django.core.cache.backends.redis.RedisCache"  # what CACHE_URL=redis://... gives
    assert settings.SHARED_CLIENT_BACKENDS[found["BACKEND"]] == "inferledger.redis_cache.SharedClientRedisCache"


def test_every_call_uses_one_client_and_the_cache_still_works():
    cache = _cache()
    client = cache._cache.get_client()
    assert cache._cache.get_client(write=True) is client  # one server: reads and writes share its one pool
    try:
        cache.set("answer", {"cost_per_million_usd": "1.3889"}, 30)
        assert cache.get_many(["answer", "missing"]) == {"answer": {"cost_per_million_usd": "1.3889"}}
        assert cache.add("answer", "other", 30) is False
        cache.set("count", 1, 30)
        assert cache.incr("count") == 2
    finally:
        cache.delete_many(["answer", "count"])
    assert cache._cache.get_client() is client


def test_threads_share_the_client_safely():
    """A redis.Redis takes a connection from its pool for each command: 8 threads writing and reading at once
    each read back what they wrote."""
    cache = _cache()

    def round_trip(index: int) -> bool:
        for attempt in range(50):
            cache.set(f"thread-{index}", (index, attempt), 30)
            if cache.get(f"thread-{index}") != (index, attempt):
                return False
        return True

    try:
        with ThreadPoolExecutor(8) as pool:
            assert all(pool.map(round_trip, range(8)))
    finally:
        cache.delete_many([f"thread-{index}" for index in range(8)])
    assert isinstance(cache._cache.get_client(), redis.Redis)
