"""A rankings query string is checked once per process and its parsed question reused (issue 28)."""

from unittest import mock

import pytest

from accounting.api import validation
from tests.money import per_million_text

pytestmark = pytest.mark.django_db

RANKINGS = "/api/v1/rankings/?workload=resnet50&price_kind=cloud_on_demand&sla_p99_ms=10"


@pytest.fixture(autouse=True)
def _empty_memo():
    validation._PARSED.clear()
    yield
    validation._PARSED.clear()


def _asked(api, url):
    """The response, and how many times the query string was checked (validation.validated)."""
    with mock.patch.object(validation, "validated", wraps=validation.validated) as checked:
        response = api.get(url)
    return response, checked.call_count


def test_the_same_query_string_is_parsed_once(api, alpha):
    first, parsed_first = _asked(api, RANKINGS)
    second, parsed_second = _asked(api, RANKINGS)
    assert (parsed_first, parsed_second) == (1, 0)
    # 2.00 USD/h / (400/s * 3600 s/h) * 1e6 = 1.3889 USD per 1M, both times
    assert first.data["rows"][0]["cost_per_million_usd"] == per_million_text("2.00", 400)
    assert second.data["rows"] == first.data["rows"]


def test_a_new_default_utilization_is_parsed_anew(api, alpha, settings):
    _asked(api, RANKINGS)
    settings.INFERLEDGER_UTILIZATION = "0.5"
    response, parsed = _asked(api, RANKINGS)
    assert parsed == 1
    # at 50 %: 2.00 / (400 * 3600 * 0.5) * 1e6 = 2.7778 USD per 1M
    assert response.data["rows"][0]["cost_per_million_usd"] == per_million_text("2.00", 400, "0.5")


def test_a_refused_query_string_is_refused_every_time(api, alpha):
    for _ in range(2):
        response = api.get("/api/v1/rankings/?workload=resnet50&price_kind=cloud_on_demand&utilization=2")
        assert response.status_code == 400 and "utilization" in response.data
