"""A metered period costlier than the deployment's earlier ones, beyond the threshold and their range, raises an alarm.

Worked on one deployment: 1 x H100 at $2.29 per hour, periods of 30 days (720 h): each period costs
2.29 x 720 = $1,648.80 whatever it serves, so its cost per 1M output tokens is 1,648.80 / (tokens / 1M). The
counters come from a stand-in for the Prometheus query API (the real one is exercised in test_prometheus_scrape.py
and tests/endpoints/test_metering_vllm.py): what is tested here is what the periods' figures decide.
"""

from decimal import Decimal

import pytest

from metering.models import MeteredAlarm
from metering.regressions import period_regression_of
from metering.services import period_meter
from tests.metering.conftest import START, THIRTY_DAYS, meter_days, meter_months, weekly_traffic

pytestmark = pytest.mark.django_db


def test_it_raises_an_alarm_naming_utilization_when_traffic_falls(deployment, prometheus, benchmark):
    # Month 1: 800,000 requests x 500 tokens = 400M tokens: 1,648.80 / 400 = $4.122 per 1M output tokens;
    #   400e6 / 2,592,000 s = 154.32 tokens/s on the accelerator, 15.4 % of the benchmark's 1,000.
    # Month 2: 500,000 requests x 500 tokens = 250M tokens: 1,648.80 / 250 = $6.5952 per 1M (6.5952 / 4.122 = 1.6,
    #   +60 %, above the 10 % threshold); 96.45 tokens/s, 9.6 % of 1,000. One earlier period: no interval.
    first, second = meter_months(deployment, prometheus, [(800_000, 400_000_000), (500_000, 250_000_000)])

    assert first.cost_usd == Decimal("1648.800000")
    assert first.cost_per_million_units_usd == Decimal("4.122000000000")
    assert second.cost_per_million_units_usd == Decimal("6.595200000000")
    assert not MeteredAlarm.objects.filter(period=first).exists()
    alarm = MeteredAlarm.objects.get(period=second)
    assert (alarm.baseline, alarm.change_fraction, alarm.baseline_interval_low_usd) == (
        first,
        Decimal("0.600000"),
        None,
    )
    # The benchmark's capacity is the same in both periods: the whole rise, 6.5952 - 4.122 = $2.4732, is utilization.
    factors = alarm.attribution["factors"]
    assert factors["utilization"] == {"usd_per_million": "2.473200000000", "share": "1.0000"}
    assert Decimal(factors["price"]["usd_per_million"]) == Decimal(factors["throughput"]["usd_per_million"]) == 0
    assert alarm.attribution["cause"]["price_row"] is None
    assert alarm.explanation.startswith(
        "Deployment chat-prod: cost per 1M output tokens rose 60.0% to $6.60 per 1M output tokens over "
        "2026-10-01..2026-10-31 against $4.12 (no interval) per 1M output tokens over 2026-09-01..2026-10-01"
    )
    assert "utilization +$2.47 per 1M output tokens (100.0%)" in alarm.explanation
    assert "traffic fell -37.5%: 154.32 -> 96.45 output tokens per accelerator-second" in alarm.explanation
    assert "so utilization fell 15.4% -> 9.6% of the benchmark's capacity" in alarm.explanation
    assert "requests 800,000 -> 500,000 (-37.5%) at an unchanged 500 output tokens per request" in alarm.explanation


def test_a_month_two_percent_dearer_raises_none(deployment, prometheus):
    # 392M tokens: 1,648.80 / 392 = $4.206122 per 1M, +2.0 % on $4.122: within the 10 % threshold.
    _, second = meter_months(deployment, prometheus, [(800_000, 400_000_000), (784_000, 392_000_000)])

    assert second.cost_per_million_units_usd == Decimal("4.206122448980")
    assert not MeteredAlarm.objects.exists()
    assert period_regression_of(second) == "+2.0% against the trailing median is within the 10% threshold"


def test_a_rise_within_the_range_of_earlier_months_raises_none_and_one_above_it_does(deployment, prometheus):
    # Months of 350M, 450M, 400M, 360M, 280M tokens: $4.710857, $3.664, $4.122, $4.58, $5.888571 per 1M.
    # Month 3: +12.5 % on the trailing median_low $3.664 (of $3.664 and $4.710857), above the threshold; but two
    #   earlier months give the interval min..max [$3.664, $4.710857] (coverage 1 - 2 x (1/2)^2 = 50 %), and $4.122
    #   lies in it: within the measurement's own uncertainty, no alarm.
    # Month 4: $4.58 is +11.1 % on the median $4.122 of three months, inside their [$3.664, $4.710857] (75 %): none.
    # Month 5: $5.888571 is +42.9 % (400 / 280 - 1) on the median $4.122 of four, above their [$3.664, $4.710857]
    #   (87.5 %): an alarm, against the 400M month, stating the interval.
    tokens = [350, 450, 400, 360, 280]
    periods = _meter(deployment, prometheus, tokens)

    assert period_regression_of(periods[2]).startswith("+12.5% against the trailing median, but within the range")
    assert period_regression_of(periods[3]) == (
        "+11.1% against the trailing median, but within the range of the deployment's earlier periods (before "
        "$4.12 [$3.66, $4.71], after $4.58): the change is within the measurement's own uncertainty"
    )
    alarm = MeteredAlarm.objects.get()
    assert (alarm.period, alarm.baseline) == (periods[4], periods[2])
    assert alarm.change_fraction == Decimal("0.428571")
    assert (alarm.baseline_interval_low_usd, alarm.baseline_interval_high_usd) == (
        Decimal("3.664000000000"),
        Decimal("4.710857142857"),  # 1,648.80 / 350
    )
    assert alarm.attribution["baseline_interval"]["confidence"] == 0.875
    assert "against $4.12 [$3.66, $4.71] per 1M output tokens" in alarm.explanation


def _meter(deployment, prometheus, millions_of_tokens: list[int]):
    return meter_months(deployment, prometheus, [(m * 2_000, m * 1_000_000) for m in millions_of_tokens])


def test_a_new_price_row_is_named_as_the_cause(deployment, prometheus, h100, make_price):
    # Two months at 400M tokens, then the offering's price rises to $2.75 per hour from month 3:
    # 2.75 x 720 = $1,980.00 / 400 = $4.95 per 1M, +20.1 % on $4.122, above the two months' interval
    # [$4.122, $4.122]. The traffic did not move at all: the whole rise is the price's.
    meter_months(deployment, prometheus, [(800_000, 400_000_000), (800_000, 400_000_000)])
    old = h100.prices.get()
    new = make_price(h100, "2.75", accelerators_per_instance=1, effective_from=START + 2 * THIRTY_DAYS)
    start = START + 2 * THIRTY_DAYS
    prometheus.serve(start + THIRTY_DAYS, requests=800_000, tokens=400_000_000)
    third = period_meter(deployment=deployment, start=start, end=start + THIRTY_DAYS)

    assert third.cost_per_million_units_usd == Decimal("4.950000000000")
    alarm = MeteredAlarm.objects.get(period=third)
    assert alarm.change_fraction == Decimal("0.200873")  # 4.95 / 4.122 - 1
    assert alarm.attribution["factors"]["price"]["share"] == "1.0000"
    assert alarm.attribution["cause"]["price_row"] == new.pk
    assert f"price row {new.pk} replaced price row {old.pk}: $2.29 -> $2.75 per accelerator-hour" in alarm.explanation


def test_fewer_tokens_per_request_are_named(deployment, prometheus):
    # The same 800,000 requests, but 312.5 tokens each instead of 500: 250M tokens, $6.5952 per 1M, +60 %.
    _, second = meter_months(deployment, prometheus, [(800_000, 400_000_000), (800_000, 250_000_000)])

    alarm = MeteredAlarm.objects.get(period=second)
    assert alarm.attribution["cause"]["units_per_request"] == ["500.000000", "312.500000"]
    assert (
        "output tokens per request changed 500 -> 312.50 (-37.5%); requests 800,000 -> 800,000 (+0.0%)"
        in alarm.explanation
    )
    # No benchmark figure: the traffic served stands as the throughput, so the rise is the throughput's.
    assert alarm.attribution["capacity"] == "served"
    assert alarm.attribution["factors"]["throughput"]["share"] == "1.0000"


def test_metering_the_same_period_again_raises_no_second_alarm(deployment, prometheus):
    _, second = meter_months(deployment, prometheus, [(800_000, 400_000_000), (500_000, 250_000_000)])

    assert period_meter(deployment=deployment, start=second.start, end=second.end) == second
    assert MeteredAlarm.objects.count() == 1


def _open_metered_alarms(client) -> list:
    from prometheus_client.parser import text_string_to_metric_families

    response = client.get("/metrics")
    assert response.status_code == 200
    families = {family.name: family for family in text_string_to_metric_families(response.content.decode())}
    return [(sample.labels, sample.value) for sample in families["inferledger_open_metered_cost_alarms"].samples]


def test_the_alarm_is_listed_acknowledged_by_staff_and_exported_while_open(
    deployment, prometheus, api, staff_api, client, settings
):
    settings.INFERLEDGER_METRICS_TOKEN, settings.INFERLEDGER_METRICS_OPEN = "", True
    first, second = meter_months(deployment, prometheus, [(800_000, 400_000_000), (500_000, 250_000_000)])
    alarm = MeteredAlarm.objects.get()

    listed = api.get("/api/v1/metered-alarms/?acknowledged=false").json()["results"]
    assert [(row["id"], row["deployment"], row["period"], row["baseline"]) for row in listed] == [
        (alarm.pk, "chat-prod", second.pk, first.pk)
    ]
    assert (listed[0]["cost_per_million_units_usd"], listed[0]["baseline_cost_per_million_units_usd"]) == (
        "6.595200000000",
        "4.122000000000",
    )
    labels = {"deployment": "chat-prod", "workload": "llama3.1-8b", "accelerator": "NVIDIA H100",
              "price_kind": "cloud_on_demand", "unit": "output_tokens"}  # fmt: skip
    assert _open_metered_alarms(client) == [(labels, 1.0)]

    assert api.post(f"/api/v1/metered-alarms/{alarm.pk}/ack/").status_code == 403
    assert staff_api.post(f"/api/v1/metered-alarms/{alarm.pk}/ack/").json()["acknowledged_at"] is not None
    assert api.get("/api/v1/metered-alarms/?acknowledged=false").json()["results"] == []
    assert _open_metered_alarms(client) == []


def test_a_quiet_weekend_day_is_compared_with_weekend_days_not_the_busier_weekdays(deployment, prometheus):
    days = meter_days(deployment, prometheus, weekly_traffic(21))  # Tue 09-01 .. Mon 09-21: three weeks

    saturdays = [day for day in days if day.start.weekday() == 5]
    assert [f"{day.start:%m-%d}" for day in saturdays] == ["09-05", "09-12", "09-19"]
    assert {day.cost_per_million_units_usd for day in saturdays} == {Decimal("9.160000000000")}
    assert {day.cost_per_million_units_usd for day in days if day.start.weekday() < 5} == {Decimal("5.496000000000")}
    # Against the four weekdays before it (all $5.496), the first Saturday's $9.16 would be +66.7 % and beyond their
    # range: an alarm every week. Against earlier Saturdays, there is none to compare the first with, and the later
    # ones cost the same.
    assert not MeteredAlarm.objects.exists()
    assert period_regression_of(saturdays[0]) == (
        "the deployment has no earlier metered period of its length at its time of the week (Saturday 00:00 UTC): "
        "a period shorter than a week is compared only with those, as traffic follows the week"
    )
    assert period_regression_of(saturdays[2]) == "+0.0% against the trailing median is within the 10% threshold"


def test_a_day_dearer_than_the_same_weekday_before_raises_an_alarm(deployment, prometheus):
    traffic = weekly_traffic(26)  # to Sat 09-26
    traffic[22] = (10_000, 5_000_000)  # Wed 09-23: 54.96 / 5 = $10.992, +100 % on the Wednesdays' $5.496
    traffic[25] = (8_000, 4_000_000)  # Sat 09-26: 54.96 / 4 = $13.74, +50 % on the Saturdays' $9.16
    days = meter_days(deployment, prometheus, traffic)
    wednesday, saturday = days[22], days[25]

    assert {alarm.period for alarm in MeteredAlarm.objects.all()} == {wednesday, saturday}
    saturday_alarm = MeteredAlarm.objects.get(period=saturday)
    # The three Saturdays before it (09-05, 09-12, 09-19), all $9.16: median $9.16, interval [$9.16, $9.16] at 75 %.
    assert saturday_alarm.baseline.start.weekday() == 5 and saturday_alarm.baseline.end <= saturday.start
    assert saturday_alarm.change_fraction == Decimal("0.500000")
    assert (saturday_alarm.baseline_interval_low_usd, saturday_alarm.baseline_interval_high_usd) == (
        Decimal("9.160000000000"),
        Decimal("9.160000000000"),
    )
    assert "(the trailing median of 3 period(s) on Saturdays from 00:00 UTC)" in saturday_alarm.explanation
    assert MeteredAlarm.objects.get(period=wednesday).change_fraction == Decimal("1.000000")


def test_the_window_skips_a_week_that_was_not_metered(deployment, prometheus):
    """A missed day leaves a gap: the window reaches back to the same weekday of the weeks before it."""
    from metering.regressions import earlier_periods

    days = meter_days(deployment, prometheus, weekly_traffic(29))  # to Tue 09-29: five Tuesdays
    days[14].delete()  # Tue 09-15 was not metered

    tuesdays = earlier_periods(days[28], window=5)

    assert [f"{day.start:%m-%d}" for day in tuesdays] == ["09-22", "09-08", "09-01"]


def test_recheck_withdraws_a_day_raised_against_the_weekdays_and_keeps_the_real_one(
    deployment, prometheus, api, staff, client, settings
):
    from io import StringIO

    from django.core.management import call_command
    from django.utils import timezone

    from metering.selectors import open_alarms

    traffic = weekly_traffic(23)  # to Wed 09-23
    traffic[22] = (10_000, 5_000_000)  # Wed 09-23: $10.992, +100 % on the Wednesdays' $5.496: a real alarm
    days = meter_days(deployment, prometheus, traffic)
    real = MeteredAlarm.objects.get()
    # As a release before metering 0003 stored them: each Saturday ($9.16) against the weekdays before it ($5.496),
    # 9.16 / 5.496 - 1 = +66.7 %. The second one a person acknowledged.
    old_rule = {"window_size": 5, "threshold_fraction": Decimal("0.10"), "change_fraction": Decimal("0.666667"),
                "attribution": {}, "explanation": "raised against the weekdays before it"}  # fmt: skip
    first = MeteredAlarm.objects.create(period=days[4], baseline=days[3], **old_rule)  # Sat 09-05, Fri 09-04
    seen = MeteredAlarm.objects.create(
        period=days[11], baseline=days[10], acknowledged_at=timezone.now(), acknowledged_by=staff, **old_rule
    )  # Sat 09-12, Fri 09-11

    def recheck() -> str:
        out = StringIO()
        call_command("recheck_alarms", stdout=out)
        return out.getvalue()

    printed = recheck()

    first.refresh_from_db()
    seen.refresh_from_db()
    assert first.withdrawn_at is not None and first.withdrawn_reason == (
        "not a regression under the current rules: the deployment has no earlier metered period of its length at its "
        "time of the week (Saturday 00:00 UTC): a period shorter than a week is compared only with those, as traffic "
        "follows the week"
    )
    assert seen.withdrawn_at is None  # left as the person saw it
    assert MeteredAlarm.objects.count() == 3  # withdrawn, not deleted
    assert f"metered alarm {first.pk} withdrawn: not a regression" in printed
    assert "1 alarm(s) withdrawn (0 cost, 1 metered)" in printed
    assert "0 alarm(s) withdrawn" in recheck()  # idempotent
    assert open_alarms() == ([real], 1)
    assert [row["id"] for row in api.get("/api/v1/metered-alarms/?acknowledged=false").json()["results"]] == [real.pk]
    (listed,) = api.get("/api/v1/metered-alarms/?withdrawn=true").json()["results"]
    assert (listed["id"], listed["withdrawn_reason"]) == (first.pk, first.withdrawn_reason)
    settings.INFERLEDGER_METRICS_TOKEN, settings.INFERLEDGER_METRICS_OPEN = "", True
    assert [value for _, value in _open_metered_alarms(client)] == [1.0]  # the real one
    # The month's trend marks the alarms still standing (the acknowledged one too), not the withdrawn one.
    (september,) = api.get(f"/api/v1/deployments/{deployment.name}/trend/").json()
    assert set(september["alarms"]) == {real.pk, seen.pk}
