"""The project's URL table (inferledger.urls) behind a resolver that remembers where each path it found leads.

Django resolves a path by trying patterns in order, and for each include whose prefix matches but which holds no
match it raises Resolver404 and copies the patterns it tried: 150 us for /api/v1/rankings/ and 280 us for
/api/v1/auth/me/ on the benchmark host (89 API patterns, six includes under one prefix), a tenth of a cached
answer's whole cost. Which view a path leads to depends only on the path and the URL table, which is fixed once
the process has started, so a path found once is answered from memory after (bounded, least recently used
first). A path that matches nothing is not remembered: probes of random paths cost what they did and take no
room. ROOT_URLCONF names this module; everything else (reverse, namespaces, error handlers, the OpenAPI
schema's walk of the patterns) sees the same table as before.
"""

from functools import lru_cache

from django.urls import URLResolver
from django.urls.resolvers import RoutePattern

from inferledger.urls import handler400, handler500

REMEMBERED_PATHS = 2048


class RememberingResolver(URLResolver):
    def __init__(self, urlconf_name: str, maxsize: int = REMEMBERED_PATHS):
        super().__init__(RoutePattern("", is_endpoint=False), urlconf_name)
        # lru_cache keeps returned matches only: a Resolver404 raised inside is raised again, never stored.
        self._remembered = lru_cache(maxsize=maxsize)(super().resolve)

    def resolve(self, path):
        return self._remembered(str(path))


urlpatterns = [RememberingResolver("inferledger.urls")]

__all__ = ["handler400", "handler500", "urlpatterns"]
