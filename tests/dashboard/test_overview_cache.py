"""The overview reads the rankings API's cached answer: one build per question and data version, for both."""

from datetime import UTC, datetime
from unittest import mock

import pytest

from accounting.rankings import cache as ranking_cache
from dashboard import figures
from tests.accounting.conftest import make_run  # noqa: F401 (a fixture)
from tests.money import per_million_text

pytestmark = [pytest.mark.django_db, pytest.mark.usefixtures("empty_cache")]

QUESTION = "workload=resnet50&sla_p99_ms=10&price_kind=cloud_on_demand"
OVERVIEW, RANKINGS = f"/?{QUESTION}", f"/api/v1/rankings/?{QUESTION}"


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


def test_a_repeated_question_is_drawn_once_and_costs_only_the_session_and_user(
    alpha, logged_in, django_assert_max_num_queries
):
    from dashboard import views

    with mock.patch.object(views, "_overview_page", wraps=views._overview_page) as drawn:
        first = _main(logged_in.get(OVERVIEW))
        with django_assert_max_num_queries(2):  # the session and its user; the content is read from the cache
            again = _main(logged_in.get(OVERVIEW))
        # The same names and values in another order ask the same question.
        reordered = _main(logged_in.get("/?price_kind=cloud_on_demand&sla_p99_ms=10&workload=resnet50"))
        assert drawn.call_count == 1
        assert first == again == reordered and "Alpha" in first
        logged_in.get(OVERVIEW.replace("sla_p99_ms=10", "sla_p99_ms=20"))
        assert drawn.call_count == 2  # another question is drawn for itself


def test_the_header_around_a_kept_page_is_each_users_own(alpha, client, user, django_user_model):
    other = django_user_model.objects.create_user(username="second-reader", password="x" * 20)
    client.force_login(user)
    assert f"<span>{user.username}</span>" in client.get(OVERVIEW).content.decode()
    client.force_login(other)
    text = client.get(OVERVIEW).content.decode()
    assert "<span>second-reader</span>" in text and f"<span>{user.username}</span>" not in text
    assert _shows_cost(text, per_million_text("2.00", 400))  # the same content, read back


def test_a_new_release_never_shows_what_an_older_one_drew(alpha, logged_in):
    from dashboard import views

    with mock.patch.object(views, "_overview_page", wraps=views._overview_page) as drawn:
        logged_in.get(OVERVIEW)
        with mock.patch.object(ranking_cache, "release_digest", return_value="another-release"):
            logged_in.get(OVERVIEW)
        assert drawn.call_count == 2
    assert ranking_cache.rebuild_count() == 2  # its answer too: every cached value names its release


def _main(response) -> str:
    """The page's content (the header around it holds a CSRF token masked afresh for every response)."""
    text = response.content.decode()
    return text[text.index("<main>") : text.index("</main>")]


def _shows_cost(text: str, cost_text: str) -> bool:
    return f"${float(cost_text):,.2f}" in text
