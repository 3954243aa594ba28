"""What every page's header links to, worked out once per process rather than on every page."""

from functools import cache

from django.urls import get_script_prefix, reverse

# The header's links, by the name base.html reads them under.
SITE_LINKS = {
    "overview": "dashboard:overview", "trends": "dashboard:trends", "compare": "dashboard:compare",
    "serving": "dashboard:serving", "jobs": "dashboard:jobs", "api": "swagger-ui", "logout": "logout",
}  # fmt: skip


@cache
def _site_links(script_prefix: str) -> dict[str, str]:
    # Keyed by the deployment's path prefix, which reverse() puts before each path. The eight reverse() calls were
    # about a sixth of a cached dashboard page's cost (issue 28).
    return {name: reverse(url_name) for name, url_name in SITE_LINKS.items()}


def site_links(request) -> dict:
    return {"site_links": _site_links(get_script_prefix())}
