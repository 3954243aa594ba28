"""Moving the result models from ``agents`` to ``results`` keeps every table, row and link (state-only migrations)."""

from datetime import UTC, datetime

import pytest
from django.db import connection
from django.db.migrations.executor import MigrationExecutor

# The last state in which the result models lived in agents.models.
BEFORE_MOVE = [
    ("agents", "0006_endpoints"),
    ("accounting", "0002_snapshot_llm_sla"),
    ("contenttypes", "0002_remove_content_type_name"),
    ("results", None),
]
AT = datetime(2026, 11, 2, 9, 30, tzinfo=UTC)


def _migrate(targets):
    executor = MigrationExecutor(connection)
    executor.migrate(targets)
    return executor.loader.project_state([target for target in targets if target[1] is not None]).apps


def _latest():
    return MigrationExecutor(connection).loader.graph.leaf_nodes()


def _rows_in_old_schema(apps):
    """A measured run with a point, its job and a quarantined payload, and a published run: the old models."""
    ContentType = apps.get_model("contenttypes", "ContentType")
    accelerator = apps.get_model("hardware_catalog", "Accelerator").objects.create(vendor="NVIDIA", model="Moved GPU")
    job = apps.get_model("agents", "Job").objects.create()
    run_model = apps.get_model("agents", "BenchmarkRun")
    common = dict(accelerator=accelerator, device_name="Moved GPU", workload_name="resnet50-tiny",
                  model_class="resnet50", size="tiny", backend="pytorch", precision="fp32", started_at=AT,
                  finished_at=AT, loadgen_valid=True, payload={"run_id": "kept"}, payload_sha256="0" * 64)  # fmt: skip
    run = run_model.objects.create(scenario="offline", job=job, **common)
    apps.get_model("agents", "OperatingPoint").objects.create(
        run=run, index=0, batch_size=8, throughput_per_s=1234.5, latency_p50_ms=1.5, latency_p99_ms=3.25,
        loadgen_valid=True,
    )  # fmt: skip
    published = run_model.objects.create(scenario="server", origin="external", external_source="MLPerf v5.1", **common)
    apps.get_model("agents", "PublishedResult").objects.create(
        run=published, round="v5.1", division="closed", submitter="Acme", system="acme-1", benchmark="resnet",
        scenario="Server", metric="result_completed_samples_per_sec", value="1000.0", unit="samples/s",
        accelerator_name="Moved GPU", accelerators_per_system=8, source_path="closed/Acme/results/x.txt",
    )  # fmt: skip
    apps.get_model("agents", "QuarantinedPayload").objects.create(source="api", reason="schema: bad", raw="{}", job=job)
    content_type = ContentType.objects.get_or_create(app_label="agents", model="benchmarkrun")[0]
    return run.pk, published.pk, job.pk, content_type.pk


@pytest.mark.django_db(transaction=True)
def test_it_keeps_the_rows_written_before_the_move():
    # Given a database in the state before the move, with rows in the result tables
    old_apps = _migrate(BEFORE_MOVE)
    run_id, published_id, job_id, content_type_id = _rows_in_old_schema(old_apps)

    # When it is migrated forward
    _migrate(_latest())

    # Then the results app reads the same rows, links included
    from django.contrib.contenttypes.models import ContentType

    from results.models import BenchmarkRun, OperatingPoint, PublishedResult, QuarantinedPayload

    run = BenchmarkRun.objects.get(pk=run_id)
    assert (run.workload_name, run.job_id, run.accelerator.model) == ("resnet50-tiny", job_id, "Moved GPU")
    point = OperatingPoint.objects.get(run=run)
    assert (point.batch_size, point.throughput_per_s, point.latency_p99_ms) == (8, 1234.5, 3.25)
    assert PublishedResult.objects.get(run_id=published_id).run.external_source == "MLPerf v5.1"
    assert QuarantinedPayload.objects.get().job_id == job_id
    # and the content type (with the permissions granted on it) now names the results app
    assert ContentType.objects.get(pk=content_type_id).app_label == "results"
