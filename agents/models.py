"""Benchmark runs and their measured operating points, and payloads that failed validation.

A run is written once, by agents.ingest, from a result payload (schema inferledger.result/1); it is
never edited afterwards. The payload itself is kept so every number can be traced to what was measured.
"""

import uuid

from django.db import models
from django.utils import timezone

from hardware_catalog.models import Accelerator


class RunOrigin(models.TextChoices):
    MEASURED = "measured", "Measured by an InferLedger agent"
    EXTERNAL = "external", "Imported from published results"


class BenchmarkRunQuerySet(models.QuerySet):
    def measured(self):
        return self.filter(origin=RunOrigin.MEASURED)

    def for_model_class(self, model_class: str):
        return self.filter(model_class=model_class)


class BenchmarkRun(models.Model):
    """One scenario of one workload on one backend/precision on one device."""

    id = models.UUIDField(primary_key=True, default=uuid.uuid4, editable=False, help_text="The payload's run_id.")
    origin = models.CharField(max_length=16, choices=RunOrigin.choices, default=RunOrigin.MEASURED)
    external_source = models.CharField(max_length=255, blank=True, help_text="e.g. 'MLPerf Inference v4.1, Dell'")
    accelerator = models.ForeignKey(Accelerator, on_delete=models.PROTECT, related_name="runs")
    accelerator_count = models.PositiveSmallIntegerField(default=1)
    device_name = models.CharField(max_length=255)
    workload_name = models.CharField(max_length=64)
    model_class = models.CharField(max_length=32)
    size = models.CharField(max_length=32)
    scenario = models.CharField(max_length=32)
    backend = models.CharField(max_length=32)
    precision = models.CharField(max_length=16)
    parameters = models.BigIntegerField(null=True)
    flops_per_inference = models.BigIntegerField(null=True)
    weight_bytes = models.BigIntegerField(null=True)
    started_at = models.DateTimeField()
    finished_at = models.DateTimeField()
    loadgen_valid = models.BooleanField(help_text="LoadGen judged every point VALID.")
    accuracy_passed = models.BooleanField(null=True, help_text="Null for fp32 (it is the reference).")
    accuracy = models.JSONField(null=True, blank=True)
    environment = models.JSONField(default=dict)
    settings = models.JSONField(default=dict)
    telemetry = models.JSONField(default=dict)
    payload = models.JSONField(help_text="The result payload exactly as ingested.")
    payload_sha256 = models.CharField(max_length=64)
    ingested_at = models.DateTimeField(default=timezone.now)

    objects = BenchmarkRunQuerySet.as_manager()

    class Meta:
        ordering = ["-started_at"]
        indexes = [
            # Rankings: runs of a model class, newest first, per accelerator.
            models.Index(fields=["model_class", "accelerator", "-started_at"], name="run_class_accel_started_idx"),
            models.Index(fields=["workload_name", "backend", "precision"], name="run_workload_backend_idx"),
        ]

    def __str__(self):
        return f"{self.workload_name} {self.scenario} {self.backend}/{self.precision} on {self.device_name}"


class OperatingPoint(models.Model):
    """One measured point of a run: a batch size, concurrency or offered rate, with its latency and throughput."""

    run = models.ForeignKey(BenchmarkRun, on_delete=models.CASCADE, related_name="points")
    index = models.PositiveSmallIntegerField()
    batch_size = models.PositiveIntegerField()
    concurrency = models.PositiveIntegerField(null=True)
    offered_rate_qps = models.FloatField(null=True)
    throughput_per_s = models.FloatField()
    throughput_unit = models.CharField(max_length=16, default="inferences")
    latency_min_ms = models.FloatField(null=True)
    latency_mean_ms = models.FloatField(null=True)
    latency_p50_ms = models.FloatField()
    latency_p90_ms = models.FloatField(null=True)
    latency_p95_ms = models.FloatField(null=True)
    latency_p99_ms = models.FloatField()
    latency_p99_9_ms = models.FloatField(null=True)
    latency_max_ms = models.FloatField(null=True)
    query_count = models.PositiveIntegerField(null=True)
    sample_count = models.PositiveIntegerField(null=True)
    queue_wait_mean_ms = models.FloatField(null=True)
    queue_wait_p99_ms = models.FloatField(null=True)
    batch_formation_mean_ms = models.FloatField(null=True)
    compute_mean_ms = models.FloatField(null=True)
    ttft_p50_ms = models.FloatField(null=True)
    ttft_p99_ms = models.FloatField(null=True)
    tpot_p50_ms = models.FloatField(null=True)
    tpot_p99_ms = models.FloatField(null=True)
    output_tokens_per_s = models.FloatField(null=True)
    power_w_mean = models.FloatField(null=True)
    energy_j_per_inference = models.FloatField(null=True)
    loadgen_valid = models.BooleanField()
    loadgen_reasons = models.JSONField(default=list)
    details = models.JSONField(default=dict, help_text="Timing splits, histograms and early-stopping estimates.")
    loadgen_summary_log = models.TextField(blank=True)
    loadgen_detail_log = models.TextField(blank=True)

    class Meta:
        ordering = ["run", "index"]
        constraints = [
            # A point is identified by its position in the run's payload; ingest writes each once.
            models.UniqueConstraint(fields=["run", "index"], name="point_run_index_unique"),
            models.CheckConstraint(condition=models.Q(throughput_per_s__gt=0), name="point_throughput_gt_0"),
        ]

    def __str__(self):
        return f"batch {self.batch_size}: {self.throughput_per_s:.1f}/s, p99 {self.latency_p99_ms:.3f} ms"


class QuarantinedPayload(models.Model):
    """A result that failed validation, kept whole with the reason: nothing is dropped, nothing half-written."""

    received_at = models.DateTimeField(default=timezone.now)
    run_id = models.UUIDField(null=True, blank=True, help_text="The payload's run_id, when it had a readable one.")
    source = models.CharField(max_length=64, help_text="Where it came from: bench, api, agent task …")
    reason = models.TextField()
    raw = models.TextField(help_text="The payload as received, verbatim.")

    class Meta:
        ordering = ["-received_at"]

    def __str__(self):
        return f"{self.received_at:%Y-%m-%d %H:%M} {self.source}: {self.reason[:60]}"
