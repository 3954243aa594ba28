"""inferledger.routing: the URL table behind a resolver that remembers the paths it found."""

import pytest
from django.urls import Resolver404, URLResolver, get_resolver, resolve, reverse
from django.urls.resolvers import RegexPattern

from inferledger.routing import RememberingResolver

PATHS = [
    "/",
    "/api/v1/rankings/",
    "/api/v1/serving/ranking/",
    "/api/v1/auth/me/",
    "/api/v1/accelerators/",
    "/api/v1/accelerators/7/",
    "/api/v1/runs/3f2b8c4e-0000-4000-8000-000000000001/",
    "/api/schema/",
    "/accounts/login/",
    "/admin/",
]


def _plain(path):
    return URLResolver(RegexPattern(r"^/"), "inferledger.urls").resolve(path)


def _same(found, expected):
    assert (found.func, found.args, found.kwargs, found.url_name, found.namespaces, found.route) == (
        expected.func, expected.args, expected.kwargs, expected.url_name, expected.namespaces, expected.route
    )  # fmt: skip


@pytest.mark.parametrize("path", PATHS)
def test_each_path_leads_where_the_plain_table_leads_the_first_time_and_every_time_after(path):
    expected = _plain(path)
    _same(resolve(path), expected)
    _same(resolve(path), expected)


def test_a_path_that_matches_nothing_is_refused_every_time_and_not_remembered():
    (remembering,) = get_resolver().url_patterns
    assert isinstance(remembering, RememberingResolver)
    before = remembering._remembered.cache_info().currsize
    for _ in range(3):
        with pytest.raises(Resolver404):
            resolve("/no/such/page-9c1f/")
    assert remembering._remembered.cache_info().currsize == before


def test_the_remembered_paths_are_bounded_least_recently_used_first():
    resolver = RememberingResolver("inferledger.urls", maxsize=2)
    for path in ("api/v1/rankings/", "api/v1/auth/me/", "api/v1/accelerators/", "api/v1/rankings/"):
        resolver.resolve(path)
    info = resolver._remembered.cache_info()
    # rankings, me, accelerators (rankings dropped: 2 kept), rankings again: 4 lookups, 0 hits, 2 kept.
    assert (info.hits, info.misses, info.currsize) == (0, 4, 2)


def test_names_reverse_as_before():
    assert reverse("schema") == "/api/schema/" and reverse("login") == "/accounts/login/"
    assert resolve(reverse("schema")).url_name == "schema"
