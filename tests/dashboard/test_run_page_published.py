"""The run page of a published result shows its published system figure and the per-accelerator figure derived
from it (system figure / accelerators), never a figure in another unit: a GB200 llama2-70b Server run once read
"41.9 output tokens/s" (its samples/s per accelerator) where MLPerf published 46,016.5 tokens/s for 4 GPUs."""

import math

import pytest

from accounting import policy
from dashboard.selectors import run_page
from results.models import BenchmarkRun, PublishedResult
from workloads import Unit

pytestmark = pytest.mark.django_db

# The published unit that counts the workload's unit of work.
PUBLISHED_UNIT_OF = {Unit.OUTPUT_TOKENS: "tokens/s", Unit.SAMPLES: "samples/s", Unit.INFERENCES: "samples/s"}


def test_every_published_run_shows_its_published_figure_and_its_per_accelerator_derivation(shipped_data):
    results = list(PublishedResult.objects.select_related("run"))
    assert len(results) > 500
    compared = 0
    for record in results:
        page = run_page(record.run_id)
        shown = page.published
        assert (shown.value, shown.unit, shown.accelerators) == (
            record.value,
            record.unit,
            record.accelerators_per_system,
        )
        if not record.unit.endswith("/s"):
            assert shown.per_accelerator is None  # a latency is not divided
            continue
        assert shown.per_accelerator == pytest.approx(float(record.value) / record.accelerators_per_system)
        workload = policy.workload_of(record.run)
        if PUBLISHED_UNIT_OF.get(workload.unit) != record.unit:
            continue  # e.g. whisper publishes tokens/s and is ranked by samples/s: another figure, from the log
        (point,) = page.points
        assert page.unit == policy.unit_for(workload).replace("_", " ")
        assert math.isclose(page.throughput_per_s[point.index] * record.accelerators_per_system, float(record.value),
                            rel_tol=1e-9), (record.source_path, page.throughput_per_s)  # fmt: skip
        compared += 1
    assert compared > 400


def test_the_gb200_llama2_70b_server_page_reads_output_tokens_per_accelerator(shipped_data, client, user):
    record = PublishedResult.objects.filter(
        system="ND_GB200_v6", benchmark="llama2-70b-99", scenario="Server"
    ).select_related("run").get()  # fmt: skip
    client.force_login(user)
    workload = policy.workload_of(record.run)
    reference = policy.reference_sla(workload)
    html = client.get(f"/runs/{record.run_id}/").content.decode()
    per_accelerator = float(record.value) / record.accelerators_per_system
    assert f'<span id="published-value">{record.value}</span> tokens/s' in html
    assert f'<span id="published-per-accelerator">{per_accelerator:,.1f}</span>' in html
    # Chosen under the reference SLA (MLPerf Server: the run met it): its output tokens/s per accelerator.
    assert reference.is_llm
    assert f'<span id="chosen-throughput">{per_accelerator:,.1f}</span> output tokens/s per accelerator' in html
    assert BenchmarkRun.objects.get(pk=record.run_id).points.get().throughput_unit == "samples"


def test_a_published_run_page_names_its_source_and_no_harness_fields(shipped_data, client, user):
    record = PublishedResult.objects.filter(
        system="ND_GB200_v6", benchmark="llama2-70b-99", scenario="Server"
    ).select_related("run").get()  # fmt: skip
    client.force_login(user)
    response = client.get(f"/runs/{record.run_id}/")
    html = response.content.decode()
    assert f"MLPerf Inference <strong>{record.round}</strong>, {record.division} division" in html
    assert f"submitted by <strong>{record.submitter}</strong>" in html
    assert f"<code>{record.source_path}</code>" in html
    assert "Accuracy guard" not in html and "fp32 reference" not in html  # our harness's guard never ran on it
    headers = [column.header for column in response.context["tables"]["points"].columns]
    assert "Batch size" not in headers and "Queries (count)" not in headers  # not published: no filler "1"
    assert "p99 (ms)" in headers
