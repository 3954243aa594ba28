"""A deployment's metered cost month by month (GET /api/v1/deployments/<name>/trend/): each month's cost over its
units, the benchmark's figure for the same units beside it, overlapping periods left out and named."""

from datetime import timedelta

import pytest

from metering.models import MeteredAlarm
from metering.services import period_meter
from tests.metering.conftest import START

pytestmark = pytest.mark.django_db

FIFTEEN_DAYS, THIRTY_DAYS = timedelta(days=15), timedelta(days=30)


def meter_september_and_october(deployment, prometheus):
    """September in two halves of 15 days (360 h, 2.29 x 360 = $824.40 each): 180M and 220M output tokens;
    October one 30-day period (2026-10-01..10-31, $1,648.80): 250M tokens; then a day of October metered again.

    Returns the four periods."""
    edges = [(START, START + FIFTEEN_DAYS, 360_000, 180_000_000),
             (START + FIFTEEN_DAYS, START + THIRTY_DAYS, 440_000, 220_000_000),
             (START + THIRTY_DAYS, START + 2 * THIRTY_DAYS, 500_000, 250_000_000)]  # fmt: skip
    periods = []
    for start, end, requests, tokens in edges:
        prometheus.serve(end, requests=requests, tokens=tokens)
        periods.append(period_meter(deployment=deployment, start=start, end=end))
    day = START + THIRTY_DAYS + timedelta(days=4)
    periods.append(period_meter(deployment=deployment, start=day, end=day + timedelta(days=1)))
    return periods


def test_it_answers_each_month_as_its_cost_over_its_units(deployment, prometheus, benchmark, api):
    first_half, second_half, october, october_day = meter_september_and_october(deployment, prometheus)
    # October against the trailing median of the halves (median_low of $4.58 and $3.747273 = the 220M half):
    # 6.5952 / 3.747273 - 1 = +76 %, above the halves' interval [$3.747273, $4.58]: an alarm.
    alarm = MeteredAlarm.objects.get()
    assert (alarm.period, alarm.baseline) == (october, second_half)

    response = api.get(f"/api/v1/deployments/{deployment.name}/trend/")

    assert response.status_code == 200
    september, october_row = response.json()
    # September: (824.40 + 824.40) / (180 + 220) = 1,648.80 / 400 = $4.122 per 1M output tokens; not the mean of
    # the halves' 824.40 / 180 = $4.58 and 824.40 / 220 = $3.747273 ($4.163636). The benchmark's figure for the
    # same units: $0.636111111111 in both halves, so the same for the month.
    assert september == {
        "month": "2026-09", "unit": "output_tokens", "cost_usd": "1648.800000", "units_served": "400000000.000",
        "hours_metered": "720.000000", "cost_per_million_units_usd": "4.122000000000",
        "predicted_cost_per_million_units_usd": "0.636111111111", "periods": [first_half.pk, second_half.pk],
        "periods_predicted": 2, "overlapping": [], "alarms": [],
    }  # fmt: skip
    # October: 1,648.80 / 250 = $6.5952; the day metered again inside it is left out, named, not added.
    assert october_row == {
        "month": "2026-10", "unit": "output_tokens", "cost_usd": "1648.800000", "units_served": "250000000.000",
        "hours_metered": "720.000000", "cost_per_million_units_usd": "6.595200000000",
        "predicted_cost_per_million_units_usd": "0.636111111111", "periods": [october.pk], "periods_predicted": 1,
        "overlapping": [october_day.pk], "alarms": [alarm.pk],
    }  # fmt: skip


def test_a_deployment_with_no_period_has_an_empty_trend(deployment, api):
    assert api.get(f"/api/v1/deployments/{deployment.name}/trend/").json() == []


def test_the_trend_needs_an_account(deployment, anonymous_api):
    assert anonymous_api.get(f"/api/v1/deployments/{deployment.name}/trend/").status_code == 401
