"""Purchase advice lists the best option of each accelerator and cost basis, the rest on demand (all_options), and
sizes a fleet from the target rate alone when no annual volume is given (issue #28, Build 2).

Every expected figure is worked by hand in the comments.
"""

import pytest

from workloads import get

pytestmark = pytest.mark.django_db

BODY = {"workload": "resnet50", "target_qps": "1000", "price_kinds": ["cloud_on_demand", "cloud_spot"],
        "published": "all"}  # fmt: skip


def _published(make_run, accelerator, *, system, count, throughput_per_s):
    """A published resnet50 result of `system` on `count` accelerators (throughput per accelerator)."""
    return make_run(
        accelerator, [{"throughput_per_s": throughput_per_s, "latency_p99_ms": 10.0}], workload_name="resnet50",
        model_class=get("resnet50").model_class, origin="external", accelerator_count=count,
        external_source=f"MLPerf Inference v5.1, Test, {system}", backend="tensorrt", precision="unspecified",
        accuracy_passed=None,
    )  # fmt: skip


@pytest.fixture
def fleet(make_accelerator, make_price, make_run):
    """Alpha: two published systems, an on-demand and a spot price; Beta: one system, an on-demand price only.
    Both hold ResNet-50 in one accelerator (80 GiB), so every unit is one accelerator."""
    alpha = make_accelerator("Alpha", memory_gib=80)
    beta = make_accelerator("Beta", memory_gib=80)
    make_price(alpha, "2.00")
    make_price(alpha, "1.00", kind="cloud_spot")
    make_price(beta, "3.50")
    _published(make_run, alpha, system="2xAlpha", count=2, throughput_per_s=400.0)
    _published(make_run, alpha, system="4xAlpha", count=4, throughput_per_s=500.0)
    _published(make_run, beta, system="1xBeta", count=1, throughput_per_s=900.0)
    return alpha, beta


def _summary(response) -> list[tuple]:
    return [
        (o["option"]["accelerator"]["name"], o["price_kind"], o["option"]["source"].rsplit(", ", 1)[-1],
         o["units"], o["monthly_usd"], o["group_size"], o["best_in_group"])
        for o in response.data["options"]
    ]  # fmt: skip


def test_it_lists_the_cheapest_option_of_each_accelerator_and_cost_basis_first_the_rest_on_demand(api, fleet):
    # Units = ceil(1,000 / (throughput per accelerator x 0.7)); monthly = units x USD/h x 730 h.
    #   Alpha 4xAlpha (500/s): 1,000 / 350 = 2.86 -> 3 units: spot 3 x 1.00 x 730 = 2,190.00,
    #                                                         on-demand 3 x 2.00 x 730 = 4,380.00
    #   Alpha 2xAlpha (400/s): 1,000 / 280 = 3.57 -> 4 units: spot 4 x 1.00 x 730 = 2,920.00,
    #                                                         on-demand 4 x 2.00 x 730 = 5,840.00
    #   Beta  1xBeta  (900/s): 1,000 / 630 = 1.59 -> 2 units: on-demand 2 x 3.50 x 730 = 5,110.00 (no spot price)
    # Five options; three (accelerator, cost basis) pairs: (Alpha, spot), (Alpha, on-demand), (Beta, on-demand).
    everything = api.post("/api/v1/recommendations/", {**BODY, "all_options": True}, format="json")
    assert everything.status_code == 200, everything.data
    assert _summary(everything) == [
        ("NVIDIA Alpha", "cloud_spot", "4xAlpha", 3, "2190.00", 2, True),
        ("NVIDIA Alpha", "cloud_spot", "2xAlpha", 4, "2920.00", 2, False),
        ("NVIDIA Alpha", "cloud_on_demand", "4xAlpha", 3, "4380.00", 2, True),
        ("NVIDIA Beta", "cloud_on_demand", "1xBeta", 2, "5110.00", 1, True),
        ("NVIDIA Alpha", "cloud_on_demand", "2xAlpha", 4, "5840.00", 2, False),
    ]
    assert (everything.data["options_total"], everything.data["options_not_listed"]) == (5, 0)

    grouped = api.post("/api/v1/recommendations/", BODY, format="json")
    assert grouped.status_code == 200, grouped.data
    # One option per pair, the cheapest of its pair, cheapest first; the two dearer ones counted, not listed.
    assert _summary(grouped) == [
        ("NVIDIA Alpha", "cloud_spot", "4xAlpha", 3, "2190.00", 2, True),
        ("NVIDIA Alpha", "cloud_on_demand", "4xAlpha", 3, "4380.00", 2, True),
        ("NVIDIA Beta", "cloud_on_demand", "1xBeta", 2, "5110.00", 1, True),
    ]
    pairs = {(model, kind) for model, kind, *_ in _summary(everything)}
    assert len(grouped.data["options"]) == len(pairs) == 3
    assert (grouped.data["options_total"], grouped.data["options_not_listed"], grouped.data["all_options"]) == (
        5, 2, False,
    )  # fmt: skip
    assert grouped.data["grouped_by"] == "accelerator and cost basis (price kind)"


def test_it_sizes_a_fleet_without_an_annual_volume_and_prices_the_volume_only_when_given(api, fleet):
    sized = api.post("/api/v1/recommendations/", BODY, format="json")
    assert sized.status_code == 200, sized.data
    best = sized.data["options"][0]
    # Alpha on spot (above): 3 units, 2,190.00 a month, 2,190.00 x 12 = 26,280.00 a year; no volume to price.
    assert (best["units"], best["monthly_usd"], best["annual_usd"]) == (3, "2190.00", "26280.00")
    assert best["cost_per_million_at_volume_usd"] is None and sized.data["annual_volume"] is None

    # 1,000/s for a year = 1,000 x 31,536,000 s = 31,536,000,000 a year:
    # 26,280.00 / 31,536,000,000 x 1,000,000 = 0.8333... USD per 1M (12 places, half-up).
    priced = api.post("/api/v1/recommendations/", {**BODY, "annual_volume": "31536000000"}, format="json")
    assert priced.status_code == 200, priced.data
    best = priced.data["options"][0]
    assert (best["units"], best["monthly_usd"]) == (3, "2190.00")  # the volume does not change the fleet
    assert best["cost_per_million_at_volume_usd"] == "0.833333333333"
    assert priced.data["annual_volume"] == "31536000000"


def test_it_groups_the_shipped_llama2_70b_advice_one_option_per_accelerator_and_cost_basis(api, shipped_data):
    body = {"workload": "llama2-70b-99", "target_qps": "10",
            "price_kinds": ["cloud_on_demand", "owned_hyperscaler_4y"]}  # fmt: skip
    everything = api.post("/api/v1/recommendations/", {**body, "all_options": True}, format="json")
    grouped = api.post("/api/v1/recommendations/", body, format="json")
    assert everything.status_code == grouped.status_code == 200, (everything.data, grouped.data)
    cheapest: dict[tuple, float] = {}
    for option in everything.data["options"]:
        pair = (option["option"]["accelerator"]["id"], option["price_kind"])
        cheapest[pair] = min(cheapest.get(pair, float("inf")), float(option["monthly_usd"]))
    assert len(everything.data["options"]) > len(cheapest)  # near-duplicates to fold on the shipped data
    listed = {(o["option"]["accelerator"]["id"], o["price_kind"]): o for o in grouped.data["options"]}
    assert len(grouped.data["options"]) == len(listed) == len(cheapest)
    assert {pair: float(option["monthly_usd"]) for pair, option in listed.items()} == cheapest
    assert sum(o["group_size"] for o in grouped.data["options"]) == grouped.data["options_total"]
    assert grouped.data["options_not_listed"] == len(everything.data["options"]) - len(cheapest)
