"""The registry's MLPerf bounds are the installed LoadGen's own mlperf.conf (one source of truth)."""

import re
from decimal import Decimal

import pytest

import workloads
from workloads import mlperf_conf

CONF = {workloads.normalise_benchmark_name(model): model for model in mlperf_conf.models()}
# A benchmark's accuracy target is a suffix of its published name ('llama2-70b-99.9'); the config names the model.
_ACCURACY_SUFFIX = re.compile(r"-99(\.9)?$|-95$")


def conf_name(benchmark: str) -> str:
    return _ACCURACY_SUFFIX.sub("", workloads.normalise_benchmark_name(benchmark))


PUBLISHED = [(w, name) for w in workloads.all_workloads() for name in w.published_benchmarks]


def test_it_reads_the_config_embedded_in_the_installed_loadgen():
    # mlperf.conf of LoadGen 6.0: "gpt-oss-120b.Server.ttft_latency = 3000", "tpot_latency = 80".
    assert mlperf_conf.token_bounds_ms("gpt-oss-120b") == (Decimal(3000), Decimal(80))
    assert mlperf_conf.server_bound_ms("resnet50") == Decimal(15)
    assert mlperf_conf.server_bound_ms("llama2-70b") is None  # "target_latency = 0": tokens are bounded instead


def test_it_parses_dotted_model_names_and_resolves_wildcards_as_loadgen_does():
    text = "*.Server.target_latency = 10\nwan-2.2-t2v-a14b.Offline.min_query_count = 248\n# a.b.c = 1\n"
    assert mlperf_conf.parse(text) == {
        ("*", "Server", "target_latency"): "10",
        ("wan-2.2-t2v-a14b", "Offline", "min_query_count"): "248",
    }


@pytest.mark.parametrize(("workload", "benchmark"), PUBLISHED, ids=[f"{w.id}:{n}" for w, n in PUBLISHED])
def test_every_declared_bound_is_the_one_loadgen_enforces(workload, benchmark):
    model = CONF.get(conf_name(benchmark))
    if model is None:
        return  # an edge or renamed variant the config does not bound ('llama3.1-8b-edge', 'resnet')
    label = "MLPerf Interactive" if "interactive" in benchmark else "MLPerf Server"
    tokens = mlperf_conf.token_bounds_ms(model)
    if tokens is not None:
        declared = {sla.name: sla for sla in workload.standard_llm_slas}[label]
        assert (declared.ttft_p99_ms, declared.tpot_p99_ms) == tokens
    else:
        assert workload.standard_slas_ms[0] == mlperf_conf.server_bound_ms(model)


def test_every_benchmark_the_config_bounds_is_declared():
    declared = {conf_name(n) for _, n in PUBLISHED}
    bounds = (mlperf_conf.server_bound_ms, mlperf_conf.token_bounds_ms)
    bounded = {name for name, model in CONF.items() if any(bound(model) for bound in bounds)}
    assert len(bounded) > 15
    retired = {"dlrm", "rnnt"}  # rounds before v4.1 (bounded in the config, published no more)
    assert bounded - declared == retired


@pytest.mark.parametrize("name", ["resnet", "llama3_1-8b", "llama3.1-8b-edge", "gpt-oss-120b-interactive", "yolo-95"])
def test_the_2026_spellings_resolve(name):
    assert workloads.published_benchmark(name).workload


def test_every_declared_llm_states_its_parameters_and_weights():
    for workload in workloads.for_model_class(workloads.LLM_DECODER, include_smoke_tests=False):
        assert workload.parameter_count and workload.weights_precision, workload.id
        if workload.mixture_of_experts and workload.id != "mixtral-8x7b":
            assert workload.active_parameter_count < workload.parameter_count
