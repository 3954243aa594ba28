"""The LLM ranking at a target interactivity and the fronts, over stored runs, by hand-computed values."""

from decimal import Decimal

import pytest

from tests.money import per_million_text

from .data import llm_point, make_sweep

pytestmark = pytest.mark.django_db


@pytest.fixture
def sweep(make_accelerator, make_price, make_run):
    return make_sweep(make_accelerator, make_price, make_run)


URL = "/api/v1/serving/ranking/"


def test_it_ranks_by_cost_per_million_tokens_at_a_measured_interactivity(api, sweep):
    alpha, beta = sweep

    body = api.get(URL, {"workload": "llama3.1-8b", "price_kind": "cloud_on_demand", "interactivity_tps_per_user": 20})

    assert body.status_code == 200, body.content
    data = body.json()
    # Alpha at 20 tok/s/user: 800 tok/s; 2.88 / (800 * 3600) * 1e6 = 1.0000 USD per 1M output tokens.
    # Measured 1000 input and 250 output tokens per request: 4 input per output token, total 4000 tok/s:
    #   2.88e6 / (4000 * 3600) = 0.2000; input 3200 tok/s: 0.2500.
    # Beta at 20: 1200 / 2 = 600 tok/s per accelerator; 1.80e6 / (600 * 3600) = 0.8333; total 0.1667.
    rows = [
        (r["accelerator"]["id"], r["costs"]["cost_per_million_output_tokens_usd"],
         r["costs"]["cost_per_million_total_tokens_usd"], r["costs"]["cost_per_million_input_tokens_usd"])
        for r in data["rows"]
    ]  # fmt: skip
    assert rows == [
        (beta.pk, per_million_text("1.80", 600), per_million_text("1.80", 3000), per_million_text("1.80", 2400)),
        (alpha.pk, per_million_text("2.88", 800), per_million_text("2.88", 4000), per_million_text("2.88", 3200)),
    ]
    assert data["rows"][0]["exact"] is True
    assert data["rows"][0]["accelerators_per_replica"] == 2


def test_it_names_the_two_measured_points_it_interpolated_between(api, sweep):
    alpha, _ = sweep

    data = api.get(
        URL, {"workload": "llama3.1-8b", "price_kind": "cloud_on_demand", "interactivity_tps_per_user": 15}
    ).json()

    row = next(r for r in data["rows"] if r["accelerator"]["id"] == alpha.pk)
    assert (
        row["interpolated_from"]["interactivity_tps_per_user"],
        row["interpolated_to"]["interactivity_tps_per_user"],
    ) == (10.0, 20.0)
    assert row["interpolated_from"]["interactivity_source"] == "measured TPOT p99"
    assert 800 < row["output_tokens_per_s_per_accelerator"] < 1200
    assert "PchipInterpolator" in row["method"]


def test_it_refuses_a_front_that_does_not_reach_the_target(api, sweep):
    alpha, beta = sweep

    data = api.get(
        URL, {"workload": "llama3.1-8b", "price_kind": "cloud_on_demand", "interactivity_tps_per_user": 30}
    ).json()

    assert [r["accelerator"]["id"] for r in data["rows"]] == [alpha.pk]
    assert data["refused"][0]["accelerator"]["id"] == beta.pk
    assert data["refused"][0]["reason"].startswith("target 30 tokens/s per user is above the fastest measured")
    assert data["refused"][0]["interactivity_range"] == [10.0, 20.0]


def test_it_reads_at_a_ttft_tpot_sla(api, sweep, make_run):
    alpha, _ = sweep

    data = api.get(
        URL, {"workload": "llama3.1-8b", "price_kind": "cloud_on_demand", "ttft_p99_ms": 2000, "tpot_p99_ms": 50}
    ).json()

    assert data["target_interactivity_tps_per_user"] == 20.0  # 1000 / 50 ms
    assert {r["accelerator"]["id"]: r["exact"] for r in data["rows"]}[alpha.pk] is True


def test_it_marks_tdp_energy_and_costs_every_basis(api, sweep, make_price):
    alpha, _ = sweep
    make_price(alpha, "30000", kind="purchase", provider="Vendor")

    data = api.get(
        URL, {"workload": "llama3.1-8b", "price_kind": "cloud_on_demand", "interactivity_tps_per_user": 20}
    ).json()

    row = next(r for r in data["rows"] if r["accelerator"]["id"] == alpha.pk)
    assert row["energy"]["power_source"] == "tdp"
    assert row["energy"]["output_tokens_per_joule"] == pytest.approx(800 / 700)
    assert [b["price_kind"] for b in row["other_bases"]] == ["purchase"]
    assert Decimal(row["other_bases"][0]["costs"]["cost_per_million_output_tokens_usd"]) > 0


def test_it_rejects_a_workload_that_is_not_an_llm(api):
    body = api.get(URL, {"workload": "resnet50", "price_kind": "cloud_on_demand", "interactivity_tps_per_user": 5})

    assert body.status_code == 400
    assert "not an LLM workload" in body.json()["workload"][0]


def test_it_needs_a_target(api):
    body = api.get(URL, {"workload": "llama3.1-8b", "price_kind": "cloud_on_demand"})

    assert body.status_code == 400
    assert "interactivity_tps_per_user" in body.json()


def test_it_lists_fronts_with_every_point_left_off(api, sweep, make_run):
    alpha, _ = sweep
    make_run(
        alpha, [llm_point(None, 5000)], model_class="llm-decoder", workload_name="llama3.1-8b", backend="vllm",
        precision="bf16", scenario="offline",
    )  # fmt: skip

    data = api.get("/api/v1/serving/fronts/", {"workload": "llama3.1-8b"}).json()

    front = next(f for f in data if f["accelerator"]["id"] == alpha.pk)
    assert [p["interactivity_tps_per_user"] for p in front["points"]] == [10.0, 20.0, 40.0]
    assert front["excluded"][0]["reason"].startswith("no TPOT measured or bounded (offline)")


def test_it_plans_replicas_for_concurrent_users_at_a_speed(api, sweep):
    alpha, beta = sweep

    body = api.post(
        "/api/v1/serving/plan/",
        {"workload": "llama3.1-8b", "price_kinds": ["cloud_on_demand"], "interactivity_tps_per_user": 20,
         "concurrent_users": 1000, "max_utilization": "0.8"},
        format="json",
    )  # fmt: skip

    assert body.status_code == 200, body.content
    data = body.json()
    # 1,000 users x 20 tok/s = 20,000 output tok/s.
    # Beta: a replica (2 GPUs) gives 1,200 tok/s at 20 tok/s/user, 960 at 80 %: ceil(20.83) = 21 replicas,
    #   42 accelerators x 1.80 USD/h x 730 h = 55,188.00 USD per month.
    # Alpha: 800 tok/s per 1-GPU replica, 640 at 80 %: ceil(31.25) = 32 x 2.88 x 730 = 67,276.80 USD.
    assert data["demand_output_tokens_per_s"] == "20000.000"
    summary = [
        (o["option"]["accelerator"]["id"], o["replicas"], o["accelerators"], o["monthly_usd"]) for o in data["options"]
    ]
    assert summary == [(beta.pk, 21, 42, "55188.00"), (alpha.pk, 32, 32, "67276.80")]


def test_it_plans_for_requests_of_a_stated_length(api, sweep):
    alpha, _ = sweep

    data = api.post(
        "/api/v1/serving/plan/",
        {"workload": "llama3.1-8b", "price_kinds": ["cloud_on_demand"], "interactivity_tps_per_user": 40,
         "requests_per_s": 2, "output_tokens_per_request": 250},
        format="json",
    ).json()  # fmt: skip

    # 2 req/s x 250 = 500 output tok/s; only Alpha reaches 40 tok/s/user: 400 tok/s per replica, 280 at 70 %:
    # ceil(1.79) = 2 replicas; 2 x 2.88 x 730 = 4,204.80 USD per month.
    assert [(o["replicas"], o["monthly_usd"]) for o in data["options"]] == [(2, "4204.80")]
    assert data["refused"][0]["reason"].startswith("target 40 tokens/s per user is above")


def test_it_refuses_a_plan_without_a_demand(api, sweep):
    body = api.post(
        "/api/v1/serving/plan/",
        {"workload": "llama3.1-8b", "price_kinds": ["cloud_on_demand"], "interactivity_tps_per_user": 20},
        format="json",
    )

    assert body.status_code == 400 and "concurrent_users" in body.json()


def test_it_follows_one_accelerators_cost_at_a_speed_through_a_price_change(api, sweep, make_price):
    from datetime import UTC, datetime

    alpha, _ = sweep
    make_price(alpha, "1.44", provider="Cheaper", effective_from=datetime(2025, 6, 1, tzinfo=UTC))

    data = api.get(
        "/api/v1/serving/cost-series/",
        {"accelerator": alpha.pk, "workload": "llama3.1-8b", "price_kind": "cloud_on_demand",
         "interactivity_tps_per_user": 20},
    ).json()  # fmt: skip

    # 2025-01-01 price (no run yet), 2025-03-01 the run: 2.88e6 / (800 * 3600) = 1.0000, 2025-06-01 1.44: 0.5000.
    assert [p["cause"] for p in data] == ["price", "run", "price"]
    assert data[0]["reading"] is None and data[0]["reason"]
    assert [p["reading"]["costs"]["cost_per_million_output_tokens_usd"] for p in data[1:]] == [
        per_million_text("2.88", 800),
        per_million_text("1.44", 800),
    ]


def test_it_names_an_unknown_accelerator_in_a_cost_series(api):
    body = api.get(
        "/api/v1/serving/cost-series/",
        {"accelerator": 999999, "workload": "llama3.1-8b", "price_kind": "cloud_on_demand",
         "interactivity_tps_per_user": 20},
    )  # fmt: skip

    assert body.status_code == 400 and "no accelerator with id 999999" in body.json()["non_field_errors"][0]


def test_it_reads_the_front_of_an_endpoints_concurrency_sweep(api, make_accelerator, make_price, make_run):
    gpu = make_accelerator("Gamma")
    make_price(gpu, "3.60")
    # An endpoint (user-declared workload) measured by a concurrency sweep: 5 users at 40 tok/s each,
    # 20 users at 25, 60 users at 10 (TPOT p99 25, 40, 100 ms).
    make_run(
        gpu,
        [llm_point(25, 200, concurrency=5), llm_point(40, 500, concurrency=20), llm_point(100, 600, concurrency=60)],
        model_class="endpoint", workload_name="endpoint:my-vllm", scenario="concurrency-sweep", backend="openai",
        precision="bf16",
    )  # fmt: skip

    body = api.get(
        URL, {"workload": "endpoint:my-vllm", "price_kind": "cloud_on_demand", "interactivity_tps_per_user": 25}
    )

    assert body.status_code == 200, body.content
    data = body.json()

    # 3.60e6 / (500 * 3600) = 2.0000 USD per 1M output tokens at the measured 25 tok/s/user point.
    assert [r["costs"]["cost_per_million_output_tokens_usd"] for r in data["rows"]] == [per_million_text("3.60", 500)]
    assert data["rows"][0]["interpolated_from"]["label"].endswith("concurrency-sweep, concurrency 20")


def test_the_kept_serving_result_cites_its_points_without_carrying_their_rows(sweep):
    """The dashboard's copy of a serving ranking (pickled beside the answer) names each point's run and point,
    as the API does, without the stored rows themselves: those made a 2,000-run ranking 4.8 MB (now 3.1 MB) and
    its pickling 3-4x slower."""
    import io
    import pickle

    from django.db import models

    from accounting.question import CostQuestion
    from accounting.serving.ranking import read_serving
    from results.models import OperatingPoint

    question = CostQuestion.ask(
        workload="llama3.1-8b", price_kind="cloud_on_demand", interactivity_tps_per_user=Decimal(20)
    )
    ranking = read_serving(question)
    rows_kept = set()

    class RowSpy(pickle.Pickler):
        def persistent_id(self, obj):
            if isinstance(obj, models.Model):
                rows_kept.add(type(obj).__name__)
            return None  # pickled as usual

    RowSpy(io.BytesIO(), pickle.HIGHEST_PROTOCOL).dump(ranking)
    # The catalog's rows each row is priced from (the part and its price row), no run or operating point rows.
    assert rows_kept == {"Accelerator", "Price"}
    cited = ranking.rows[0].reading.lower.extra["point"]
    stored = OperatingPoint.objects.get(pk=cited.pk)
    assert stored.run_id == cited.run_id
