"""Endpoints through the API, job specs, `bench` and the run page, against a no-op server: the API key is
accepted, used, and never shown."""

import json
import logging
from decimal import Decimal

import pytest
from django.core.management import call_command
from django.urls import reverse

from agents.local_runner import run_pending_local_jobs
from agents.models import Endpoint, Job
from harness.endpoints.engines.noop_server import NoopServer
from results.models import BenchmarkRun

pytestmark = pytest.mark.django_db

SECRET = "sk-api-test-93d1c7"
PORT = 18071


def declaration(**changes) -> dict:
    return {"name": "noop", "protocol": "openai-completions", "url": f"http://127.0.0.1:{PORT}", "model": "noop",
            "api_key": SECRET, "prompt_tokens": 4, "output_tokens": 3, "accelerator": "NVIDIA H100 SXM5 80GB",
            "accelerator_count": 1} | changes  # fmt: skip


@pytest.fixture(autouse=True)
def h100(db):
    """The catalog's H100 (the shipped catalog names it so; `catalog` loads the same row)."""
    from hardware_catalog.models import Accelerator

    return Accelerator.objects.get_or_create(vendor="NVIDIA", model="H100 SXM5 80GB", defaults={"memory_gib": 80})[0]


def test_the_api_stores_an_endpoints_key_but_never_returns_it(staff_api):
    created = staff_api.post("/api/v1/endpoints/", declaration(), format="json")
    assert created.status_code == 201, created.data
    assert Endpoint.objects.get(name="noop").api_key == SECRET
    detail = staff_api.get(f"/api/v1/endpoints/{created.data['id']}/")
    for response in (created, staff_api.get("/api/v1/endpoints/"), detail):
        assert SECRET.encode() not in response.content
    assert created.data["authenticated"] is True and created.data["workload_id"] == "endpoint:noop"


def test_credentials_in_an_endpoints_url_are_not_shown(staff_api):
    created = staff_api.post(
        "/api/v1/endpoints/", declaration(url=f"http://bob:{SECRET}@127.0.0.1:{PORT}", api_key=""), format="json"
    )
    shown = staff_api.get(f"/api/v1/endpoints/{created.data['id']}/")
    assert SECRET.encode() not in shown.content and shown.data["url"] == f"http://127.0.0.1:{PORT}"


def test_an_endpoint_with_an_api_key_and_url_credentials_is_refused_naming_the_conflict(staff_api):
    # Both would be the request's one Authorization header: aiohttp refuses every request of such an endpoint.
    url = f"http://bob:pw@127.0.0.1:{PORT}"
    response = staff_api.post("/api/v1/endpoints/", declaration(url=url), format="json")
    assert response.status_code == 400 and "cannot be combined with credentials in url" in str(response.data["api_key"])
    assert not Endpoint.objects.exists()

    created = staff_api.post("/api/v1/endpoints/", declaration(), format="json")  # the key alone: fine
    patched = staff_api.patch(f"/api/v1/endpoints/{created.data['id']}/", {"url": url}, format="json")
    assert patched.status_code == 400 and "api_key" in patched.data  # the stored key conflicts with the new URL
    assert Endpoint.objects.get().url == f"http://127.0.0.1:{PORT}"


def test_a_bad_endpoint_is_rejected_naming_the_field(staff_api):
    response = staff_api.post("/api/v1/endpoints/", declaration(protocol="grpc", url="ftp://x"), format="json")
    assert response.status_code == 400 and {"protocol", "url"} <= set(response.data)


def test_an_endpoint_declares_catalog_hardware_or_is_refused_naming_the_field(staff_api):
    unknown = staff_api.post("/api/v1/endpoints/", declaration(accelerator="NVIDIA H1000"), format="json")
    assert (
        unknown.status_code == 400 and "no accelerator 'NVIDIA H1000' in the catalog" in unknown.data["accelerator"][0]
    )
    missing = staff_api.post("/api/v1/endpoints/", declaration() | {"accelerator": None}, format="json")
    assert missing.status_code == 400 and set(missing.data) == {"accelerator"}
    zero = staff_api.post("/api/v1/endpoints/", declaration(accelerator_count=0), format="json")
    assert zero.status_code == 400 and set(zero.data) == {"accelerator_count"}
    # The catalog's spelling, case and spacing aside, is accepted and shown back as the catalog spells it.
    created = staff_api.post("/api/v1/endpoints/", declaration(accelerator="nvidia  h100 sxm5 80gb"), format="json")
    assert created.status_code == 201, created.data
    assert (created.data["accelerator"], created.data["accelerator_count"]) == ("NVIDIA H100 SXM5 80GB", 1)


def test_an_endpoint_declared_on_h100_x1_is_priced_as_h100(
    staff_api, make_price, h100, django_capture_on_commit_callbacks
):
    from accounting.rankings.ranking import ranking

    price = make_price(h100, "2.29", provider="Lambda", instance_type="gpu_1x_h100")
    staff_api.post("/api/v1/endpoints/", declaration(), format="json")
    spec = {"endpoint": "noop", "concurrency_max": 1, "min_duration_ms": 200, "min_query_count": 8, "time_limit_s": 120}
    with NoopServer(PORT, api_key=SECRET):
        with django_capture_on_commit_callbacks(execute=True):
            response = staff_api.post("/api/v1/jobs/", spec, format="json")
        assert run_pending_local_jobs() == 1
    run = BenchmarkRun.objects.get(job_id=response.data["id"])
    # Measured from this CPU agent, priced on the server's declared hardware: 1 x H100 at 2.29 USD/h.
    assert (run.accelerator, run.accelerator_count) == (h100, 1)
    assert run.device_name.startswith("NVIDIA H100 SXM5 80GB (declared by the endpoint; measured from ")
    BenchmarkRun.objects.filter(pk=run.pk).update(loadgen_valid=True)  # a short run's validity is this machine's
    ranked = ranking(workload="endpoint:noop", price_kind="cloud_on_demand", published="none")
    (row,) = ranked.rows
    assert (row.accelerator, row.price, row.hourly.total_usd_per_hour) == (h100, price, Decimal("2.290000"))


def test_an_endpoint_job_spec_is_checked_field_by_field(staff_api):
    staff_api.post("/api/v1/endpoints/", declaration(), format="json")
    spec = {"endpoint": "noop", "scenarios": ["server", "offline"], "backends": ["eager"], "concurrency_max": 0}
    response = staff_api.post("/api/v1/jobs/", spec, format="json")
    assert response.status_code == 400
    assert {"scenarios", "backends", "concurrency_max", "server_rates_qps"} <= set(response.data)


def test_a_job_measures_the_endpoint_in_process_and_shows_no_secret(
    catalog, staff_api, client, staff, django_capture_on_commit_callbacks, caplog
):
    caplog.set_level(logging.DEBUG)
    staff_api.post("/api/v1/endpoints/", declaration(), format="json")
    spec = {"endpoint": "noop", "concurrency_max": 2, "min_duration_ms": 300, "min_query_count": 8, "time_limit_s": 120}
    with NoopServer(PORT, api_key=SECRET):
        with django_capture_on_commit_callbacks(execute=True):
            response = staff_api.post("/api/v1/jobs/", spec, format="json")
        job = Job.objects.get(pk=response.data["id"])
        assert job.state == "queued"  # the request only queues it; the built-in local agent runs it
        assert run_pending_local_jobs() == 1
    job.refresh_from_db()
    assert job.state == "succeeded", job.error
    run = BenchmarkRun.objects.get(job=job)
    point = run.points.first()
    assert run.workload_name == "endpoint:noop" and run.scenario == "concurrency-sweep"
    assert point.request_errors == 0 and point.details["endpoint"]["output_tokens_total"] == 3 * point.sample_count
    client.force_login(staff)
    page = client.get(reverse("dashboard:run", args=[run.pk]))
    assert page.status_code == 200 and b"Transport and serialisation mean (ms)" in page.content
    shown = [
        page.content,
        staff_api.get(f"/api/v1/jobs/{job.pk}/").content,
        staff_api.get(f"/api/v1/runs/{run.pk}/").content,
        json.dumps(run.payload).encode(),
        caplog.text.encode(),
    ]
    assert not [text for text in shown if SECRET.encode() in text]


def test_bench_measures_an_endpoint_with_its_key_read_from_the_environment(catalog, monkeypatch, tmp_path, capsys):
    monkeypatch.setenv("NOOP_KEY", SECRET)
    with NoopServer(PORT + 1, api_key=SECRET):
        call_command(
            "bench", "--endpoint-url", f"http://127.0.0.1:{PORT + 1}", "--endpoint-model", "noop",
            "--endpoint-api-key-env", "NOOP_KEY", "--scenario", "server", "--rate", "200", "--min-duration-ms", "300",
            "--output-tokens", "2", "--out", str(tmp_path),
        )  # fmt: skip
    run = BenchmarkRun.objects.get(workload_name="endpoint:noop")
    assert run.scenario == "server" and run.points.get().offered_rate_qps == 200.0
    # No --min-query-count: the Server point asks for the 459 queries LoadGen's early stopping needs to prove its
    # p99 (harness.stats.early_stopping_min_queries), so a small server's point is VALID, not "too few queries".
    assert run.payload["settings"]["min_query_count"] == 459 and run.points.get().sample_count >= 459
    assert run.loadgen_valid, run.payload["points"][0].get("loadgen")
    assert SECRET not in capsys.readouterr().out


def test_bench_names_a_bad_endpoint_option(catalog):
    from django.core.management.base import CommandError

    with pytest.raises(CommandError, match="--endpoint-model: required"):
        call_command("bench", "--endpoint-url", "http://127.0.0.1:1")


def test_an_endpoint_job_with_two_rounds_stores_both_and_labels_the_sweep_by_concurrency(
    catalog, staff_api, django_capture_on_commit_callbacks
):
    staff_api.post("/api/v1/endpoints/", declaration(), format="json")
    spec = {"endpoint": "noop", "concurrency_max": 2, "rounds": 2, "min_duration_ms": 300, "min_query_count": 8,
            "time_limit_s": 120}  # fmt: skip
    with NoopServer(PORT + 2, api_key=SECRET):
        Endpoint.objects.filter(name="noop").update(url=f"http://127.0.0.1:{PORT + 2}")
        with django_capture_on_commit_callbacks(execute=True):
            response = staff_api.post("/api/v1/jobs/", spec, format="json")
        assert response.status_code == 201, response.data
        assert run_pending_local_jobs() == 1
    job = Job.objects.get(pk=response.data["id"])
    assert job.state == "succeeded", job.error
    run = BenchmarkRun.objects.get(job=job)
    assert run.settings["rounds"] == 2
    points = list(run.points.order_by("index"))
    assert [point.label for point in points][:2] == ["concurrency=1", "concurrency=2"]
    for point in points:
        rounds = point.details["rounds"]
        assert rounds["count"] == 2 and len(rounds["values"]) == 2
        # Two rounds: the median is their mean, the interval their min..max at 1 - 2 * (1/2)**2 = 50%.
        assert point.throughput_low_per_s <= point.throughput_per_s <= point.throughput_high_per_s
        assert point.throughput_interval_confidence == 0.5
        # The headline latency is per request (end to end), LoadGen's whole-query latency a detail.
        endpoint = point.details["endpoint"]
        assert point.latency_p50_ms == endpoint["e2e_ms"]["p50"]
        assert endpoint["loadgen_query_latency_ms"]["p50"] >= point.latency_p50_ms


def test_a_client_and_server_that_disagree_beyond_the_tolerance_are_flagged_with_both_figures():
    from harness.endpoints.figures import client_server_disagreements

    # The server scenario: client TPOT 0.007 ms against the server's 0.88 ms (126x apart, 0.873 ms),
    # client TTFT 30 ms against 6 ms (5x); a TTFT of 7.5 ms against 6 ms (1.25x) is within 2x.
    found = client_server_disagreements({"ttft": 30.0, "tpot": 0.007}, {"ttft_ms_mean": 6.0, "tpot_ms_mean": 0.88})
    assert [(f["figure"], f["client_ms"], f["server_ms"]) for f in found] == [
        ("ttft_ms_mean", 30.0, 6.0), ("tpot_ms_mean", 0.007, 0.88),
    ]  # fmt: skip
    assert client_server_disagreements({"ttft": 7.5, "tpot": None}, {"ttft_ms_mean": 6.0, "tpot_ms_mean": 0.88}) == []
