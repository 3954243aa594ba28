"""The overview reads the rankings API's cached answer: one build per question and data version, for both."""

from datetime import UTC, datetime
from unittest import mock

import pytest
from django.core.cache import cache

from accounting.rankings import cache as ranking_cache
from dashboard import figures
from tests.accounting.conftest import make_run  # noqa: F401 (a fixture)
from tests.money import per_million_text

pytestmark = pytest.mark.django_db

QUESTION = "workload=resnet50&sla_p99_ms=10&price_kind=cloud_on_demand"
OVERVIEW, RANKINGS = f"/?{QUESTION}", f"/api/v1/rankings/?{QUESTION}"


@pytest.fixture(autouse=True)
def _empty_cache():
    cache.clear()
    yield
    cache.clear()


@pytest.fixture
def logged_in(client, user):
    client.force_login(user)
    return client


def _shows(response, cost_text: str) -> bool:
    assert response.status_code == 200
    # The table prints the cost rounded to cents, the chart's hover the same figure: either shows the ranking used.
    return f"${float(cost_text):,.2f}" in response.content.decode()


def test_it_builds_the_overviews_ranking_once_for_many_requests(alpha, logged_in):
    for _ in range(5):
        assert _shows(logged_in.get(OVERVIEW), per_million_text("2.00", 400))  # $1.39
    assert ranking_cache.rebuild_count() == 1


def test_the_overview_and_the_api_share_one_answer_for_one_question(alpha, logged_in, api):
    response = api.get(RANKINGS)
    assert response.data["rows"][0]["cost_per_million_usd"] == per_million_text("2.00", 400)
    assert _shows(logged_in.get(OVERVIEW), per_million_text("2.00", 400))
    assert ranking_cache.rebuild_count() == 1  # built by the API, read by the dashboard
    api.get(RANKINGS)
    assert ranking_cache.rebuild_count() == 1


def test_a_price_row_added_rebuilds_the_overviews_ranking(alpha, logged_in, make_price):
    assert _shows(logged_in.get(OVERVIEW), per_million_text("2.00", 400))
    # The same offering at 1.00 USD/h from June: 1.00 / (400 * 3600) * 1e6 = 0.6944 USD per 1M.
    make_price(alpha, "1.00", effective_from=datetime(2025, 6, 1, tzinfo=UTC))
    assert _shows(logged_in.get(OVERVIEW), per_million_text("1.00", 400))  # $0.69
    assert ranking_cache.rebuild_count() == 2


def test_the_chart_is_drawn_once_per_built_ranking(alpha, logged_in, make_price):
    with mock.patch.object(figures, "ranking_bars", wraps=figures.ranking_bars) as drawn:
        for _ in range(3):
            logged_in.get(OVERVIEW)
        assert drawn.call_count == 1
        make_price(alpha, "1.00", effective_from=datetime(2025, 6, 1, tzinfo=UTC))
        logged_in.get(OVERVIEW)
        logged_in.get(OVERVIEW)
        assert drawn.call_count == 2  # drawn again for the rebuilt ranking only
