"""Reading a deployment's counters through the HTTP query API of its Prometheus (``/api/v1/query``)."""

import re
from datetime import datetime
from decimal import Decimal

import httpx

QUERY_TIMEOUT_S = 30
# A PromQL label matcher list as written inside {...}: name="value", name=~"regex", ... (no braces, no quotes
# inside values) — enough to pick a deployment's series and nothing that could change the query's shape.
SELECTOR = re.compile(r'^\s*([A-Za-z_][A-Za-z0-9_]*\s*(=|!=|=~|!~)\s*"[^"\\{}]*"\s*(,\s*|$))*$')


class PrometheusError(RuntimeError):
    """The Prometheus server could not answer the query (unreachable, an error status, an error answer)."""


def series(metric: str, selector: str) -> str:
    """``metric{selector}`` in PromQL; metric names with a colon (``vllm:...``) are legal as written."""
    return f"{metric}{{{selector}}}"


def counter_total(prometheus_url: str, metric: str, *, selector: str, at: datetime) -> Decimal | None:
    """``sum(metric{selector})`` at ``at``: the counter summed over the deployment's series (every replica and
    label set), as the last sample Prometheus holds at or before ``at``; None when it holds no sample."""
    query = f"sum({series(metric, selector)})"
    try:
        response = httpx.get(
            prometheus_url.rstrip("/") + "/api/v1/query",
            params={"query": query, "time": f"{at.timestamp():.3f}"},
            timeout=QUERY_TIMEOUT_S,
        )
        answer = response.json()
    except (httpx.HTTPError, ValueError) as exc:
        raise PrometheusError(f"{prometheus_url}: {query} failed: {exc}") from exc
    if response.status_code != 200 or answer.get("status") != "success":
        raise PrometheusError(f"{prometheus_url}: {query} answered {response.status_code}: {answer.get('error')}")
    result = answer["data"]["result"]
    if not result:
        return None
    return Decimal(result[0]["value"][1])
