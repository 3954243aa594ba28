"""The fleet: agents, the jobs and schedules they run, endpoints to measure, and the control workers.

Measured results (runs, points, quarantined payloads) live in ``results``; a run links back to its job and agent.
"""

import uuid
from datetime import timedelta

from django.conf import settings
from django.core.validators import MinValueValidator, RegexValidator
from django.db import models
from django.utils import timezone

from hardware_catalog.models import Accelerator
from harness.endpoints.trace import FORMATS as TRACE_FORMATS
from workloads.registry import DECLARED_NAME
from workloads.user import FORMATS as USER_FORMATS
from workloads.user import UNITS as USER_UNITS


class AgentQuerySet(models.QuerySet):
    def online(self, at=None):
        """Agents heard from within INFERLEDGER_AGENT_OFFLINE_AFTER_S."""
        at = at or timezone.now()
        return self.filter(last_seen_at__gte=at - timedelta(seconds=settings.INFERLEDGER_AGENT_OFFLINE_AFTER_S))


class Agent(models.Model):
    """A host that runs benchmarks: one Celery worker consuming the queue ``agent.<name>``.

    Written only by the control worker, from the registration and heartbeat tasks the agent sends;
    the agent itself never touches the database.
    """

    name = models.SlugField(max_length=64, unique=True)
    hostname = models.CharField(max_length=255, blank=True)
    queue = models.CharField(max_length=80)
    devices = models.JSONField(default=list, help_text="Device inventory as reported: type, name, index, memory.")
    accelerators = models.ManyToManyField(Accelerator, blank=True, related_name="agents")
    versions = models.JSONField(default=dict, help_text="Python, torch, CUDA, driver, LoadGen … on the host.")
    # Empty until the agent first speaks (an agent only enrolled is "enrolled", not online). last_seen_at is the
    # signing time of its newest accepted registration or heartbeat, never the time a (delayed) copy arrived.
    first_seen_at = models.DateTimeField(null=True, blank=True)
    last_seen_at = models.DateTimeField(null=True, blank=True)
    # Issued by `manage.py enroll_agent`; every report from the agent is signed with it (agents.signing).
    signing_key = models.CharField(max_length=64, blank=True, editable=False)
    enrolled_at = models.DateTimeField(null=True, blank=True)
    refused_reports = models.PositiveIntegerField(
        default=0, help_text="Reports naming this agent that were refused: bad signature, too old, or repeated."
    )
    last_refused_at = models.DateTimeField(null=True, blank=True)
    last_refused_reason = models.CharField(max_length=300, blank=True)

    objects = AgentQuerySet.as_manager()

    class Meta:
        ordering = ["name"]

    def __str__(self):
        return self.name

    @property
    def status(self) -> str:
        """'online' when a heartbeat signed within INFERLEDGER_AGENT_OFFLINE_AFTER_S was accepted, 'offline' when
        the newest is older, 'enrolled' when the agent has never spoken."""
        if self.last_seen_at is None:
            return "enrolled"
        age_s = (timezone.now() - self.last_seen_at).total_seconds()
        return "online" if age_s <= settings.INFERLEDGER_AGENT_OFFLINE_AFTER_S else "offline"


class AgentReportNonce(models.Model):
    """The nonce of every report accepted from an agent within INFERLEDGER_AGENT_MESSAGE_MAX_AGE_S: a copy of
    a report (the same nonce) is refused. Older rows are pruned by the reaper: reports that old are refused
    by their age."""

    agent = models.ForeignKey(Agent, on_delete=models.CASCADE, related_name="+")
    nonce = models.CharField(max_length=64)
    signed_at = models.DateTimeField()

    class Meta:
        constraints = [
            # A report is accepted once: the insert of its nonce is the check.
            models.UniqueConstraint(fields=["agent", "nonce"], name="agent_report_nonce_unique"),
        ]
        indexes = [models.Index(fields=["signed_at"], name="agent_report_nonce_signed_idx")]  # the pruning

    def __str__(self):
        return f"{self.agent_id}:{self.nonce}"


class EndpointProtocol(models.TextChoices):
    OPENAI_COMPLETIONS = "openai-completions", "OpenAI-compatible /v1/completions (streamed)"
    OPENAI_CHAT = "openai-chat", "OpenAI-compatible /v1/chat/completions (streamed)"
    OIP_V2 = "oip-v2", "Open Inference Protocol v2 (/v2/models/{name}/infer)"


class Endpoint(models.Model):
    """A running inference server to benchmark. Its runs are the workload ``endpoint:<name>``.

    ``api_key`` is a secret: the API accepts it but never returns it, the dashboard and the admin never show
    it, and it reaches only the agent that runs the endpoint's job (in the job's message).
    """

    name = models.SlugField(max_length=48, unique=True, help_text="Its workload id is endpoint:<name>.")
    protocol = models.CharField(max_length=24, choices=EndpointProtocol.choices)
    url = models.URLField(
        max_length=500, help_text="Base URL, e.g. http://10.0.0.5:8000 (the protocol's paths follow)."
    )
    model = models.CharField(max_length=200, help_text="The served model's name (OpenAI 'model', v2 model name).")
    api_key = models.TextField(blank=True, help_text="Sent as 'Authorization: Bearer …'; write-only.")
    metrics_url = models.URLField(max_length=500, blank=True, help_text="Prometheus metrics (vLLM, Triton).")
    prompt_tokens = models.PositiveIntegerField(default=128)
    output_tokens = models.PositiveIntegerField(default=64)
    v2_input = models.JSONField(
        default=dict, blank=True, help_text='v2 only: {"name": "input-0", "shape": [1, 4], "datatype": "FP32"}.'
    )
    # The hardware behind the server: its runs are priced on it, not on the host of the agent that measures it.
    # Null only for endpoints declared before hardware was asked for (their runs are priced on the agent's device).
    accelerator = models.ForeignKey(
        Accelerator, null=True, blank=True, on_delete=models.PROTECT, related_name="endpoints",
        help_text="The catalog accelerator the server runs on.",
    )  # fmt: skip
    accelerator_count = models.PositiveSmallIntegerField(
        default=1, validators=[MinValueValidator(1)], help_text="How many of them serve it (one replica)."
    )
    created_at = models.DateTimeField(default=timezone.now)

    class Meta:
        ordering = ["name"]

    def __str__(self):
        return self.name

    def __repr__(self):
        return f"<Endpoint {self.name} {self.protocol}>"

    @property
    def workload_id(self) -> str:
        return f"endpoint:{self.name}"

    def as_spec(self) -> dict:
        """The declaration an agent runs, secret included: for the job's message only."""
        spec = {"name": self.name, "protocol": self.protocol, "url": self.url, "model": self.model,
                "api_key": self.api_key, "metrics_url": self.metrics_url,
                "prompt_tokens": self.prompt_tokens, "output_tokens": self.output_tokens}  # fmt: skip
        if self.accelerator_id:
            spec |= {"accelerator": str(self.accelerator), "accelerator_count": self.accelerator_count}
        for key in ("name", "shape", "datatype"):
            if key in (self.v2_input or {}):
                spec[f"v2_input_{key}" if key != "datatype" else "v2_datatype"] = self.v2_input[key]
        return spec


class UserWorkload(models.Model):
    """A user's model file declared once (``workloads.user``): its runs are the workload ``user:<name>``.

    The fields are the declaration's keys, the same as the YAML/TOML ``bench --workload-file`` reads. ``path``
    is on the agent host that runs its jobs: the control plane validates the declaration and never opens the
    file; the agent checks the file against it and fails the job's items with the reason when it does not match.
    Not edited once declared (its runs would mix two models): declare another name.
    """

    DECLARATION_FIELDS = ("name", "title", "format", "path", "unit", "inputs", "llm")
    # What makes the work of its runs: two declarations of one name that differ in any of these are two
    # workloads under one id (the title only names it).
    IDENTITY_FIELDS = ("format", "path", "unit", "inputs", "llm")

    name = models.CharField(
        max_length=48, unique=True, validators=[RegexValidator(rf"^{DECLARED_NAME}$")],
        help_text="Lowercase letters, digits, '.', '_' or '-'. Its workload id is user:<name>.",
    )  # fmt: skip
    title = models.CharField(max_length=200, blank=True)
    format = models.CharField(max_length=16, choices=[(name, name) for name in USER_FORMATS])
    path = models.CharField(max_length=1000, help_text="Absolute path of the file (or directory) on the agent host.")
    unit = models.CharField(max_length=16, choices=[(name, name) for name in USER_UNITS], help_text="The unit of work.")
    inputs = models.JSONField(
        default=list, blank=True, help_text='[{"name": "x", "shape": ["batch", 8], "dtype": "float32"}]'
    )
    llm = models.JSONField(
        null=True, blank=True, help_text='output_tokens only: {"prompt_tokens": 128, "output_tokens": 64}'
    )
    created_at = models.DateTimeField(default=timezone.now)

    class Meta:
        ordering = ["name"]

    def __str__(self):
        return self.name

    @property
    def workload_id(self) -> str:
        return f"user:{self.name}"

    def differences_from(self, spec) -> dict[str, tuple]:
        """{field: (declared, in ``spec``)} for each identity field where a ``workloads.UserWorkloadSpec`` of the
        same name declares other work; empty when it declares the same. Both sides are declarations as the agent
        reads them (``as_spec``, ``to_dict``), where an empty input list or LLM block is the same as none."""
        ours, theirs = self.as_spec(), spec.to_dict()
        pairs = {field: (ours.get(field) or None, theirs.get(field) or None) for field in self.IDENTITY_FIELDS}
        return {field: pair for field, pair in pairs.items() if pair[0] != pair[1]}

    def as_spec(self) -> dict:
        """The declaration (``workloads.parse_spec`` reads it), as the agent receives it in the job's spec."""
        spec = {"name": self.name, "format": self.format, "path": self.path, "unit": self.unit}
        if self.inputs:
            spec["inputs"] = self.inputs
        if self.llm:
            spec["llm"] = self.llm
        if self.title:
            spec["title"] = self.title
        return spec


class RequestTrace(models.Model):
    """A request trace declared once (``harness.endpoints.trace``): its runs are the workload ``trace:<name>``.

    The file's text is stored with its SHA-256 and travels in each job's spec, so every agent replays exactly the
    declared requests (the agent checks the digest). ``distributions`` states its length and arrival distributions
    as read when it was declared. Not edited once declared (its runs would mix two traces): declare another name.
    """

    name = models.CharField(
        max_length=48, unique=True, validators=[RegexValidator(rf"^{DECLARED_NAME}$")],
        help_text="Lowercase letters, digits, '.', '_' or '-'. Its workload id is trace:<name>.",
    )  # fmt: skip
    title = models.CharField(max_length=200, blank=True)
    format = models.CharField(max_length=16, choices=[(name, name) for name in TRACE_FORMATS])
    content = models.TextField(help_text="The trace file's text, as declared.")
    sha256 = models.CharField(max_length=64, help_text="SHA-256 of content (UTF-8).")
    distributions = models.JSONField(help_text="Length and arrival distributions, as read when declared.")
    created_at = models.DateTimeField(default=timezone.now)

    class Meta:
        ordering = ["name"]

    def __str__(self):
        return self.name

    @property
    def workload_id(self) -> str:
        return f"trace:{self.name}"

    def as_spec(self) -> dict:
        """The declaration an agent replays (``harness.endpoints.trace.trace_from_declaration`` reads it)."""
        return {"name": self.name, "format": self.format, "content": self.content, "sha256": self.sha256}


class TraceMode(models.TextChoices):
    ARRIVALS = "arrivals", "At the recorded arrival times (scaled by time_scale)"
    CONCURRENCY = "concurrency", "Its requests drawn by the concurrency sweep"


class JobState(models.TextChoices):
    QUEUED = "queued", "Queued"
    RUNNING = "running", "Running"
    SUCCEEDED = "succeeded", "Succeeded"
    FAILED = "failed", "Failed"
    CANCELLED = "cancelled", "Cancelled"


ACTIVE_JOB_STATES = (JobState.QUEUED, JobState.RUNNING)


class JobSpec(models.Model):
    """What to measure and where: shared by a job and a schedule (validated by agents.jobspec)."""

    suite = models.CharField(max_length=16, default="quick", help_text="Preset: quick, standard or publishable.")
    workloads = models.JSONField(default=list, blank=True, help_text="Model classes; empty = all.")
    sizes = models.JSONField(default=list, blank=True, help_text="Workload sizes; empty = tiny.")
    scenarios = models.JSONField(default=list, blank=True, help_text="Scenarios; empty = all.")
    backends = models.JSONField(default=list, blank=True, help_text="Backends; empty = the suite's.")
    precisions = models.JSONField(default=list, blank=True, help_text="Precisions; empty = the suite's.")
    offline_batch_sizes = models.JSONField(default=list, blank=True, help_text="Offline sweep; empty = preset.")
    server_load_fractions = models.JSONField(
        default=list, blank=True, help_text="Server offered rates as fractions of capacity; empty = preset."
    )
    min_duration_ms = models.PositiveIntegerField(null=True, blank=True, help_text="Per point; empty = preset.")
    min_query_count = models.PositiveIntegerField(null=True, blank=True, help_text="Per point; empty = preset.")
    rounds = models.PositiveSmallIntegerField(
        null=True, blank=True, help_text="Rounds per point (the best is reported); empty = preset."
    )
    time_limit_s = models.PositiveIntegerField(
        default=1800, help_text="Hard limit for the whole job; the soft limit fires a minute earlier."
    )
    endpoint = models.ForeignKey(
        Endpoint, null=True, blank=True, on_delete=models.PROTECT, related_name="+",
        help_text="Measure this running server (scenarios: concurrency-sweep, server) instead of the suite.",
    )  # fmt: skip
    server_rates_qps = models.JSONField(
        default=list, blank=True, help_text="Endpoint Server offered rates (queries/s)."
    )
    concurrency_max = models.PositiveIntegerField(null=True, blank=True, help_text="Endpoint sweep: highest level.")
    user_workload = models.ForeignKey(
        UserWorkload, null=True, blank=True, on_delete=models.PROTECT, related_name="+",
        help_text="Measure this declared model file (its native backend unless backends say otherwise).",
    )  # fmt: skip
    trace = models.ForeignKey(
        RequestTrace, null=True, blank=True, on_delete=models.PROTECT, related_name="+",
        help_text="Replay this declared trace against the endpoint (its runs: trace:<name>).",
    )  # fmt: skip
    trace_mode = models.CharField(
        max_length=16,
        blank=True,
        choices=TraceMode.choices,
        help_text="With a trace: arrivals (default) or concurrency.",
    )
    time_scale = models.FloatField(
        null=True, blank=True, help_text="Arrivals: recorded offsets are multiplied by this (0.5: twice as fast)."
    )
    ttft_slo_ms = models.FloatField(null=True, blank=True, help_text="Endpoint goodput: TTFT bound per request.")
    tpot_slo_ms = models.FloatField(null=True, blank=True, help_text="Endpoint goodput: TPOT bound per request.")
    agent = models.ForeignKey(Agent, null=True, blank=True, on_delete=models.PROTECT, related_name="+")
    accelerator = models.ForeignKey(
        Accelerator,
        null=True,
        blank=True,
        on_delete=models.PROTECT,
        related_name="+",
        help_text="Instead of an agent: any online agent with this accelerator.",
    )

    class Meta:
        abstract = True


class JobQuerySet(models.QuerySet):
    def active(self):
        return self.filter(state__in=ACTIVE_JOB_STATES)

    def past_deadline(self, at=None):
        return self.active().filter(deadline_at__lt=at or timezone.now())


class Job(JobSpec):
    """One request to measure a spec on one agent: queued -> running -> succeeded | failed | cancelled."""

    id = models.UUIDField(primary_key=True, default=uuid.uuid4, editable=False, help_text="Also the Celery task id.")
    agent = models.ForeignKey(Agent, null=True, blank=True, on_delete=models.SET_NULL, related_name="jobs")
    state = models.CharField(max_length=16, choices=JobState.choices, default=JobState.QUEUED)
    attempts = models.PositiveSmallIntegerField(default=0, help_text="Times an agent started it.")
    error = models.TextField(blank=True)
    progress_pct = models.FloatField(default=0.0)
    current_point = models.CharField(max_length=200, blank=True)
    skips = models.JSONField(default=list, blank=True, help_text="Items not measured, with the reason.")
    created_at = models.DateTimeField(default=timezone.now)
    dispatched_at = models.DateTimeField(
        null=True, blank=True, help_text="Last time the job was sent to its agent's queue (empty: not sent yet)."
    )
    redispatches = models.PositiveSmallIntegerField(
        default=0, help_text="Times the reaper sent it again because the broker no longer held its message."
    )
    started_at = models.DateTimeField(null=True, blank=True)
    reported_at = models.DateTimeField(
        null=True, blank=True,
        help_text="Last time its agent said it was running it (start, progress, or a heartbeat that lists it).",
    )  # fmt: skip
    finished_at = models.DateTimeField(null=True, blank=True)
    idempotency_key = models.CharField(
        max_length=200, blank=True, help_text="The Idempotency-Key its creator sent: a retry returns this job."
    )
    deadline_at = models.DateTimeField(
        null=True, blank=True, help_text="The reaper fails (or requeues) the job when it is still active after this."
    )
    created_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL, related_name="+"
    )
    schedule = models.ForeignKey("JobSchedule", null=True, blank=True, on_delete=models.SET_NULL, related_name="jobs")
    slot_start = models.DateTimeField(null=True, blank=True, help_text="The schedule slot that created the job.")

    objects = JobQuerySet.as_manager()

    class Meta:
        ordering = ["-created_at"]
        constraints = [
            # Two beats firing the same slot of a schedule create one job, not two.
            models.UniqueConstraint(fields=["schedule", "slot_start"], name="job_schedule_slot_unique"),
            # A client retrying a create with its Idempotency-Key gets the job it created, never a second one.
            models.UniqueConstraint(
                fields=["created_by", "idempotency_key"],
                condition=~models.Q(idempotency_key=""),
                name="job_idempotency_key_unique",
            ),  # fmt: skip
            models.CheckConstraint(
                condition=models.Q(progress_pct__gte=0) & models.Q(progress_pct__lte=100), name="job_progress_0_100"
            ),
        ]
        indexes = [
            # The reaper: active jobs past their deadline.
            models.Index(fields=["state", "deadline_at"], name="job_state_deadline_idx"),
        ]

    def __str__(self):
        return f"job {self.pk} ({self.state})"


class JobSchedule(JobSpec):
    """A spec run on a schedule; the timing lives in django-celery-beat's PeriodicTask (edited in the admin)."""

    name = models.CharField(max_length=200, unique=True)
    periodic_task = models.OneToOneField(
        "django_celery_beat.PeriodicTask", on_delete=models.CASCADE, related_name="inferledger_schedule"
    )
    created_at = models.DateTimeField(default=timezone.now)

    class Meta:
        ordering = ["name"]

    def __str__(self):
        return self.name


class ControlWorker(models.Model):
    """A control worker's heartbeat and what it found about the broker: its liveness, shown to users."""

    hostname = models.CharField(max_length=255, unique=True)
    started_at = models.DateTimeField(default=timezone.now)
    last_seen_at = models.DateTimeField(default=timezone.now)
    broker_persistence = models.JSONField(
        default=dict, help_text="The broker's CONFIG GET appendonly/save as last read, or why it could not be read."
    )
    broker_warning = models.TextField(blank=True, help_text="Why queued jobs could be lost on a broker restart.")

    class Meta:
        ordering = ["hostname"]

    def __str__(self):
        return self.hostname

    @property
    def status(self) -> str:
        age_s = (timezone.now() - self.last_seen_at).total_seconds()
        return "online" if age_s <= settings.INFERLEDGER_CONTROL_OFFLINE_AFTER_S else "offline"
