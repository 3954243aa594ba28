"""The compare page answers what the comparisons API answers: like with like, and a verdict from the figures."""

import pytest

from tests.accounting.conftest import make_run  # noqa: F401 - the fixture that stores runs

pytestmark = pytest.mark.django_db

QUERY = (
    "/compare/?model_class=tabular&workload=tabular-tiny&before_backend=eager&before_precision=fp32"
    "&after_backend=eager&after_precision=int8&sla_p99_ms=10&price_kind=cloud_on_demand&annual_volume=1000000000"
)


def _tabular(store_run, cpu, *, scenario, precision, throughput_per_s, p99_ms):
    point = {"throughput_per_s": throughput_per_s, "latency_p99_ms": p99_ms, "latency_p50_ms": p99_ms * 0.9,
             "latency_p90_ms": p99_ms * 0.95}  # fmt: skip
    accuracy = {} if precision == "fp32" else {"accuracy_passed": True}
    return store_run(cpu, [point], model_class="tabular", workload_name="tabular-tiny", scenario=scenario,
                    precision=precision, **accuracy)  # fmt: skip


def test_it_pairs_one_scenario_and_agrees_with_the_api(logged_in, api, make_accelerator, make_price, make_run):  # noqa: F811
    cpu = make_accelerator("Compare CPU", vendor="AMD", kind="cpu", tdp_w=100)
    make_price(cpu, "0.10")
    # fp32 server is the cheaper before run; int8 was measured only in single-stream, 10x faster in p99.
    server = _tabular(make_run, cpu, scenario="server", precision="fp32", throughput_per_s=9000, p99_ms=2.8)
    single = _tabular(make_run, cpu, scenario="single-stream", precision="fp32", throughput_per_s=400, p99_ms=2.8)
    int8 = _tabular(make_run, cpu, scenario="single-stream", precision="int8", throughput_per_s=4000, p99_ms=0.28)

    page = logged_in.get(QUERY).content.decode()
    body = {"before": [str(server.pk), str(single.pk)], "after": [str(int8.pk)], "price_kind": "cloud_on_demand",
            "annual_volume": "1000000000", "sla_p99_ms": "10"}  # fmt: skip
    answer = api.post("/api/v1/comparisons/", body, format="json").data

    # 4000 / 400 = 10x the throughput at one price: cost -90 %, a cost benefit (named in money on both).
    assert answer["scenario"] == "single-stream" and answer["verdict"] == "cost benefit"
    assert "both sides in the <strong>single-stream</strong> scenario" in page
    assert f"Verdict: <strong>{answer['verdict']}</strong>" in page
    assert "2.8 ms to 0.28 ms" in page and "flat" not in page
    exported = logged_in.get(QUERY + "&export=compare").content.decode()
    for side in ("before", "after"):
        assert answer[side]["cost_per_million_usd"] in exported  # the CSV carries the API's full figure


def test_it_says_when_the_sets_share_no_scenario(logged_in, make_accelerator, make_price, make_run):  # noqa: F811
    cpu = make_accelerator("Compare CPU", vendor="AMD", kind="cpu", tdp_w=100)
    make_price(cpu, "0.10")
    _tabular(make_run, cpu, scenario="server", precision="fp32", throughput_per_s=9000, p99_ms=2.8)
    _tabular(make_run, cpu, scenario="single-stream", precision="int8", throughput_per_s=4000, p99_ms=0.28)

    page = logged_in.get(QUERY).content.decode()
    assert "cannot compare" in page and "no scenario in common" in page
    assert 'id="verdict"' not in page


def test_its_scenario_control_names_the_applied_scenario_and_links_the_others(
    logged_in,
    make_accelerator,
    make_price,
    make_run,  # noqa: F811
):
    cpu = make_accelerator("Compare CPU", vendor="AMD", kind="cpu", tdp_w=100)
    make_price(cpu, "0.10")
    for scenario, fp32_per_s, int8_per_s in (("server", 9000, 9500), ("single-stream", 400, 900)):
        _tabular(make_run, cpu, scenario=scenario, precision="fp32", throughput_per_s=fp32_per_s, p99_ms=2.0)
        _tabular(make_run, cpu, scenario=scenario, precision="int8", throughput_per_s=int8_per_s, p99_ms=2.0)

    page = logged_in.get(QUERY).content.decode()
    assert "both sides in the <strong>server</strong> scenario" in page
    assert '<option value="" selected>server (where the before set is cheapest)</option>' in page
    assert "<strong>server</strong> (shown)" in page and "scenario=single-stream" in page

    asked = logged_in.get(QUERY + "&scenario=single-stream").content.decode()
    assert "both sides in the <strong>single-stream</strong> scenario" in asked
    assert '<option value="single-stream" selected>single-stream</option>' in asked
