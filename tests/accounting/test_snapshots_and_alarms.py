"""Cost snapshots (history that is added to, never rewritten) and explained regression alarms."""

from datetime import UTC, datetime
from decimal import Decimal
from io import StringIO

import pytest
from django.core.management import call_command

from accounting.models import CostAlarm, CostSnapshot
from results.models import BenchmarkRun
from results.signals import run_ingested
from tests.money import per_million

pytestmark = pytest.mark.django_db

MARCH, APRIL, MAY = (datetime(2025, month, 1, tzinfo=UTC) for month in (3, 4, 5))


def _ingest(make_run, gpu, throughput, started_at):
    run = make_run(gpu, [{"throughput_per_s": throughput, "latency_p99_ms": 5.0}], started_at=started_at)
    run_ingested.send(sender=BenchmarkRun, run=run)
    return run


def _series(gpu, sla="15"):
    return list(CostSnapshot.objects.filter(accelerator=gpu, sla_p99_ms=Decimal(sla)).order_by("effective_at", "id"))


def test_it_snapshots_a_run_under_each_standard_sla_with_its_inputs(make_accelerator, make_price, make_run):
    gpu = make_accelerator("Zeta")
    price = make_price(gpu, "2.00")
    run = _ingest(make_run, gpu, 1000, MARCH)
    # cv-classification: p99 <= 15 ms, <= 100 ms and no SLA -> three snapshots for the one offering
    snapshots = CostSnapshot.objects.filter(run=run)
    assert sorted(str(s.sla_p99_ms) for s in snapshots) == ["100.000", "15.000", "None"]
    (snapshot,) = _series(gpu)
    # 2.00 / (1000 * 3600) * 1e6 = 0.5555…
    assert snapshot.cost_per_million_usd == per_million("2.00", 1000)
    assert (snapshot.price, snapshot.point, snapshot.power_source) == (
        price,
        run.points.get(),
        "included in cloud price",
    )
    assert snapshot.cloud_usd_per_hour == Decimal("2.000000")
    assert snapshot.effective_at == run.finished_at


def test_it_adds_a_snapshot_when_the_price_changes_and_keeps_the_old_one(make_accelerator, make_price, make_run):
    gpu = make_accelerator("Eta")
    make_price(gpu, "2.00")
    _ingest(make_run, gpu, 1000, MARCH)
    make_price(gpu, "2.20", effective_from=APRIL)
    # 2.20 / 3.6 = 0.6111…; the March figure stays as it was
    assert [s.cost_per_million_usd for s in _series(gpu)] == [per_million("2.00", 1000), per_million("2.20", 1000)]
    assert _series(gpu)[1].effective_at == APRIL


def test_it_recomputes_costs_idempotently(make_accelerator, make_price, make_run):
    gpu = make_accelerator("Theta")
    make_price(gpu, "2.00")
    _ingest(make_run, gpu, 1000, MARCH)
    make_price(gpu, "2.20", effective_from=APRIL)
    stored = CostSnapshot.objects.count()

    out = StringIO()
    call_command("recompute_costs", stdout=out)
    assert "0 snapshot(s) added" in out.getvalue()
    assert CostSnapshot.objects.count() == stored

    CostSnapshot.objects.all().delete()
    call_command("recompute_costs", stdout=StringIO())
    assert CostSnapshot.objects.count() == stored


def test_it_raises_an_alarm_that_attributes_the_change_to_price_and_throughput(make_accelerator, make_price, make_run):
    gpu = make_accelerator("Iota")
    make_price(gpu, "2.00")
    _ingest(make_run, gpu, 1000, MARCH)  # 2.00 / 3.6 = 0.5556 USD per million
    make_price(gpu, "2.20", effective_from=APRIL)  # price +10 %: 0.6111, +10.0 %, not above the threshold
    assert not CostAlarm.objects.exists()
    _ingest(make_run, gpu, 800, MAY)  # throughput -20 %: 2.20 / (800 * 3600) * 1e6 = 0.7639

    alarm = CostAlarm.objects.get(snapshot__accelerator=gpu)  # one alarm for the change, whichever SLA's series
    # Trailing median (median_low of 0.5556 and 0.6111) is the March snapshot: 0.7639 / 0.5556 - 1 = +37.5 %
    assert alarm.baseline.cost_per_million_usd == per_million("2.00", 1000)
    assert alarm.change_fraction == pytest.approx(Decimal("0.374910"), abs=Decimal("0.0002"))
    # Cost ratio 1.1 / 0.8 = 1.375. Log shares: price ln 1.1 / ln 1.375 = 0.09531 / 0.31845 = 0.2993,
    # throughput ln 1.25 / ln 1.375 = 0.22314 / 0.31845 = 0.7007, power 0 (cloud price includes power).
    factors = alarm.attribution["factors"]
    assert factors["price"]["share"] == "0.2993"
    assert factors["throughput"]["share"] == "0.7007"
    assert factors["power"]["share"] == "0.0000"

    # In money: total 0.763888… - 0.555555… = 0.208333…;
    # price 0.208333 * 0.299291 = 0.062352, throughput 0.208333 * 0.700709 = 0.145981
    def usd(text):
        return Decimal(text).quantize(Decimal("0.000001"))

    assert usd(alarm.attribution["change_usd_per_million"]) == Decimal("0.208333")
    assert usd(factors["price"]["usd_per_million"]) == Decimal("0.062352")
    assert usd(factors["throughput"]["usd_per_million"]) == Decimal("0.145981")
    assert Decimal(factors["utilization"]["usd_per_million"]) == 0  # fixed within a series
    parts = sum(Decimal(f["usd_per_million"]) for f in factors.values())
    assert parts == pytest.approx(Decimal(alarm.attribution["change_usd_per_million"]), abs=Decimal("1e-11"))
    assert alarm.attribution["baseline_run"] != alarm.attribution["run"]
    assert "rose 37.5%" in alarm.explanation
    assert "price +$0.0624 per 1M samples (29.9%)" in alarm.explanation
    assert "throughput +$0.146 per 1M samples (70.1%)" in alarm.explanation


def test_it_lists_alarms_and_lets_only_staff_acknowledge_them(make_accelerator, make_price, make_run, api, staff_api):
    gpu = make_accelerator("Kappa")
    make_price(gpu, "2.00")
    _ingest(make_run, gpu, 1000, MARCH)
    _ingest(make_run, gpu, 500, MAY)  # cost doubles
    alarm = CostAlarm.objects.get(snapshot__accelerator=gpu)  # one alarm for the change, on the no-SLA series

    listed = api.get("/api/v1/alarms/?acknowledged=false")
    assert listed.status_code == 200
    row = next(row for row in listed.data["results"] if row["id"] == alarm.pk)
    # The SLA and the cost basis as columns: the alarm says what it was computed under.
    assert (row["sla"], row["sla_p99_ms"], row["cost_basis"]) == (
        "no SLA (best throughput)",
        None,
        "cloud_on_demand at 100% utilization",
    )
    assert (row["price_kind"], row["utilization"]) == ("cloud_on_demand", "1.000000")
    assert "throughput +$0.556 per 1M samples (100.0%)" in row["explanation"]  # 0.5556 -> 1.1111: all throughput
    assert api.post(f"/api/v1/alarms/{alarm.pk}/ack/").status_code == 403
    acked = staff_api.post(f"/api/v1/alarms/{alarm.pk}/ack/")
    assert acked.status_code == 200 and acked.data["acknowledged_at"] is not None
    assert alarm.pk not in [row["id"] for row in api.get("/api/v1/alarms/?acknowledged=false").data["results"]]


def test_the_overview_lists_an_open_alarm_until_it_is_acknowledged(make_accelerator, make_price, make_run, staff_api,
                                                                   client, staff):  # fmt: skip
    """The overview reads open alarms per data version (issue 28): raising and acknowledging one both change it."""
    gpu = make_accelerator("Kappa")
    make_price(gpu, "2.00")
    _ingest(make_run, gpu, 1000, MARCH)
    client.force_login(staff)

    def listed() -> bool:
        page = client.get("/").content.decode()
        return "Kappa" in page.split('id="table-alarms"', 1)[1].split("</section>", 1)[0]

    assert not listed()  # one run: nothing to compare with
    _ingest(make_run, gpu, 500, MAY)  # cost doubles: an alarm
    assert listed()
    alarm = CostAlarm.objects.get(snapshot__accelerator=gpu)
    assert staff_api.post(f"/api/v1/alarms/{alarm.pk}/ack/").status_code == 200
    assert not listed()  # at once, though the acknowledgement is an update() that sends no signal
