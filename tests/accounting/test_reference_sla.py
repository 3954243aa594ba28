"""The default SLA of every page: the workload's reference SLA, its benchmark's own bound (accounting.policy)."""

import pytest

from accounting import policy
from accounting.sla import Sla
from workloads import registry

LLM_WITH_SERVER_BOUNDS = [
    w for w in registry.all_workloads() if any(bound.name == "MLPerf Server" for bound in w.standard_llm_slas)
]


@pytest.mark.parametrize("workload", LLM_WITH_SERVER_BOUNDS, ids=lambda w: w.id)
def test_it_defaults_an_llm_workload_to_mlperfs_server_bound(workload):
    (server,) = [bound for bound in workload.standard_llm_slas if bound.name == "MLPerf Server"]
    assert policy.reference_sla(workload) == Sla(ttft_p99_ms=server.ttft_p99_ms, tpot_p99_ms=server.tpot_p99_ms)


def test_llama2_70b_defaults_to_server_and_offers_interactive_by_name():
    workload = registry.get("llama2-70b-99")
    named = dict(policy.standard_sla_choices(workload))
    assert list(named) == ["MLPerf Server", "MLPerf Interactive", "no SLA"]
    assert policy.reference_sla(workload) == named["MLPerf Server"] != named["MLPerf Interactive"]


NOT_LLM = [w for w in registry.all_workloads() if not w.standard_llm_slas]


@pytest.mark.parametrize("workload", NOT_LLM, ids=lambda w: w.id)
def test_a_non_llm_workload_defaults_to_its_first_listed_bound_or_no_sla(workload):
    bounds = [bound for bound in workload.standard_slas_ms if bound is not None]
    assert policy.reference_sla(workload) == (Sla(p99_ms=bounds[0]) if bounds else Sla())
    assert policy.reference_sla(workload) in dict(policy.standard_sla_choices(workload)).values()


@pytest.mark.parametrize("workload", registry.all_workloads(), ids=lambda w: w.id)
def test_the_reference_sla_is_one_snapshots_are_computed_under(workload):
    assert policy.reference_sla(workload) in policy.standard_slas(workload)
