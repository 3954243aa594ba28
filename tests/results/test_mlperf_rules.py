"""The rules that read published results, on names and keys the fixture trees do not hold (no database)."""

import pytest

from results.mlperf import metrics
from results.mlperf.accelerators import CatalogPart, Matcher, split_mixed

CATALOG = [
    CatalogPart(1, "NVIDIA H100 SXM5 80GB", 80, "gpu"),
    CatalogPart(2, "NVIDIA H100 PCIe 80GB", 80, "gpu"),
    CatalogPart(3, "NVIDIA H100 NVL 94GB", 94, "gpu"),
    CatalogPart(4, "NVIDIA H200 SXM 141GB", 141, "gpu"),
    CatalogPart(5, "NVIDIA H200 SXM 141GB CTS (1000 W TGP)", 141, "gpu"),
    CatalogPart(6, "NVIDIA H200 NVL 141GB", 141, "gpu"),
    CatalogPart(7, "NVIDIA GH200 Grace Hopper Superchip 96GB", 96, "gpu"),
    CatalogPart(8, "NVIDIA GH200 Grace Hopper Superchip 144GB", 144, "gpu"),
    CatalogPart(9, "AMD MI300X", 192, "gpu"),
    CatalogPart(10, "AMD MI325X", 256, "gpu"),
    CatalogPart(11, "NVIDIA L4", 24, "gpu"),
    CatalogPart(12, "NVIDIA L40S", 48, "gpu"),
    CatalogPart(13, "Google TPU v6e (Trillium)", 32, "accelerator"),
    CatalogPart(14, "UntetherAI speedAI240 Slim", None, "accelerator"),
    CatalogPart(15, "Intel Xeon 6980P (CPU-only system, per socket)", None, "cpu"),
    CatalogPart(16, "Intel Xeon Platinum 8592+ (CPU-only system, per socket)", None, "cpu"),
    CatalogPart(17, "NVIDIA RTX PRO 6000 Blackwell Server Edition", 96, "gpu"),
    CatalogPart(18, "Intel Gaudi 2", 96, "accelerator"),
    CatalogPart(19, "Intel Gaudi 3", 128, "accelerator"),
    CatalogPart(20, "Intel Arc Pro B60 (MAXSUN Dual 48G Turbo card, 2 GPUs)", 48, "accelerator"),
    CatalogPart(21, "AMD Ryzen 9 7950X (CPU-only system, per socket)", None, "cpu"),
]


@pytest.mark.parametrize(
    "published, memory_hint, expected, variant",
    [
        ("NVIDIA H100-SXM-80GB", None, 1, None),
        ("NVIDIA H100 80GB HBM3", None, 1, None),  # no form named: the SXM part
        ("8x NVIDIA H100-SXM-80GB", None, 1, None),
        ("NVIDIA H100-SXM-80GB x 8", None, 1, None),
        ("nvidia h100-pcie-80gb", None, 2, None),
        ("NVIDIA H100-NVL-94GB", None, 3, None),
        ("NVIDIA H100-SXM-80GB-MaxQ", None, 1, "MaxQ"),
        ("Virtualized NVIDIA H200-SXM-141GB", None, 4, "virtualized"),
        ("NVIDIA H200-SXM-141GB-CTS", None, 4, "CTS"),  # a variant maps to its base part
        ("NVIDIA H200 NVL", None, 6, None),
        ("NVIDIA GH200-GraceHopper-Superchip", 96, 7, None),  # memory from the system description
        ("NVIDIA GH200 Grace Hopper Superchip 144GB", None, 8, None),
        ("AMD Instinct MI300X-NPS1-SPX-192GB-750W", None, 9, "750W"),
        ("AMD Instinct MI325X 256GB HBM3e", None, 10, None),
        ("NVIDIA L4-PCIe-24GB", None, 11, None),
        ("NVIDIA L40S", None, 12, None),
        ("TPU v6", None, 13, None),  # the alias table: renamed product
        ("Intel Gaudi2", None, 18, None),
        ("Intel(R) Gaudi(R) 3 AI Accelerator", None, 19, None),
        ("[MAXSUN] MS-Intel Arc Pro B60 Dual 48G Turbo", None, 20, None),
        ("NVIDIA RTX PRO 6000 Blackwell Server Edition", None, 17, None),
    ],
)
def test_it_matches_spellings_of_one_part_and_records_the_variant(published, memory_hint, expected, variant):
    found = Matcher(CATALOG).match(published, memory_hint_gb=memory_hint)
    assert found.part is not None and found.part.key == expected, found
    if variant:
        assert any(variant in text for text in found.variants)


def test_it_refuses_a_different_product_with_the_same_model_number():
    found = Matcher(CATALOG).match("UntetherAI speedAI240 Preview")
    assert found.part is None and found.problem == "not in the catalog"


def test_it_matches_cpu_hosts_only_against_cpu_parts():
    matcher = Matcher(CATALOG)
    assert matcher.match("INTEL(R) XEON(R) 6980P", kind="cpu").part.key == 15
    assert matcher.match("INTEL(R) XEON(R) PLATINUM 8592+", kind="cpu").part.key == 16
    assert matcher.match("AMD Ryzen 9 7950X 16-Core Processor", kind="cpu").part.key == 21
    assert matcher.match("NVIDIA L4", kind="cpu").part is None


def test_it_splits_a_mixed_accelerator_list():
    name = "AMD Instinct MI325X 256GB HBM3E (x16), AMD Instinct MI300X 192GB HBM3 (x8)"
    assert split_mixed(name) == [("AMD Instinct MI325X 256GB HBM3E", 16), ("AMD Instinct MI300X 192GB HBM3", 8)]
    assert split_mixed("NVIDIA H100-SXM-80GB") == [("NVIDIA H100-SXM-80GB", None)]


@pytest.mark.parametrize("folder", ["Offline", "offline", "OFFLINE"])
def test_scenario_folders_of_any_case(folder):
    assert metrics.scenario_from_folder(folder) == "Offline"
    assert metrics.scenario_from_folder("single_stream") == "SingleStream"


def _figure(folder, ran, values, round_name="v5.1"):
    return metrics.published_figure(
        round_name=round_name, folder_scenario=folder, effective_scenario=ran, values=values
    )


def test_a_benchmark_that_logs_tokens_is_scored_in_tokens_whatever_its_name():
    values = {"result_samples_per_second": "10.5", "result_tokens_per_second": "3210.7"}
    assert _figure("Offline", "Offline", values) == metrics.PublishedFigure(
        "result_tokens_per_second", "3210.7", "tokens/s"
    )
    server = {"result_completed_samples_per_sec": "5", "result_inferred_completed_tokens_per_second": "345.6"}
    assert _figure("Server", "Server", server).metric == "result_inferred_completed_tokens_per_second"
    plain = {"result_completed_samples_per_sec": "5", "result_scheduled_samples_per_sec": "5.1"}
    assert _figure("Server", "Server", plain).metric == "result_completed_samples_per_sec"
    assert _figure("Server", "Server", plain, round_name="v4.0").metric == "result_scheduled_samples_per_sec"


def test_interactive_is_a_server_run_and_inferred_scenarios_follow_the_checker():
    values = {"result_completed_tokens_per_second": "99.5", "result_completed_samples_per_sec": "1"}
    assert _figure("Interactive", "Server", values).metric == "result_completed_tokens_per_second"
    single = {"early_stopping_latency_ms": "1000", "early_stopping_latency_ss": "900"}
    inferred = _figure("MultiStream", "SingleStream", single)
    assert (inferred.value, inferred.unit, inferred.inferred_from) == ("8000", "ns", "SingleStream")
    with pytest.raises(metrics.MetricError, match="inferred from a Offline run"):
        _figure("SingleStream", "Offline", {"result_samples_per_second": "1"})
