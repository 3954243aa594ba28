"""`as_of` on every page that shows costs (issue #28 item 3): read from the query string, asked in the page's
question, stated on the page ("as of <date>"); a past as_of changes the answer or the page says why it is empty.

Worked example: Fast measured on 2025-03-01 and Slow on 2025-05-01, both priced from 2025-01-01. As of now both
rank; as of 2025-04-01 only Fast had been measured; as of 2023-01-01 nothing had.
"""

from datetime import UTC, datetime

import pytest

from tests.accounting.conftest import make_run  # noqa: F401 - the fixture that stores runs
from tests.accounting.serving.data import make_sweep

pytestmark = pytest.mark.django_db

BEFORE_EVERYTHING = (
    "no result of resnet50 that counts started on or before 2023-01-01: the earliest started on 2025-03-01"
)


@pytest.fixture
def fast_then_slow(make_accelerator, make_price, make_run):  # noqa: F811
    from accounting.history.run_costs import run_price

    fast, slow = make_accelerator("Fast"), make_accelerator("Slow")
    make_price(fast, "2.00")
    make_price(slow, "1.00")
    runs = [
        make_run(fast, [{"throughput_per_s": 400, "latency_p99_ms": 9.0}], started_at=datetime(2025, 3, 1, tzinfo=UTC)),
        make_run(slow, [{"throughput_per_s": 400, "latency_p99_ms": 9.0}], started_at=datetime(2025, 5, 1, tzinfo=UTC)),
    ]
    for run in runs:
        run_price(run_id=run.pk)  # the cost history the hardware and trends pages draw
    return fast, slow


def _text(response) -> str:
    assert response.status_code == 200
    return response.content.decode()


def test_the_overview_ranks_as_of_a_past_date_and_says_so(logged_in, fast_then_slow):
    now = _text(logged_in.get("/?workload=resnet50&published=none"))
    assert "NVIDIA Slow</strong> is cheapest" in now and "is as of <strong>now</strong>" in now
    # As of 2025-04-01 Slow had not been measured: Fast is the only (so the cheapest) row.
    april = _text(logged_in.get("/?workload=resnet50&published=none&as_of=2025-04-01"))
    assert "NVIDIA Fast</strong> is cheapest" in april and "is as of <strong>2025-04-01</strong>" in april
    before = _text(logged_in.get("/?workload=resnet50&published=none&as_of=2023-01-01"))
    assert f"Nothing to rank: {BEFORE_EVERYTHING}." in before and 'id="ranking-chart"' not in before


def test_the_overview_refuses_an_as_of_it_cannot_read(logged_in, fast_then_slow):
    text = _text(logged_in.get("/?workload=resnet50&as_of=yesterday"))
    assert "is not a date" in text and "is as of <strong>now</strong>" in text


def test_the_hardware_page_shows_what_was_known_then(logged_in, fast_then_slow):
    fast, _ = fast_then_slow
    now = _text(logged_in.get(f"/hardware/{fast.pk}/?workload=resnet50"))
    assert 'id="cost-trend-chart-samples"' in now  # resnet50 counts samples
    before = _text(logged_in.get(f"/hardware/{fast.pk}/?workload=resnet50&as_of=2024-06-01"))
    assert "is as of <strong>2024-06-01</strong>" in before
    # Its price took effect on 2025-01-01 and its first cost on 2025-03-01 (the run's start): neither by then.
    assert "No price of it was in effect on or before 2024-06-01." in before
    assert (
        "Nothing to draw: no cost of NVIDIA Fast on resnet50, cloud_on_demand prices was in effect on or before "
        "2024-06-01: the earliest is from 2025-03-01." in before
    )


def test_the_trends_page_draws_only_costs_in_effect_by_then(logged_in, fast_then_slow):
    now = _text(logged_in.get("/trends/?workload=resnet50"))
    assert "NVIDIA Slow" in now and "NVIDIA Fast" in now
    april = _text(logged_in.get("/trends/?workload=resnet50&as_of=2025-04-01"))
    assert "is as of <strong>2025-04-01</strong>" in april and "NVIDIA Fast" in april
    assert "NVIDIA Slow ·" not in april  # its series starts on 2025-05-01
    before = _text(logged_in.get("/trends/?workload=resnet50&as_of=2023-01-01"))
    said = "Nothing to draw: no cost of resnet50, cloud_on_demand prices was in effect on or before 2023-01-01"
    assert said in before


def test_the_serving_page_reads_as_of_a_past_date_or_says_why_it_cannot(
    logged_in,
    make_accelerator,
    make_price,
    make_run,  # noqa: F811
):
    make_sweep(make_accelerator, make_price, make_run)  # measured on 2025-03-01
    now = _text(logged_in.get("/serving/?workload=llama3.1-8b"))
    assert 'id="serving-chart"' in now and "is as of <strong>now</strong>" in now
    before = _text(logged_in.get("/serving/?workload=llama3.1-8b&as_of=2024-01-01"))
    assert "is as of <strong>2024-01-01</strong>" in before and 'id="serving-chart"' not in before
    assert (
        "No front to read for Llama-3.1-8B" in before
        and "no result of llama3.1-8b that counts started on or before 2024-01-01: the earliest started on 2025-03-01"
        in before
    )
