"""The operating point under an SLA: the Python rule, and its SQL form agreeing with it on any input."""

from decimal import Decimal
from types import SimpleNamespace

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import workloads
from accounting import sla as sla_rule
from accounting.sla import Sla

RESNET, LLAMA = workloads.get("resnet50"), workloads.get("llama2-70b-99")


def _point(throughput, p99, *, pk=None, ttft=None, tpot=None, output_tokens=None, unit="inferences", run=None):
    return SimpleNamespace(
        pk=pk, throughput_per_s=throughput, latency_p99_ms=p99, ttft_p99_ms=ttft, tpot_p99_ms=tpot,
        output_tokens_per_s=output_tokens, throughput_unit=unit,
        run=run or SimpleNamespace(origin="measured", scenario="server"),
    )  # fmt: skip


def test_it_chooses_the_highest_throughput_point_within_the_sla():
    points = [_point(100, 2.0), _point(400, 9.0), _point(900, 25.0)]
    choice = sla_rule.choose(points, workload=RESNET, sla=Sla(p99_ms=Decimal("10")))
    assert choice.feasible and choice.point is points[1] and choice.throughput_per_s == 400


def test_it_calls_hardware_infeasible_when_no_point_meets_the_sla():
    choice = sla_rule.choose([_point(100, 12.0), _point(300, 30.0)], workload=RESNET, sla=Sla(Decimal("10")))
    assert not choice.feasible
    assert choice.point is None
    assert "best measured p99 is 12.000 ms" in choice.reason


def test_it_bounds_llm_points_by_ttft_and_tpot_not_whole_request_latency():
    # A Server point: 156 s whole-request p99 (long outputs), TTFT p99 474 ms, TPOT p99 180 ms.
    server = _point(9.0, 156_240.6, ttft=474.0, tpot=179.8, output_tokens=2700.0)
    offline = _point(10.4, 2_614_409.0, output_tokens=3010.0)  # Offline: throughput only, no TTFT/TPOT
    mlperf_server = Sla(ttft_p99_ms=Decimal("2000"), tpot_p99_ms=Decimal("200"))
    choice = sla_rule.choose([server, offline], workload=LLAMA, sla=mlperf_server)
    assert choice.point is server and choice.throughput_per_s == 2700.0  # output tokens/s, not samples/s
    interactive = Sla(ttft_p99_ms=Decimal("450"), tpot_p99_ms=Decimal("40"))
    refused = sla_rule.choose([server, offline], workload=LLAMA, sla=interactive)
    assert not refused.feasible
    assert "best TTFT p99 is 474.000 ms, TPOT p99 is 179.800 ms" in refused.reason
    only_offline = sla_rule.choose([offline], workload=LLAMA, sla=mlperf_server)
    assert "no operating point reports TTFT p99 or TPOT p99" in only_offline.reason
    # With no SLA the Offline point ranks: the highest throughput.
    assert sla_rule.choose([server, offline], workload=LLAMA, sla=Sla()).point is offline


def test_a_published_server_result_without_percentiles_carries_mlperfs_bounds_as_met_by_validity():
    published = SimpleNamespace(origin="external", scenario="server")
    # A VALID MLPerf llama2-70b Server result met TTFT p99 <= 2000 ms and TPOT p99 <= 200 ms.
    server = _point(9.0, 156_240.6, output_tokens=2700.0, run=published)
    offline = _point(
        10.4, 2_614_409.0, output_tokens=3010.0, run=SimpleNamespace(origin="external", scenario="offline")
    )
    looser = Sla(ttft_p99_ms=Decimal("3000"), tpot_p99_ms=Decimal("250"))
    assert sla_rule.choose([server, offline], workload=LLAMA, sla=looser).point is server
    mlperf_server = Sla(ttft_p99_ms=Decimal("2000"), tpot_p99_ms=Decimal("200"))
    assert sla_rule.choose([server, offline], workload=LLAMA, sla=mlperf_server).point is server
    # Tighter than MLPerf's Server bounds: unknown, so not met (the Interactive bounds are 450 / 40 ms).
    interactive = Sla(ttft_p99_ms=Decimal("450"), tpot_p99_ms=Decimal("40"))
    refused = sla_rule.choose([server, offline], workload=LLAMA, sla=interactive)
    assert not refused.feasible and "TTFT p99 is 2000.000 ms, TPOT p99 is 200.000 ms" in refused.reason
    # Our own measured point without token latencies gets no such credit.
    measured = _point(9.0, 1000.0, output_tokens=2700.0)
    assert not sla_rule.choose([measured], workload=LLAMA, sla=looser).feasible


def test_it_does_not_depend_on_the_order_of_the_points():
    points = [_point(500, 5.0, pk=3), _point(500, 4.0, pk=2), _point(500, 4.0, pk=1), _point(100, 1.0, pk=4)]
    for ordering in (points, list(reversed(points))):
        # Equal throughput: the lower p99 wins, then the lower id.
        assert sla_rule.choose(ordering, workload=RESNET, sla=Sla()).point.pk == 1


# --- The SQL form agrees with the Python form ------------------------------------------------------------

throughputs = st.sampled_from([0.5, 1.0, 250.0, 250.0, 1000.0, 1e6])
latencies = st.sampled_from([0.25, 1.0, 9.999, 10.0, 10.001, 200.0, 2000.0])
optional_latencies = st.none() | latencies
llm_points = st.fixed_dictionaries(
    {
        "throughput_per_s": throughputs,
        "latency_p99_ms": latencies,
        "ttft_p99_ms": optional_latencies,
        "tpot_p99_ms": optional_latencies,
        "output_tokens_per_s": st.none() | st.sampled_from([0.0, 1.0, 250.0, 5000.0]),
        "throughput_unit": st.sampled_from(["inferences", "output_tokens"]),
    }
)
bounds = st.none() | st.sampled_from([Decimal("0.25"), Decimal("1"), Decimal("10"), Decimal("10.001"), Decimal("2000")])
slas = st.builds(Sla, p99_ms=bounds, ttft_p99_ms=bounds, tpot_p99_ms=bounds)


@pytest.mark.django_db
@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(
    points=st.lists(llm_points, min_size=1, max_size=6),
    sla=slas,
    workload=st.sampled_from([RESNET, LLAMA]),
    origin=st.sampled_from(["measured", "external"]),
    scenario=st.sampled_from(["offline", "server", "interactive"]),
)
def test_the_sql_form_chooses_the_point_the_python_form_chooses(make_run, points, sla, workload, origin, scenario):
    from hardware_catalog.models import Accelerator
    from results.models import OperatingPoint

    accelerator, _ = Accelerator.objects.get_or_create(vendor="Test", model="Hypothesis GPU", defaults={"tdp_w": 300})
    run = make_run(accelerator, points, workload_name=workload.id, model_class=workload.model_class, origin=origin,
                   scenario=scenario)  # fmt: skip
    stored = OperatingPoint.objects.filter(run=run)

    python = sla_rule.choose(list(stored.select_related("run")), workload=workload, sla=sla)
    sql = list(sla_rule.chosen_points(stored, workload=workload, sla=sla, partition=["run_id"]))

    assert [row["id"] for row in sql] == ([python.point.pk] if python.feasible else [])
