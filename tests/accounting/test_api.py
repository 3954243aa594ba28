"""The accounting endpoints: shapes, CSV, authentication, field-named 400s, and a fixed query count."""

import csv
import io
from datetime import UTC, datetime, timedelta

import pytest

from tests.money import per_million_text

pytestmark = pytest.mark.django_db

RANKINGS = "/api/v1/rankings/?model_class=cv-classification&price_kind=cloud_on_demand&sla_p99_ms=10"


@pytest.fixture
def two_gpus(make_accelerator, make_price, make_run):
    alpha = make_accelerator("Alpha", memory_bandwidth_gbps=2000, fp16_tflops_dense=100)
    beta = make_accelerator("Beta")
    make_price(alpha, "2.00")
    make_price(beta, "3.00")
    make_run(alpha, [{"throughput_per_s": 400, "latency_p99_ms": 9.0}], flops_per_inference=8_000_000_000,
             weight_bytes=100_000_000)  # fmt: skip
    make_run(beta, [{"throughput_per_s": 900, "latency_p99_ms": 30.0}])
    return alpha, beta


def test_it_serves_the_ranking_with_money_as_decimal_strings(api, two_gpus):
    response = api.get(RANKINGS)
    assert response.status_code == 200, response.data
    (row,) = response.data["rows"]
    # 2.00 / (400 * 3600) * 1e6 = 1.3889, served to 12 decimals
    assert row["cost_per_million_usd"] == per_million_text("2.00", 400) == "1.388888888889"
    assert row["hourly"]["total_usd_per_hour"] == "2.000000"
    assert row["price"]["price_usd"] == "2.000000"
    assert response.data["currency"] == "USD"
    assert response.data["infeasible"][0]["accelerator"]["name"] == "NVIDIA Beta"


def test_it_ranks_with_no_sla_when_none_is_given(api, two_gpus):
    response = api.get(RANKINGS.replace("&sla_p99_ms=10", ""))
    assert response.status_code == 200, response.data
    assert response.data["sla_p99_ms"] is None and response.data["infeasible"] == []
    # Without an SLA Beta's 900/s at 3.00 (0.9259 per 1M) beats Alpha's 400/s at 2.00 (1.3889).
    assert [(row["accelerator"]["name"], row["cost_per_million_usd"]) for row in response.data["rows"]] == [
        ("NVIDIA Beta", per_million_text("3.00", 900)),
        ("NVIDIA Alpha", per_million_text("2.00", 400)),
    ]


def test_it_serves_the_same_ranking_as_csv_for_finance(api, two_gpus):
    response = api.get(RANKINGS + "&format=csv")
    assert response.status_code == 200
    assert response["Content-Type"].startswith("text/csv")
    rows = list(csv.DictReader(io.StringIO(response.content.decode("utf-8-sig"))))
    assert [(r["status"], r["accelerator"], r["cost_per_million_usd"]) for r in rows] == [
        ("ranked", "NVIDIA Alpha", per_million_text("2.00", 400)),  # full precision for finance
        ("infeasible", "NVIDIA Beta", ""),
    ]


@pytest.mark.parametrize(
    "path",
    ["/api/v1/rankings/?model_class=encoder&price_kind=purchase", "/api/v1/cost-series/", "/api/v1/alarms/"],
)
def test_it_refuses_anonymous_reads(anonymous_api, path):
    assert anonymous_api.get(path).status_code == 401


@pytest.mark.parametrize("path", ["/api/v1/recommendations/", "/api/v1/comparisons/", "/api/v1/alarms/1/ack/"])
def test_it_refuses_anonymous_posts(anonymous_api, path):
    assert anonymous_api.post(path, {}, format="json").status_code == 401


@pytest.mark.parametrize(
    "query, field",
    [
        ("sla_p99_ms=NaN", "sla_p99_ms"),
        ("sla_p99_ms=Infinity", "sla_p99_ms"),
        ("sla_p99_ms=0", "sla_p99_ms"),
        ("sla_p99_ms=-5", "sla_p99_ms"),
        ("utilization=0", "utilization"),
        ("utilization=nan", "utilization"),
        ("utilization=1.5", "utilization"),
        ("price_kind=rental", "price_kind"),
        ("model_class=chess", "model_class"),
        ("workload=chess", "workload"),
        ("tpot_p99_ms=0", "tpot_p99_ms"),
        ("as_of=yesterday", "as_of"),
    ],
)
def test_it_names_the_bad_ranking_parameter(api, query, field):
    base = {"model_class": "encoder", "price_kind": "cloud_on_demand"}
    key = query.split("=")[0]
    params = "&".join(f"{k}={v}" for k, v in base.items() if k != key)
    response = api.get(f"/api/v1/rankings/?{params}&{query}")
    assert response.status_code == 400
    assert field in response.data


def test_it_ranks_with_a_fixed_number_of_queries(api, make_accelerator, make_price, make_run,
                                                 django_assert_max_num_queries):  # fmt: skip
    def add_fleet(count, offset):
        for number in range(count):
            gpu = make_accelerator(f"GPU {offset + number}")
            make_price(gpu, "1.50")
            for day in range(3):
                make_run(gpu, [{"throughput_per_s": 100 + i, "latency_p99_ms": 1.0 + i} for i in range(5)],
                         started_at=datetime(2025, 3, 1, tzinfo=UTC) + timedelta(days=day))  # fmt: skip

    add_fleet(2, 0)
    with django_assert_max_num_queries(12):
        few = api.get(RANKINGS + "&utilization=0.9")
    add_fleet(12, 100)
    with django_assert_max_num_queries(12):
        many = api.get(RANKINGS + "&utilization=0.8")
    assert len(few.data["rows"]) == 2 and len(many.data["rows"]) == 14


def test_it_recommends_options_by_monthly_cost_with_runway(api, two_gpus, make_price):
    body = {
        "model_class": "cv-classification", "target_qps": "1000", "sla_p99_ms": "50",
        "annual_volume": "31536000000", "price_kinds": ["cloud_on_demand"], "budget_usd_per_month": "5000",
    }  # fmt: skip
    response = api.post("/api/v1/recommendations/", body, format="json")
    assert response.status_code == 200, response.data
    beta, alpha = response.data["options"]
    # Beta: 1000 / (900 * 0.7) = 1.59 -> 2 units; 2 * 3.00 * 730 = 4,380.00 per month
    # Alpha: 1000 / (400 * 0.7) = 3.57 -> 4 units; 4 * 2.00 * 730 = 5,840.00 per month: over the 5,000 budget
    assert (beta["units"], beta["monthly_usd"], beta["over_budget"]) == (2, "4380.00", False)
    assert (alpha["units"], alpha["monthly_usd"], alpha["over_budget"]) == (4, "5840.00", True)
    # Alpha fp16 roofline: compute 100e12 / 8e9 = 12,500/s; memory 2000e9 * 1 / 1e8 = 20,000/s
    # -> compute-bound, 12,500 / 400 = 31.25x runway
    runway = alpha["optimisation_runway"]
    assert runway["bound"] == "compute" and runway["runway"] == pytest.approx(31.25)
    assert "tuning" in runway["sentence"]
    assert beta["optimisation_runway"]["runway"] is None


def test_it_compares_before_and_after_and_names_a_cost_drop_in_money(api, make_accelerator, make_price, make_run):
    gpu = make_accelerator("Lambda")
    make_price(gpu, "3.60")
    fp16 = make_run(gpu, [{"throughput_per_s": 1000, "latency_p99_ms": 8, "latency_p50_ms": 4.0, "batch_size": 8}])
    int8 = make_run(gpu, [{"throughput_per_s": 2000, "latency_p99_ms": 5, "latency_p50_ms": 2.0, "batch_size": 8}],
                    precision="int8", accuracy_passed=True)  # fmt: skip
    body = {"before": [str(fp16.pk)], "after": [str(int8.pk)], "price_kind": "cloud_on_demand",
            "annual_volume": "1000000000"}  # fmt: skip
    response = api.post("/api/v1/comparisons/", body, format="json")
    assert response.status_code == 200, response.data
    # 3.60 / (1000 * 3600) * 1e6 = 1.0000 -> 3.60 / 7.2 = 0.5000; (1.0 - 0.5) * 1e9 / 1e6 = 500.00 USD a year
    assert response.data["before"]["cost_per_million_usd"] == per_million_text("3.60", 1000)
    assert response.data["after"]["cost_per_million_usd"] == per_million_text("3.60", 2000)
    assert response.data["annual_savings_usd"] == "500.00"
    # Cost halved, beyond the 10 % noise floor (no rounds measured): a cost benefit, in money; the paired points'
    # p99 8 -> 5 ms (-38 %) is stated with it.
    assert response.data["verdict"] == "cost benefit"
    assert response.data["explanation"] == (
        "cost per 1M samples fell 50% ($1.00 -> $0.500), $500.00 a year saved at 1,000,000,000 a year; "
        "p99 went from 8 ms to 5 ms (-38%), beyond the 10% noise (the 10% floor; no rounds measured)"
    )
    assert response.data["scenario"] == "server"


def test_it_calls_flat_latency_with_less_memory_memory_only(api, make_accelerator, make_price, make_run):
    gpu = make_accelerator("Mu")
    make_price(gpu, "3.60")
    fp16 = make_run(gpu, [{"throughput_per_s": 1000, "latency_p99_ms": 8, "latency_p50_ms": 4.0}], weight_bytes=200)
    int8 = make_run(gpu, [{"throughput_per_s": 1010, "latency_p99_ms": 8, "latency_p50_ms": 3.9}], weight_bytes=100,
                    precision="int8", accuracy_passed=True)  # fmt: skip
    body = {"before": [str(fp16.pk)], "after": [str(int8.pk)], "price_kind": "cloud_on_demand", "annual_volume": "1"}
    assert api.post("/api/v1/comparisons/", body, format="json").data["verdict"] == "memory/concurrency only"
    failing = make_run(gpu, [{"throughput_per_s": 3000, "latency_p99_ms": 2}], precision="int8", accuracy_passed=False)
    body["after"] = [str(failing.pk)]
    assert api.post("/api/v1/comparisons/", body, format="json").data["verdict"] == "accuracy floor breached"


@pytest.mark.parametrize(
    "change, field",
    [
        ({"annual_volume": "NaN"}, "annual_volume"),
        ({"annual_volume": "0"}, "annual_volume"),
        ({"before": ["not-a-uuid"]}, "before"),
        ({"after": ["00000000-0000-0000-0000-000000000000"]}, "after"),
        ({"sla_p99_ms": "-1"}, "sla_p99_ms"),
    ],
)
def test_it_names_the_bad_comparison_field(api, two_gpus, change, field):
    from results.models import BenchmarkRun

    run = str(BenchmarkRun.objects.first().pk)
    body = {"before": [run], "after": [run], "price_kind": "cloud_on_demand", "annual_volume": "10", **change}
    response = api.post("/api/v1/comparisons/", body, format="json")
    assert response.status_code == 400
    assert field in response.data


@pytest.mark.parametrize(
    "change, field",
    [({"target_qps": "Infinity"}, "target_qps"), ({"target_qps": "0"}, "target_qps"),
     ({"max_utilization": "2"}, "max_utilization"), ({"price_kinds": []}, "price_kinds")],
)  # fmt: skip
def test_it_names_the_bad_recommendation_field(api, change, field):
    body = {"model_class": "encoder", "target_qps": "10", "annual_volume": "10", "price_kinds": ["cloud_spot"]}
    response = api.post("/api/v1/recommendations/", {**body, **change}, format="json")
    assert response.status_code == 400
    assert field in response.data


def test_it_serves_the_cost_series_of_an_offering(api, make_accelerator, make_price, make_run):
    from results.models import BenchmarkRun
    from results.signals import run_ingested

    gpu = make_accelerator("Nu")
    make_price(gpu, "2.00")
    run = make_run(gpu, [{"throughput_per_s": 1000, "latency_p99_ms": 5.0}])
    run_ingested.send(sender=BenchmarkRun, run=run)
    make_price(gpu, "2.20", effective_from=datetime(2025, 4, 1, tzinfo=UTC))
    response = api.get(f"/api/v1/cost-series/?accelerator={gpu.pk}&workload=resnet50&price_kind=cloud_on_demand"
                       "&sla_p99_ms=15")  # fmt: skip
    assert response.status_code == 200
    assert [row["cost_per_million_usd"] for row in response.data] == [
        per_million_text("2.00", 1000),
        per_million_text("2.20", 1000),
    ]
    assert response.data[1]["run"] == str(run.pk)
    assert api.get("/api/v1/cost-series/?accelerator=0&workload=x&price_kind=cloud_spot").status_code == 400
