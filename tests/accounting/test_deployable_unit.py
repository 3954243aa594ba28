"""The deployable unit comes from the model (weights + KV cache against the accelerator's memory), not from the
system a result was measured on, and a unit is priced as the catalog sells it (issue #24, Build 2 and 3).

Every expected figure is worked by hand in the comments.
"""

from datetime import UTC, datetime
from decimal import Decimal

import pytest

from accounting import deployable_unit
from accounting.pricing.offerings import unit_offer
from accounting.question import CostQuestion
from workloads import get

pytestmark = pytest.mark.django_db

GIB = 1_073_741_824  # 2**30


def _published(make_run, accelerator, *, workload, count, point, system):
    return make_run(
        accelerator, [point], workload_name=workload, model_class=get(workload).model_class, scenario="server",
        origin="external", external_source=f"MLPerf Inference v5.1, Test, {system}", accelerator_count=count,
        backend="tensorrt", precision="unspecified", accuracy_passed=None,
    )  # fmt: skip


def test_resnet50_at_5000_images_per_s_is_one_l40s_not_the_published_four(api, make_accelerator, make_price, make_run):
    l40s = make_accelerator("L40S", memory_gib=48)
    single = make_price(l40s, "1.5484", provider="Nebius", instance_type="gpu-l40s-a_1gpu")
    make_price(l40s, "14", provider="OCI", instance_type="BM.GPU.L40S.4", accelerators_per_instance=4)  # 3.50/GPU
    # A published 4 x L40S result: 181,228 images/s for the system = 45,307 per accelerator.
    _published(make_run, l40s, workload="resnet50", count=4, system="4xL40S",
               point={"throughput_per_s": 45_307.0, "latency_p99_ms": 10.0})  # fmt: skip
    body = {"workload": "resnet50", "target_qps": "5000", "annual_volume": "1000000000",
            "price_kinds": ["cloud_on_demand"], "include_external": True}  # fmt: skip
    response = api.post("/api/v1/recommendations/", body, format="json")
    assert response.status_code == 200, response.data
    (option,) = response.data["options"]
    # Weights: 25,557,032 parameters x 2 bytes (fp16 assumed: MLPerf states no precision) = 51,114,064 B = 0.05 GiB,
    # against 48 GiB x 0.9 = 43.2 GiB usable: one accelerator. 5,000 / (45,307 x 1 x 0.7 = 31,714.9) = 0.16 -> 1 unit.
    assert (option["units"], option["accelerators_per_unit"], option["accelerators"]) == (1, 1, 1)
    assert option["deployment"] == "1 x NVIDIA L40S"
    # Sold as the single-GPU offering: 1.5484 USD/h x 730 h = 1,130.332 -> 1,130.33 USD a month
    # (before: the published 4-GPU system, 4 x 1.5484 x 730 = 4,521.33 USD, 97 % spare).
    assert option["monthly_usd"] == "1130.33"
    assert option["unit_price_row"] == single.pk
    # Spare: 1 - 5,000 / 45,307 = 0.88964 -> 0.8896.
    assert option["headroom_fraction"] == "0.8896"
    assumption = option["unit_assumption"]
    # 51,114,064 B / 2^20 = 48.7 MiB; 48 x 0.9 = 43.2 GiB.
    assert assumption.startswith(
        "1 x NVIDIA L40S: ResNet-50 v1.5 fits in one accelerator (48.7 MiB of fp16 (assumed: the run states none) "
        "weights; 43.2 GiB usable per accelerator (10% kept free))"
    )
    assert "scaled from the 4-accelerator measured result" in assumption
    assert f"one 1-accelerator instance (price row {single.pk}: Nebius gpu-l40s-a_1gpu)" in assumption


def test_llama2_70b_at_10_requests_per_s_on_80_gib_parts_is_a_unit_of_four(make_accelerator, make_price, make_run):
    from accounting.recommendations import recommend

    h100 = make_accelerator("H100 SXM5 80GB", memory_gib=80)
    single = make_price(h100, "2.29", provider="Lambda", instance_type="gpu_1x_h100_sxm5")
    make_price(h100, "98.32", provider="Lambda", instance_type="gpu_8x_h100_sxm5", accelerators_per_instance=8)
    _published(make_run, h100, workload="llama2-70b-99", count=8, system="8xH100",
               point={"throughput_per_s": 9.0, "output_tokens_per_s": 2700.0, "latency_p99_ms": 156_240.6,
                      "ttft_p99_ms": 474.0, "tpot_p99_ms": 179.8})  # fmt: skip
    question = CostQuestion.ask(workload="llama2-70b-99", price_kind="cloud_on_demand", published="all")
    plan = recommend(question, target_qps="10", annual_volume="1000000000", price_kinds=["cloud_on_demand"])
    (option,) = plan.options
    # Weights: 68,976,648,192 parameters x 2 bytes (fp16 assumed)           = 137,953,296,384 B (128.5 GiB)
    # KV per token: 2 (K, V) x 80 layers x 8 KV heads x 128 head dim x 2 B  =         327,680 B
    # KV cache: 32 sequences x (1,024 + 1,024) tokens x 327,680 B          =  21,474,836,480 B (20.0 GiB)
    # Total 159,428,132,864 B over 80 x 2^30 x 0.9 = 77,309,411,328 B usable -> 2.06 -> 3 -> 4 (a power of two).
    need = option.unit.need
    assert need.weight_bytes == 137_953_296_384 and need.kv_cache_bytes == 21_474_836_480
    assert option.unit.usable_bytes_per_accelerator == 77_309_411_328
    assert option.capacity.accelerators_per_unit == 4
    # Demand: 10 requests/s x 294.45 output tokens = 2,944.5 tokens/s; a unit gives 4 x 2,700 x 0.7 = 7,560 -> 1 unit.
    assert plan.target.throughput_per_s == Decimal("2944.50")
    assert (option.capacity.units, option.capacity.accelerators) == (1, 4)
    # No 4-GPU instance in the catalog, and 8 does not divide 4: four single-GPU offerings at 2.29 USD/h,
    # 4 x 2.29 x 730 = 6,686.80 USD a month; spare 1 - 2,944.5 / 10,800 = 0.72736 -> 0.7274.
    assert option.priced.offer.price == single
    assert option.priced.sold_as.startswith("4 single-accelerator offerings")
    assert option.capacity.monthly_usd == Decimal("6686.80")
    assert option.capacity.headroom_fraction == Decimal("0.7274")
    assert option.unit_assumption.startswith("4 x NVIDIA H100 SXM5 80GB: Llama-2-70b-chat-hf needs 4 accelerators")
    assert "scaled from the 8-accelerator measured result" in option.unit_assumption


def test_the_same_llama2_70b_fits_one_b200(make_accelerator):
    b200 = make_accelerator("B200", memory_gib=180)
    unit = deployable_unit.smallest_unit(get("llama2-70b-99"), b200, precision="bf16", measured_accelerators=8)
    # 159,428,132,864 B (as above) <= 180 x 2^30 x 0.9 = 173,946,175,488 B: one B200 holds weights and KV cache.
    assert unit.accelerators == 1
    # In fp32 it does not: 68,976,648,192 x 4 = 275,906,592,768 B + KV at 4 B: 42,949,672,960 B
    # = 318,856,265,728 B / 173,946,175,488 = 1.83 -> 2.
    in_fp32 = deployable_unit.smallest_unit(get("llama2-70b-99"), b200, precision="fp32", measured_accelerators=8)
    assert in_fp32.accelerators == 2


def test_eight_b200_are_priced_with_the_eight_gpu_instance_when_the_catalog_has_one(
    make_accelerator, make_price, make_run
):
    from accounting.recommendations import recommend

    b200 = make_accelerator("B200", memory_gib=180)
    single = make_price(b200, "4.89", provider="Verda", instance_type="1B200.30V")
    eight = make_price(
        b200, "44.00", provider="Nebius", instance_type="gpu-b200-sxm_8gpu", accelerators_per_instance=8,
        effective_from=datetime(2025, 6, 1, tzinfo=UTC),
    )  # fmt: skip
    _published(make_run, b200, workload="llama3.1-405b", count=8, system="8xB200",
               point={"throughput_per_s": 0.2, "output_tokens_per_s": 100.0, "latency_p99_ms": 50_000.0,
                      "ttft_p99_ms": 3000.0, "tpot_p99_ms": 150.0})  # fmt: skip
    # Weights: 405,853,388,800 x 2 B (fp16 assumed) = 811,706,777,600 B; the registry states no context for
    # llama3.1-405b, so no KV cache is counted. 811,706,777,600 / 173,946,175,488 = 4.67 -> 5 -> 8 B200s.
    unit = deployable_unit.smallest_unit(get("llama3.1-405b"), b200, precision="unspecified", measured_accelerators=8)
    assert unit.accelerators == 8 and unit.need.kv_cache_bytes == 0

    # Before the 8-GPU instance is in the catalog: eight single-GPU offerings, said so.
    before = unit_offer(b200, accelerators=8, price_kind="cloud_on_demand", at=datetime(2025, 3, 1, tzinfo=UTC))
    assert before.offer.price == single and before.instances == 8
    assert before.sold_as == (
        f"8 single-accelerator offerings (price row {single.pk}: Verda 1B200.30V): "
        "the catalog has no 8-accelerator instance"
    )
    assert before.usd_per_hour == Decimal("39.120000")  # 8 x 4.89

    question = CostQuestion.ask(
        workload="llama3.1-405b", price_kind="cloud_on_demand", published="all", as_of=datetime(2025, 7, 1, tzinfo=UTC)
    )
    plan = recommend(
        question, target_output_tokens_per_s="1000", annual_volume="1000000000", price_kinds=["cloud_on_demand"]
    )
    (option,) = plan.options
    # The 8-GPU instance sells the unit whole, though dearer per GPU: 44.00 / 8 = 5.50 USD/h (> 4.89).
    assert option.priced.offer.price == eight and option.priced.usd_per_hour == Decimal("44.000000")
    assert option.priced.sold_as == f"one 8-accelerator instance (price row {eight.pk}: Nebius gpu-b200-sxm_8gpu)"
    # 1,000 tokens/s over 8 x 100 x 0.7 = 560 per unit = 1.79 -> 2 units = 16 B200s;
    # 16 x 5.50 x 730 = 64,240.00 USD a month (at the single-GPU price it was 16 x 4.89 x 730 = 57,115.20).
    assert (option.capacity.units, option.capacity.accelerators) == (2, 16)
    assert option.capacity.monthly_usd == Decimal("64240.00")


def test_a_serving_plan_sizes_its_replicas_as_deployable_units(api, make_accelerator, make_price, make_run):
    from hardware_catalog.models import Accelerator
    from tests.accounting.serving.data import make_sweep

    _, beta = make_sweep(make_accelerator, make_price, make_run)
    Accelerator.objects.filter(pk=beta.pk).update(memory_gib=80)
    body = {"workload": "llama3.1-8b", "price_kinds": ["cloud_on_demand"], "interactivity_tps_per_user": 20,
            "concurrent_users": 1000, "max_utilization": "0.8"}  # fmt: skip
    data = api.post("/api/v1/serving/plan/", body, format="json").json()
    option = next(o for o in data["options"] if o["option"]["accelerator"]["id"] == beta.pk)
    # Llama-3.1-8B in bf16: 8,030,261,248 x 2 = 16,060,522,496 B; KV 2 x 32 x 8 x 128 x 2 = 131,072 B per token x
    # (2,048 + 128) tokens x 32 sequences = 9,126,805,504 B; 25,187,328,000 B <= 80 x 2^30 x 0.9 = 77,309,411,328:
    # one Beta is a replica, though the sweep was measured on two.
    # 1,000 users x 20 tok/s = 20,000 tok/s; 600 tok/s per Beta at 20 tok/s/user, 480 at 80 %: ceil(41.67) = 42.
    # Beta is sold only as a 2-GPU instance (3.60 USD/h): one Beta is half of one, 1.80 USD/h, said so;
    # 42 x 1.80 x 730 = 55,188.00 USD a month (before: 21 replicas of 2, the same money in units of 2).
    assert (option["replicas"], option["accelerators_per_replica"], option["accelerators"]) == (42, 1, 42)
    assert option["monthly_usd"] == "55188.00"
    assert option["unit_assumption"].startswith("1 x NVIDIA Beta: Meta-Llama-3.1-8B-Instruct fits in one accelerator")
    assert "scaled from the 2-accelerator measured result" in option["unit_assumption"]
    assert "1 of the 2 accelerators of one instance, priced per accelerator" in option["unit_assumption"]
