"""The models move from ``agents`` to ``results``; their tables and rows stay where they are.

State only (SeparateDatabaseAndState): the tables keep their names through ``db_table``, so no row is copied
and no constraint is rebuilt. agents/0007 removes the models from the agents state once this and
accounting/0003 (its snapshots' foreign keys) point here. The content types (and with them the admin
permissions granted on these models) are relabelled, not recreated.
"""

import django.db.models.deletion
import django.utils.timezone
import uuid
from django.db import migrations, models

MOVED_MODELS = ("benchmarkrun", "operatingpoint", "publishedresult", "quarantinedpayload")


def relabel_content_types(apps, schema_editor, old_label="agents", new_label="results"):
    ContentType = apps.get_model("contenttypes", "ContentType")
    ContentType.objects.using(schema_editor.connection.alias).filter(
        app_label=old_label, model__in=MOVED_MODELS
    ).update(app_label=new_label)


def restore_content_types(apps, schema_editor):
    relabel_content_types(apps, schema_editor, old_label="results", new_label="agents")


class Migration(migrations.Migration):
    initial = True

    dependencies = [
        ("agents", "0006_endpoints"),
        ("contenttypes", "0002_remove_content_type_name"),
        ("hardware_catalog", "0003_price_corrections"),
    ]

    operations = [
        migrations.SeparateDatabaseAndState(
            state_operations=[
                migrations.CreateModel(
                    name="BenchmarkRun",
                    fields=[
                        (
                            "id",
                            models.UUIDField(
                                default=uuid.uuid4,
                                editable=False,
                                help_text="The payload's run_id.",
                                primary_key=True,
                                serialize=False,
                            ),
                        ),
                        (
                            "origin",
                            models.CharField(
                                choices=[
                                    ("measured", "Measured by an InferLedger agent"),
                                    ("external", "Imported from published results"),
                                ],
                                default="measured",
                                max_length=16,
                            ),
                        ),
                        (
                            "external_source",
                            models.CharField(
                                blank=True, help_text="e.g. 'MLPerf Inference v4.1, Dell'", max_length=255
                            ),
                        ),
                        ("accelerator_count", models.PositiveSmallIntegerField(default=1)),
                        ("device_name", models.CharField(max_length=255)),
                        ("workload_name", models.CharField(max_length=64)),
                        ("model_class", models.CharField(max_length=32)),
                        ("size", models.CharField(max_length=32)),
                        ("scenario", models.CharField(max_length=32)),
                        ("backend", models.CharField(max_length=32)),
                        ("precision", models.CharField(max_length=16)),
                        ("parameters", models.BigIntegerField(null=True)),
                        ("flops_per_inference", models.BigIntegerField(null=True)),
                        ("weight_bytes", models.BigIntegerField(null=True)),
                        ("started_at", models.DateTimeField()),
                        ("finished_at", models.DateTimeField()),
                        ("loadgen_valid", models.BooleanField(help_text="LoadGen judged every point VALID.")),
                        (
                            "accuracy_passed",
                            models.BooleanField(help_text="Null for fp32 (it is the reference).", null=True),
                        ),
                        ("accuracy", models.JSONField(blank=True, null=True)),
                        ("environment", models.JSONField(default=dict)),
                        ("settings", models.JSONField(default=dict)),
                        ("telemetry", models.JSONField(default=dict)),
                        ("payload", models.JSONField(help_text="The result payload exactly as ingested.")),
                        ("payload_sha256", models.CharField(max_length=64)),
                        ("ingested_at", models.DateTimeField(default=django.utils.timezone.now)),
                        (
                            "accelerator",
                            models.ForeignKey(
                                on_delete=django.db.models.deletion.PROTECT,
                                related_name="runs",
                                to="hardware_catalog.accelerator",
                            ),
                        ),
                        (
                            "agent",
                            models.ForeignKey(
                                blank=True,
                                null=True,
                                on_delete=django.db.models.deletion.SET_NULL,
                                related_name="runs",
                                to="agents.agent",
                            ),
                        ),
                        (
                            "job",
                            models.ForeignKey(
                                blank=True,
                                null=True,
                                on_delete=django.db.models.deletion.SET_NULL,
                                related_name="runs",
                                to="agents.job",
                            ),
                        ),
                    ],
                    options={
                        "db_table": "agents_benchmarkrun",
                        "ordering": ["-started_at"],
                    },
                ),
                migrations.CreateModel(
                    name="OperatingPoint",
                    fields=[
                        (
                            "id",
                            models.BigAutoField(
                                auto_created=True, primary_key=True, serialize=False, verbose_name="ID"
                            ),
                        ),
                        ("index", models.PositiveSmallIntegerField()),
                        ("batch_size", models.PositiveIntegerField()),
                        ("concurrency", models.PositiveIntegerField(null=True)),
                        ("offered_rate_qps", models.FloatField(null=True)),
                        ("throughput_per_s", models.FloatField()),
                        ("throughput_unit", models.CharField(default="inferences", max_length=16)),
                        ("latency_min_ms", models.FloatField(null=True)),
                        ("latency_mean_ms", models.FloatField(null=True)),
                        ("latency_p50_ms", models.FloatField()),
                        ("latency_p90_ms", models.FloatField(null=True)),
                        ("latency_p95_ms", models.FloatField(null=True)),
                        ("latency_p99_ms", models.FloatField()),
                        ("latency_p99_9_ms", models.FloatField(null=True)),
                        ("latency_max_ms", models.FloatField(null=True)),
                        ("query_count", models.PositiveIntegerField(null=True)),
                        ("sample_count", models.PositiveIntegerField(null=True)),
                        ("queue_wait_mean_ms", models.FloatField(null=True)),
                        ("queue_wait_p99_ms", models.FloatField(null=True)),
                        ("batch_formation_mean_ms", models.FloatField(null=True)),
                        ("compute_mean_ms", models.FloatField(null=True)),
                        ("ttft_p50_ms", models.FloatField(null=True)),
                        ("ttft_p99_ms", models.FloatField(null=True)),
                        ("tpot_p50_ms", models.FloatField(null=True)),
                        ("tpot_p99_ms", models.FloatField(null=True)),
                        ("output_tokens_per_s", models.FloatField(null=True)),
                        ("power_w_mean", models.FloatField(null=True)),
                        ("energy_j_per_inference", models.FloatField(null=True)),
                        ("request_errors", models.PositiveIntegerField(null=True)),
                        ("goodput_requests_per_s", models.FloatField(null=True)),
                        ("goodput_output_tokens_per_s", models.FloatField(null=True)),
                        ("client_e2e_mean_ms", models.FloatField(null=True)),
                        ("server_queue_mean_ms", models.FloatField(null=True)),
                        ("server_compute_mean_ms", models.FloatField(null=True)),
                        ("server_e2e_mean_ms", models.FloatField(null=True)),
                        ("transport_mean_ms", models.FloatField(null=True)),
                        (
                            "transport_share",
                            models.FloatField(help_text="transport_mean_ms / client_e2e_mean_ms", null=True),
                        ),
                        ("loadgen_valid", models.BooleanField()),
                        ("loadgen_reasons", models.JSONField(default=list)),
                        (
                            "details",
                            models.JSONField(
                                default=dict, help_text="Timing splits, histograms and early-stopping estimates."
                            ),
                        ),
                        ("loadgen_summary_log", models.TextField(blank=True)),
                        ("loadgen_detail_log", models.TextField(blank=True)),
                        (
                            "run",
                            models.ForeignKey(
                                on_delete=django.db.models.deletion.CASCADE,
                                related_name="points",
                                to="results.benchmarkrun",
                            ),
                        ),
                    ],
                    options={
                        "db_table": "agents_operatingpoint",
                        "ordering": ["run", "index"],
                    },
                ),
                migrations.CreateModel(
                    name="QuarantinedPayload",
                    fields=[
                        (
                            "id",
                            models.BigAutoField(
                                auto_created=True, primary_key=True, serialize=False, verbose_name="ID"
                            ),
                        ),
                        ("received_at", models.DateTimeField(default=django.utils.timezone.now)),
                        (
                            "run_id",
                            models.UUIDField(
                                blank=True, help_text="The payload's run_id, when it had a readable one.", null=True
                            ),
                        ),
                        (
                            "source",
                            models.CharField(help_text="Where it came from: bench, api, agent task …", max_length=64),
                        ),
                        ("reason", models.TextField()),
                        ("raw", models.TextField(help_text="The payload as received, verbatim.")),
                        (
                            "job",
                            models.ForeignKey(
                                blank=True,
                                null=True,
                                on_delete=django.db.models.deletion.SET_NULL,
                                related_name="quarantined",
                                to="agents.job",
                            ),
                        ),
                    ],
                    options={
                        "db_table": "agents_quarantinedpayload",
                        "ordering": ["-received_at"],
                    },
                ),
                migrations.CreateModel(
                    name="PublishedResult",
                    fields=[
                        (
                            "run",
                            models.OneToOneField(
                                on_delete=django.db.models.deletion.CASCADE,
                                primary_key=True,
                                related_name="published",
                                serialize=False,
                                to="results.benchmarkrun",
                            ),
                        ),
                        ("round", models.CharField(help_text="e.g. 'v5.1'", max_length=16)),
                        ("division", models.CharField(help_text="closed, open or network", max_length=16)),
                        ("submitter", models.CharField(max_length=128)),
                        (
                            "system",
                            models.CharField(help_text="The system's folder name in the result tree.", max_length=255),
                        ),
                        (
                            "system_name",
                            models.CharField(
                                blank=True, help_text="The system description's system_name.", max_length=255
                            ),
                        ),
                        (
                            "system_type",
                            models.CharField(blank=True, help_text="datacenter, edge or both", max_length=32),
                        ),
                        (
                            "benchmark",
                            models.CharField(help_text="The benchmark folder name, as published.", max_length=64),
                        ),
                        (
                            "scenario",
                            models.CharField(help_text="The scenario folder name, as published.", max_length=32),
                        ),
                        ("metric", models.CharField(help_text="The log key the figure was read from.", max_length=96)),
                        ("value", models.CharField(help_text="The published system figure, as logged.", max_length=40)),
                        ("unit", models.CharField(help_text="tokens/s, samples/s or ns", max_length=16)),
                        (
                            "inferred_from",
                            models.CharField(blank=True, help_text="LoadGen's scenario, when inferred.", max_length=32),
                        ),
                        (
                            "accelerator_name",
                            models.CharField(
                                help_text="The accelerator as the system description names it.", max_length=255
                            ),
                        ),
                        (
                            "accelerator_variant",
                            models.CharField(blank=True, help_text="e.g. power-limited, virtualized", max_length=255),
                        ),
                        ("accelerators_per_system", models.PositiveIntegerField()),
                        (
                            "source_path",
                            models.CharField(help_text="The log read, relative to the tree's root.", max_length=512),
                        ),
                    ],
                    options={
                        "db_table": "agents_publishedresult",
                        "ordering": ["round", "division", "submitter", "system", "benchmark", "scenario"],
                        "constraints": [
                            models.UniqueConstraint(
                                fields=("round", "division", "submitter", "system", "benchmark", "scenario"),
                                name="published_result_unique",
                            )
                        ],
                    },
                ),
                migrations.AddIndex(
                    model_name="benchmarkrun",
                    index=models.Index(
                        fields=["model_class", "accelerator", "-started_at"], name="run_class_accel_started_idx"
                    ),
                ),
                migrations.AddIndex(
                    model_name="benchmarkrun",
                    index=models.Index(
                        fields=["workload_name", "backend", "precision"], name="run_workload_backend_idx"
                    ),
                ),
                migrations.AddConstraint(
                    model_name="operatingpoint",
                    constraint=models.UniqueConstraint(fields=("run", "index"), name="point_run_index_unique"),
                ),
                migrations.AddConstraint(
                    model_name="operatingpoint",
                    constraint=models.CheckConstraint(
                        condition=models.Q(("throughput_per_s__gt", 0)), name="point_throughput_gt_0"
                    ),
                ),
            ],
            database_operations=[],
        ),
        migrations.RunPython(relabel_content_types, restore_content_types),
    ]
