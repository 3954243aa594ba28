"""Benchmark runs and their measured operating points, published results, and payloads that failed validation.

A run is written once, by results.ingest (an agent's payload, schema inferledger.result/1) or results.mlperf
(a published MLPerf result); it is never edited afterwards. The payload itself is kept so every number can be
traced to what was measured.

The tables keep the names they had when these models lived in ``agents`` (``db_table``): moving the models
changed no row (results/migrations/0001_initial.py).
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

    def that_count(self):
        """Runs whose figures answers may use: LoadGen judged every point VALID, every point's measurement was
        valid (its rounds agreed, the machine was fit) and the accuracy guard did not fail (None is an fp32
        reference run, or a published result whose accuracy MLPerf checked)."""
        return self.filter(
            models.Q(accuracy_passed=True) | models.Q(accuracy_passed__isnull=True),
            loadgen_valid=True,
            measurement_valid=True,
        )


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
    measurement_valid = models.BooleanField(
        default=True, help_text="Every point's rounds agreed and the machine was fit (harness.rounds)."
    )
    not_valid_reasons = models.JSONField(default=list, blank=True, help_text="'point N: not valid: <reason>', each.")
    accuracy = models.JSONField(null=True, blank=True)
    environment = models.JSONField(default=dict)
    settings = models.JSONField(default=dict)
    telemetry = models.JSONField(default=dict)
    payload = models.JSONField(help_text="The result payload exactly as ingested.")
    payload_sha256 = models.CharField(max_length=64)
    ingested_at = models.DateTimeField(default=timezone.now)
    # Where the run came from; kept when the job or agent record is deleted (the measurement stays).
    job = models.ForeignKey("agents.Job", null=True, blank=True, on_delete=models.SET_NULL, related_name="runs")
    agent = models.ForeignKey("agents.Agent", null=True, blank=True, on_delete=models.SET_NULL, related_name="runs")

    objects = BenchmarkRunQuerySet.as_manager()

    class Meta:
        db_table = "agents_benchmarkrun"
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
    # Endpoint points: requests that failed, goodput under the TTFT/TPOT SLOs, and the latency split into
    # the server's own timing (its Prometheus metrics) and the rest (transport and serialisation).
    request_errors = models.PositiveIntegerField(null=True)
    goodput_requests_per_s = models.FloatField(null=True)
    goodput_output_tokens_per_s = models.FloatField(null=True)
    client_e2e_mean_ms = models.FloatField(null=True)
    server_queue_mean_ms = models.FloatField(null=True)
    server_compute_mean_ms = models.FloatField(null=True)
    server_e2e_mean_ms = models.FloatField(null=True)
    transport_mean_ms = models.FloatField(null=True)
    transport_share = models.FloatField(null=True, help_text="transport_mean_ms / client_e2e_mean_ms")
    # The interval of the median throughput across the point's rounds (harness.stats.median_interval).
    throughput_low_per_s = models.FloatField(null=True)
    throughput_high_per_s = models.FloatField(null=True)
    throughput_interval_confidence = models.FloatField(null=True, help_text="The coverage the interval has (0-1).")
    measurement_valid = models.BooleanField(default=True, help_text="Its rounds agreed and the machine was fit.")
    not_valid_reasons = models.JSONField(default=list, blank=True)
    loadgen_valid = models.BooleanField()
    loadgen_reasons = models.JSONField(default=list)
    details = models.JSONField(default=dict, help_text="Timing splits, histograms and early-stopping estimates.")
    loadgen_summary_log = models.TextField(blank=True)
    loadgen_detail_log = models.TextField(blank=True)

    class Meta:
        db_table = "agents_operatingpoint"
        ordering = ["run", "index"]
        constraints = [
            # A point is identified by its position in the run's payload; ingest writes each once.
            models.UniqueConstraint(fields=["run", "index"], name="point_run_index_unique"),
            models.CheckConstraint(condition=models.Q(throughput_per_s__gt=0), name="point_throughput_gt_0"),
        ]

    def __str__(self):
        return f"batch {self.batch_size}: {self.throughput_per_s:.1f}/s, p99 {self.latency_p99_ms:.3f} ms"

    @property
    def label(self) -> str:
        """What the point varies: its concurrency (an endpoint's sweep), offered rate, or batch size."""
        if self.concurrency:
            return f"concurrency={self.concurrency}"
        if self.offered_rate_qps is not None:
            return f"{self.offered_rate_qps:g}qps"
        return f"b={self.batch_size}"

    @property
    def server_own_time(self) -> tuple[float | None, list[str]]:
        """An endpoint point's server time per request that its transport time is measured against (ms), and the
        stages it spans: the server's end-to-end time, or the sum of the stages it times where it has none
        (harness.endpoints.metrics.TIMED_STAGES). Points stored before that rule state only their e2e."""
        server = (self.details.get("endpoint") or {}).get("server") or {}
        if "timed_ms_mean" in server:
            return server["timed_ms_mean"], server["timed_stages"]
        return self.server_e2e_mean_ms, ["e2e"] if self.server_e2e_mean_ms is not None else []


class PublishedResult(models.Model):
    """Where an external run was published, and its published figure exactly as the result tree states it.

    One per external run (written by results.mlperf). ``value`` is the system's figure as logged,
    read with the submission checker's rule (``metric`` names the log key); the run's operating point
    holds the per-accelerator figures derived from it.
    """

    run = models.OneToOneField(BenchmarkRun, on_delete=models.CASCADE, primary_key=True, related_name="published")
    round = models.CharField(max_length=16, help_text="e.g. 'v5.1'")
    division = models.CharField(max_length=16, help_text="closed, open or network")
    submitter = models.CharField(max_length=128)
    system = models.CharField(max_length=255, help_text="The system's folder name in the result tree.")
    system_name = models.CharField(max_length=255, blank=True, help_text="The system description's system_name.")
    system_type = models.CharField(max_length=32, blank=True, help_text="datacenter, edge or both")
    benchmark = models.CharField(max_length=64, help_text="The benchmark folder name, as published.")
    scenario = models.CharField(max_length=32, help_text="The scenario folder name, as published.")
    metric = models.CharField(max_length=96, help_text="The log key the figure was read from.")
    value = models.CharField(max_length=40, help_text="The published system figure, as logged.")
    unit = models.CharField(max_length=16, help_text="tokens/s, samples/s or ns")
    inferred_from = models.CharField(max_length=32, blank=True, help_text="LoadGen's scenario, when inferred.")
    accelerator_name = models.CharField(max_length=255, help_text="The accelerator as the system description names it.")
    accelerator_variant = models.CharField(max_length=255, blank=True, help_text="e.g. power-limited, virtualized")
    accelerators_per_system = models.PositiveIntegerField()
    source_path = models.CharField(max_length=512, help_text="The log read, relative to the tree's root.")
    availability = models.CharField(
        max_length=16, blank=True, help_text="available, preview or rdi, as the system description states it"
    )
    table_value = models.CharField(
        max_length=40, blank=True, help_text="The figure of MLCommons' results table for this result, as published."
    )
    table_unit = models.CharField(max_length=32, blank=True, help_text="The results table's unit, e.g. 'Latency (ms)'.")

    class Meta:
        db_table = "agents_publishedresult"
        ordering = ["round", "division", "submitter", "system", "benchmark", "scenario"]
        constraints = [
            models.UniqueConstraint(
                fields=["round", "division", "submitter", "system", "benchmark", "scenario"],
                name="published_result_unique",
            ),
        ]

    def __str__(self):
        return f"MLPerf {self.round}, {self.submitter}, {self.system}: {self.benchmark} {self.scenario}"

    @property
    def label(self) -> str:
        return f"MLPerf {self.round}, {self.submitter}, {self.system}"


class HeldReason(models.TextChoices):
    NO_CATALOG_ENTRY = "no_catalog_entry", "no catalog entry"
    MIXED_PARTS = "mixed_parts", "mixed parts"


class HeldPublishedResult(models.Model):
    """A published result stored as published but not ranked, with the reason: an accelerator the catalog does not
    know yet (stored as a run as soon as the catalog learns the part, without a re-import), or a system of several
    different parts (never ranked per accelerator). ``record`` is the tree.Record it is stored from."""

    run_id = models.UUIDField(primary_key=True, help_text="The id its run has (or will have) once stored.")
    round = models.CharField(max_length=16)
    division = models.CharField(max_length=16)
    submitter = models.CharField(max_length=128)
    system = models.CharField(max_length=255)
    system_name = models.CharField(max_length=255, blank=True)
    benchmark = models.CharField(max_length=64)
    scenario = models.CharField(max_length=32)
    metric = models.CharField(max_length=96)
    value = models.CharField(max_length=40)
    unit = models.CharField(max_length=32)
    accelerator_names = models.JSONField(help_text="Every part the system names, as published.")
    accelerators_per_system = models.PositiveIntegerField(null=True)
    availability = models.CharField(max_length=16, blank=True)
    reason_kind = models.CharField(max_length=32, choices=HeldReason.choices)
    reason = models.TextField()
    source_path = models.CharField(max_length=512)
    record = models.JSONField(help_text="The published result as read (results.mlperf.tree.Record).")
    held_at = models.DateTimeField(default=timezone.now)

    class Meta:
        ordering = ["round", "division", "submitter", "system", "benchmark", "scenario"]

    def __str__(self):
        return f"MLPerf {self.round}, {self.submitter}, {self.system}: {self.benchmark} {self.scenario} ({self.reason})"


class QuarantinedPayload(models.Model):
    """A refused result, kept with the reason: nothing is dropped, nothing half-written (results/quarantine.py).

    Whole (NULs escaped) from a verified sender; from an unverified one a prefix, with the size and digest
    of the whole.
    """

    received_at = models.DateTimeField(default=timezone.now)
    run_id = models.UUIDField(null=True, blank=True, help_text="The payload's run_id, when it had a readable one.")
    source = models.CharField(max_length=64, help_text="Where it came from: bench, api, agent task …")
    reason = models.TextField()
    raw = models.TextField(
        help_text="The payload as received, NUL characters escaped as \\u0000; a prefix when raw_truncated."
    )
    raw_size_bytes = models.PositiveBigIntegerField(null=True, help_text="Size of the payload as received (UTF-8).")
    raw_sha256 = models.CharField(max_length=64, blank=True, help_text="SHA-256 of the payload as received (UTF-8).")
    raw_truncated = models.BooleanField(
        default=False, help_text="Only a prefix is kept: the sender's signature did not verify."
    )
    job = models.ForeignKey("agents.Job", null=True, blank=True, on_delete=models.SET_NULL, related_name="quarantined")

    class Meta:
        db_table = "agents_quarantinedpayload"
        ordering = ["-received_at"]

    def __str__(self):
        return f"{self.received_at:%Y-%m-%d %H:%M} {self.source}: {self.reason[:60]}"
