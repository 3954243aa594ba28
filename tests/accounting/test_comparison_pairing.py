"""A comparison compares the same work: both sides in one scenario under one SLA, and a latency verdict
that follows the paired figures (accounting.comparisons, behind both the API and the compare page)."""

import pytest

from accounting import comparisons

pytestmark = pytest.mark.django_db


@pytest.fixture
def gpu(make_accelerator, make_price):
    accelerator = make_accelerator("Pairing GPU")
    make_price(accelerator, "3.60")
    return accelerator


def _run(make_run, gpu, *, scenario, precision, throughput_per_s, p99_ms, batch_size):
    point = {"throughput_per_s": throughput_per_s, "latency_p99_ms": p99_ms, "latency_p50_ms": p99_ms * 0.9,
             "latency_p90_ms": p99_ms * 0.95, "batch_size": batch_size}  # fmt: skip
    accuracy = {} if precision == "fp32" else {"accuracy_passed": True}
    return make_run(gpu, [point], scenario=scenario, precision=precision, **accuracy)


def _body(before, after):
    return {"before": [str(run.pk) for run in before], "after": [str(run.pk) for run in after],
            "price_kind": "cloud_on_demand", "annual_volume": "1000000000"}  # fmt: skip


def test_it_pairs_the_scenario_both_sets_measured_not_the_cheapest_of_each(api, gpu, make_run):
    # fp32 server is the cheapest before run, but the after set only measured single-stream.
    fp32_server = _run(make_run, gpu, scenario="server", precision="fp32", throughput_per_s=5000, p99_ms=2.8,
                       batch_size=32)  # fmt: skip
    fp32_single = _run(make_run, gpu, scenario="single-stream", precision="fp32", throughput_per_s=400,
                       p99_ms=2.8, batch_size=1)  # fmt: skip
    int8_single = _run(make_run, gpu, scenario="single-stream", precision="int8", throughput_per_s=4000,
                       p99_ms=0.28, batch_size=1)  # fmt: skip

    before, after = [fp32_server, fp32_single], [int8_single]
    question = comparisons.comparison_question(before, after, price_kind="cloud_on_demand")
    result = comparisons.compare(question, before=before, after=after, annual_volume=1)
    assert result.scenario == "single-stream"
    assert (result.before.run, result.after.run) == (fp32_single, int8_single)

    response = api.post("/api/v1/comparisons/", _body([fp32_server, fp32_single], [int8_single]), format="json")
    assert response.status_code == 200, response.data
    assert response.data["scenario"] == "single-stream"
    assert (response.data["before"]["run"], response.data["after"]["run"]) == (str(fp32_single.pk),
                                                                               str(int8_single.pk))  # fmt: skip


def test_it_calls_a_tenfold_p99_drop_a_latency_benefit_whatever_the_batch_sizes(api, gpu, make_run):
    # The reported case: p99 fell from 2.8 ms to 0.28 ms, measured at different batch sizes.
    fp32 = _run(make_run, gpu, scenario="server", precision="fp32", throughput_per_s=5000, p99_ms=2.8, batch_size=32)
    int8 = _run(make_run, gpu, scenario="server", precision="int8", throughput_per_s=5200, p99_ms=0.28, batch_size=8)

    response = api.post("/api/v1/comparisons/", _body([fp32], [int8]), format="json")
    assert response.status_code == 200, response.data
    assert response.data["verdict"] == "latency benefit"
    assert "2.8 ms to 0.28 ms (-90%)" in response.data["explanation"]
    assert "flat" not in response.data["explanation"]


def test_it_says_latency_rose_rather_than_flat(gpu, make_run):
    fp32 = _run(make_run, gpu, scenario="server", precision="fp32", throughput_per_s=5000, p99_ms=1.0, batch_size=8)
    int8 = _run(make_run, gpu, scenario="server", precision="int8", throughput_per_s=5000, p99_ms=2.0, batch_size=8)
    question = comparisons.comparison_question([fp32], [int8], price_kind="cloud_on_demand")
    result = comparisons.compare(question, before=[fp32], after=[int8], annual_volume=1)
    # The weights at int8 are a quarter of fp32's (25,557,032 x 1 B against x 4 B): memory fell, latency rose.
    assert result.verdict == "memory/concurrency only"
    assert "latency rose" in result.explanation and "flat" not in result.explanation


def test_it_refuses_sets_with_no_scenario_in_common_and_says_so(api, gpu, make_run):
    fp32 = _run(make_run, gpu, scenario="server", precision="fp32", throughput_per_s=5000, p99_ms=2.8, batch_size=32)
    int8 = _run(make_run, gpu, scenario="single-stream", precision="int8", throughput_per_s=4000, p99_ms=0.28,
                batch_size=1)  # fmt: skip

    response = api.post("/api/v1/comparisons/", _body([fp32], [int8]), format="json")
    assert response.status_code == 400
    message = str(response.data["scenario"])
    assert "no scenario in common" in message and "server" in message and "single-stream" in message


def test_it_compares_in_the_scenario_asked_for_and_lists_the_shared_ones(api, gpu, make_run):
    # Both sets measured server and single-stream; server is where the before set is cheapest.
    runs = {
        (scenario, precision): _run(
            make_run,
            gpu,
            scenario=scenario,
            precision=precision,
            batch_size=8,
            throughput_per_s=throughput_per_s,
            p99_ms=2.0,
        )  # fmt: skip
        for scenario, precision, throughput_per_s in (
            ("server", "fp32", 5000),
            ("single-stream", "fp32", 400),
            ("server", "int8", 5200),
            ("single-stream", "int8", 900),
        )  # fmt: skip
    }
    before = [runs["server", "fp32"], runs["single-stream", "fp32"]]
    after = [runs["server", "int8"], runs["single-stream", "int8"]]

    default = api.post("/api/v1/comparisons/", _body(before, after), format="json")
    asked = api.post("/api/v1/comparisons/", _body(before, after) | {"scenario": "single-stream"}, format="json")

    assert default.status_code == 200 and asked.status_code == 200, (default.data, asked.data)
    assert default.data["scenario"] == "server"
    assert default.data["shared_scenarios"] == asked.data["shared_scenarios"] == ["server", "single-stream"]
    assert asked.data["scenario"] == "single-stream"
    assert asked.data["before"]["run"] == str(runs["single-stream", "fp32"].pk)
    assert asked.data["after"]["run"] == str(runs["single-stream", "int8"].pk)


def test_it_refuses_a_scenario_one_set_did_not_measure_naming_the_shared_ones(api, gpu, make_run):
    fp32 = _run(make_run, gpu, scenario="server", precision="fp32", throughput_per_s=5000, p99_ms=2.8, batch_size=32)
    int8 = _run(make_run, gpu, scenario="server", precision="int8", throughput_per_s=5200, p99_ms=2.0, batch_size=32)

    response = api.post("/api/v1/comparisons/", _body([fp32], [int8]) | {"scenario": "offline"}, format="json")

    assert response.status_code == 400
    message = str(response.data["scenario"])
    assert "'offline'" in message and "they share: server" in message
