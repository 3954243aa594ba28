"""Every answer is for one workload: rankings, recommendations and comparisons never mix two.

Expectations are computed by hand in the comments (issue #12's "Must show").
"""

import pytest

from accounting.rankings.ranking import ranking
from tests.money import per_million, per_million_text

pytestmark = pytest.mark.django_db


@pytest.fixture
def two_llms_on_two_gpus(make_accelerator, make_price, make_run):
    """H100 and L40S each measured on Llama-2-70B and on Mixtral-8x7B (the faster one), no SLA needed."""
    h100 = make_accelerator("H100 test")
    l40s = make_accelerator("L40S test")
    make_price(h100, "98.32", accelerators_per_instance=8)  # 98.32 / 8 = 12.29 USD/h per accelerator
    make_price(l40s, "2.00")
    for gpu, llama_tokens, mixtral_tokens in ((h100, 2700.0, 6000.0), (l40s, 900.0, 2000.0)):
        for workload, tokens in (("llama2-70b-99", llama_tokens), ("mixtral-8x7b", mixtral_tokens)):
            make_run(
                gpu,
                [{"throughput_per_s": tokens, "throughput_unit": "output_tokens", "output_tokens_per_s": tokens,
                  "latency_p99_ms": 60_000.0, "ttft_p99_ms": 400.0, "tpot_p99_ms": 150.0}],
                workload_name=workload, model_class="llm-decoder", scenario="server",
            )  # fmt: skip
    return h100, l40s


def test_a_ranking_over_two_workloads_on_the_same_accelerators_lists_only_the_asked_one(two_llms_on_two_gpus):
    h100, l40s = two_llms_on_two_gpus
    llama = ranking(workload="llama2-70b-99", price_kind="cloud_on_demand")
    # L40S: 2.00 / (900 tokens/s * 3600) * 1e6 = 2 / 3.24 = 0.61728… per 1M output tokens
    # H100: 12.29 / (2700 * 3600) * 1e6 = 12.29 / 9.72 = 1.26440…
    # (Before: each accelerator's fastest workload of the class won, i.e. Mixtral on both.)
    assert [(row.accelerator, row.cost_per_million_usd) for row in llama.rows] == [
        (l40s, per_million("2.00", 900)),
        (h100, per_million("12.29", 2700)),
    ]
    assert {row.run.workload_name for row in llama.rows} == {"llama2-70b-99"}
    assert llama.workload.id == "llama2-70b-99" and llama.unit == "output_tokens"

    mixtral = ranking(workload="mixtral-8x7b", price_kind="cloud_on_demand")
    # L40S: 2.00 / (2000 * 3600) * 1e6 = 0.27777…;  H100: 12.29 / (6000 * 3600) * 1e6 = 0.56898…
    assert [(row.accelerator, row.cost_per_million_usd) for row in mixtral.rows] == [
        (l40s, per_million("2.00", 2000)),
        (h100, per_million("12.29", 6000)),
    ]
    assert {row.run.workload_name for row in mixtral.rows} == {"mixtral-8x7b"}


def test_a_model_class_alone_is_answered_for_its_reference_workload_and_says_so(api, two_llms_on_two_gpus):
    response = api.get("/api/v1/rankings/?model_class=llm-decoder&price_kind=cloud_on_demand")
    assert response.status_code == 200, response.data
    assert response.data["workload"]["id"] == "llama2-70b-99"
    assert response.data["workload"]["reference_of_model_class"] is True
    assert {row["run"]["workload_name"] for row in response.data["rows"]} == {"llama2-70b-99"}
    assert [row["cost_per_million_usd"] for row in response.data["rows"]] == [
        per_million_text("2.00", 900),
        per_million_text("12.29", 2700),
    ]


@pytest.fixture
def tiny_and_reference(make_accelerator, make_price, make_run):
    """A CPU runs the tiny stand-in very cheaply; the CPU and a GPU run the reference risk-scoring MLP."""
    cpu = make_accelerator("Test CPU", vendor="AMD", kind="cpu", tdp_w=100)
    gpu = make_accelerator("Test GPU")
    make_price(cpu, "0.10")
    make_price(gpu, "2.00")
    tabular = {"model_class": "tabular", "scenario": "offline", "precision": "fp32"}
    make_run(cpu, [{"throughput_per_s": 50_000, "latency_p99_ms": 1.0}], workload_name="tabular-tiny", **tabular)
    make_run(cpu, [{"throughput_per_s": 1_000, "latency_p99_ms": 4.0}], workload_name="risk-mlp", **tabular)
    make_run(gpu, [{"throughput_per_s": 100_000, "latency_p99_ms": 2.0}], workload_name="risk-mlp", **tabular)
    return cpu, gpu


def test_the_tiny_stand_in_never_outranks_a_reference_workload(tiny_and_reference, api):
    cpu, gpu = tiny_and_reference
    result = ranking(model_class="tabular", price_kind="cloud_on_demand")
    # GPU: 2.00 / (100,000 * 3600) * 1e6 = 2 / 360 = 0.00555…
    # CPU: 0.10 / (1,000 * 3600) * 1e6 = 0.1 / 3.6 = 0.02777…
    # The tiny stand-in on the CPU (0.10 / (50,000 * 3600) * 1e6 = 0.000555…) is not in the list at all.
    assert result.workload.id == "risk-mlp"
    assert [(row.accelerator, row.cost_per_million_usd) for row in result.rows] == [
        (gpu, per_million("2.00", 100_000)),
        (cpu, per_million("0.10", 1_000)),
    ]
    assert result.infeasible == []
    # Asked for by id, the stand-in is answered, alone.
    response = api.get("/api/v1/rankings/?workload=tabular-tiny&price_kind=cloud_on_demand")
    assert response.data["workload"]["is_smoke_test"] is True
    assert [(row["run"]["workload_name"], row["cost_per_million_usd"]) for row in response.data["rows"]] == [
        ("tabular-tiny", per_million_text("0.10", 50_000))
    ]


@pytest.fixture
def published_h100_llama(make_accelerator, make_price, make_run):
    """An MLPerf-style llama2-70b-99 Server result on an 8-GPU H100 system, stored per accelerator."""
    h100 = make_accelerator("H100 SXM test")
    make_price(h100, "98.32", accelerators_per_instance=8)  # 12.29 USD/h per accelerator
    return make_run(
        h100,
        # System: 72 samples/s and 21,600 output tokens/s (300 tokens per sample) -> / 8 per accelerator
        [{"throughput_per_s": 9.0, "output_tokens_per_s": 2700.0, "latency_p99_ms": 156_240.6,
          "ttft_p99_ms": 474.0, "tpot_p99_ms": 179.8}],
        workload_name="llama2-70b-99", model_class="llm-decoder", scenario="server", origin="external",
        external_source="MLPerf Inference v4.1, Dell, XE9680_H100_SXM_80GBx8_TRT", accelerator_count=8,
        backend="tensorrt", precision="unspecified", accuracy_passed=None,
    )  # fmt: skip


def test_an_llm_recommendation_on_a_part_of_unknown_memory_buys_the_measured_system(api, published_h100_llama):
    body = {
        "workload": "llama2-70b-99", "target_qps": "60", "output_tokens_per_request": "300",
        "input_tokens_per_request": "700", "ttft_p99_ms": "2000", "tpot_p99_ms": "200",
        "annual_volume": "1000000000", "price_kinds": ["cloud_on_demand"], "include_external": True,
    }  # fmt: skip
    response = api.post("/api/v1/recommendations/", body, format="json")
    assert response.status_code == 200, response.data
    (option,) = response.data["options"]
    # Target: 60 requests/s * 300 output tokens per request = 18,000 output tokens/s.
    # One 8-GPU system at 0.7 utilization: 2,700 tokens/s * 8 * 0.7 = 15,120 tokens/s;
    # 18,000 / 15,120 = 1.19 -> 2 systems = 16 H100s; 16 * 12.29 USD/h * 730 h = 143,547.20 USD per month.
    # (Before: 60 "QPS" / (2,700 * 0.7) = 0.03 -> "1 x H100" at 12.29 * 730 = 8,971.70 USD per month.)
    assert response.data["target"]["throughput_per_s"] == "18000.000000"
    assert (option["units"], option["accelerators_per_unit"], option["accelerators"]) == (2, 8, 16)
    assert option["monthly_usd"] == "143547.20"
    assert option["deployment"] == "2 x 8-accelerator NVIDIA H100 SXM test units (16 in all)"
    # The test part has no memory size in the catalog, so the unit cannot be sized from the model: it says so.
    assert option["unit_assumption"].startswith(
        "8 x NVIDIA H100 SXM test: the catalog has no memory size for NVIDIA H100 SXM test: bought as the measured"
    )
    assert option["option"]["source"] == "published: MLPerf Inference v4.1, Dell, XE9680_H100_SXM_80GBx8_TRT"
    tokens = option["option"]["tokens"]
    # Per 1M output tokens: 12.29 / (2,700 * 3600) * 1e6 = 1.26440…
    # Total tokens/s per accelerator: 2,700 + 9 requests/s * 700 input tokens = 9,000;
    # 12.29 / (9,000 * 3600) * 1e6 = 12.29 / 32.4 = 0.37932… per 1M total tokens.
    assert tokens["cost_per_million_output_tokens_usd"] == per_million_text("12.29", 2700)
    assert tokens["cost_per_million_total_tokens_usd"] == per_million_text("12.29", 9000)


def test_an_llm_recommendation_needs_a_stated_output_length_when_the_workload_has_none(api, published_h100_llama):
    # MLPerf publishes no mean output length in tokens for llama3.1-8b: requests/s cannot be converted.
    body = {"workload": "llama3.1-8b", "target_qps": "60", "annual_volume": "10", "price_kinds": ["cloud_spot"]}
    response = api.post("/api/v1/recommendations/", body, format="json")
    assert response.status_code == 400
    assert "output_tokens_per_request" in response.data
    # Stated in output tokens/s, no length is needed: 18,000 / 15,120 -> 2 systems of 8 again.
    body = {"workload": "llama2-70b-99", "target_output_tokens_per_s": "18000", "annual_volume": "10",
            "price_kinds": ["cloud_on_demand"], "include_external": True}  # fmt: skip
    response = api.post("/api/v1/recommendations/", body, format="json")
    assert response.status_code == 200, response.data
    assert response.data["options"][0]["accelerators"] == 16


def test_an_llm_ranking_is_bounded_by_ttft_and_tpot(api, published_h100_llama, make_run):
    base = "/api/v1/rankings/?workload=llama2-70b-99&price_kind=cloud_on_demand&include_external=true"
    assert api.get(base + "&ttft_p99_ms=2000&tpot_p99_ms=200").data["rows"][0]["point"]["tpot_p99_ms"] == 179.8
    interactive = api.get(base + "&ttft_p99_ms=450&tpot_p99_ms=40").data
    assert interactive["rows"] == []
    assert "TTFT p99 is 474.000 ms" in interactive["infeasible"][0]["reason"]
    refused = api.get(base + "&sla_p99_ms=100000")
    assert refused.status_code == 400 and "ttft_p99_ms" in str(refused.data["sla_p99_ms"])
    wrong = api.get("/api/v1/rankings/?workload=resnet50&price_kind=cloud_on_demand&ttft_p99_ms=100")
    assert wrong.status_code == 400 and "ttft_p99_ms" in wrong.data


def test_a_comparison_across_workloads_is_refused_naming_both(api, make_accelerator, make_price, make_run):
    gpu = make_accelerator("Kappa")
    make_price(gpu, "3.60")
    encoder = make_run(gpu, [{"throughput_per_s": 1000, "latency_p99_ms": 8}], workload_name="bert-large-99",
                       model_class="encoder")  # fmt: skip
    tabular = make_run(gpu, [{"throughput_per_s": 90_000, "latency_p99_ms": 1}], workload_name="tabular-tiny",
                       model_class="tabular")  # fmt: skip
    body = {"before": [str(encoder.pk)], "after": [str(tabular.pk)], "price_kind": "cloud_on_demand",
            "annual_volume": "1000000000"}  # fmt: skip
    response = api.post("/api/v1/comparisons/", body, format="json")
    assert response.status_code == 400
    (message,) = response.data["workload"]
    assert "bert-large-99" in message and "tabular-tiny" in message


def test_an_llm_options_runway_compares_output_tokens_with_output_tokens(api, make_accelerator, make_price, make_run):
    """A measured LLM run's FLOPs per inference are a whole request's; its throughput is output tokens/s."""
    gpu = make_accelerator("Hopper", memory_bandwidth_gbps=4800, bf16_tflops_dense=989)
    make_price(gpu, "3.60")
    point = {"throughput_per_s": 550.0, "throughput_unit": "output_tokens", "output_tokens_per_s": 550.0,
             "latency_p99_ms": 9000.0, "ttft_p99_ms": 900.0, "tpot_p99_ms": 60.0, "batch_size": 32,
             "details": {"llm": {"prompt_tokens": 2048, "output_tokens": 128}}}  # fmt: skip
    make_run(gpu, [point], model_class="llm-decoder", workload_name="llama3.1-8b", backend="eager",
             precision="bf16", flops_per_inference=35 * 10**12, weight_bytes=16 * 10**9)  # fmt: skip
    body = {"workload": "llama3.1-8b", "target_output_tokens_per_s": "1000", "ttft_p99_ms": "2000",
            "tpot_p99_ms": "100", "price_kinds": ["cloud_on_demand"]}  # fmt: skip
    response = api.post("/api/v1/recommendations/", body, format="json")
    assert response.status_code == 200, response.data
    (option,) = response.data["options"]
    runway = option["optimisation_runway"]
    # A request: 128 output tokens, 128 forward passes, 3.5e13 FLOPs; batch 32.
    # compute 989e12 / 3.5e13 = 28.257 requests/s = 3,616.9 output tokens/s;
    # memory 4,800e9 * 32 / 16e9 = 9,600 output tokens/s (75 requests/s): compute binds.
    # 3,616.9 / 550 = 6.58x runway: tuning first. (Read as requests/s, the ceiling was 28/s against 550/s
    # measured: "0.1x, near the device's limit", the opposite advice.)
    assert runway["bound"] == "compute"
    assert runway["roofline_throughput_per_s"] == pytest.approx(3616.9, rel=1e-4)
    assert runway["runway"] == pytest.approx(6.576, rel=1e-3)
    assert "tuning" in runway["sentence"]
