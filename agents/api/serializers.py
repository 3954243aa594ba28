"""Serializers for agents, jobs, schedules and quarantined payloads; spec validation lives in agents.jobspec."""

from django.conf import settings
from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import extend_schema_field
from rest_framework import serializers

from hardware_catalog.models import Accelerator
from hardware_catalog.selectors import accelerator_named as catalog_accelerator

from ..jobs import spec_for_agent
from ..jobspec import MAX_BATCH_SIZE, MAX_SWEEP_POINTS, SPEC_FIELDS, spec_errors, unknown_field_errors
from ..models import Agent, Endpoint, Job, JobSchedule, RequestTrace, UserWorkload
from ..schedules import MAX_EVERY_S, MAX_SCHEDULE_NAME_LENGTH, MIN_EVERY_S

SPEC_SERIALIZER_FIELDS = [*SPEC_FIELDS, "agent", "accelerator"]


class RefusesUnknownFields(serializers.Serializer):
    """A 400 naming each field the serializer does not have: DRF drops unknown keys by default, so a misspelt
    ``scenario`` (for ``scenarios``) or a nested ``{"spec": ...}`` would silently become the default suite."""

    def to_internal_value(self, data):
        if hasattr(data, "keys"):
            errors = unknown_field_errors(dict.fromkeys(data.keys()), self.fields)
            if errors:
                raise serializers.ValidationError(errors)
        return super().to_internal_value(data)


class AgentSerializer(serializers.ModelSerializer):
    status = serializers.CharField(
        read_only=True, help_text="online; offline when its newest heartbeat is too old; enrolled when never heard from"
    )
    accelerators = serializers.PrimaryKeyRelatedField(many=True, read_only=True)

    class Meta:
        model = Agent
        fields = ["id", "name", "hostname", "queue", "status", "devices", "accelerators", "versions", "enrolled_at",
                  "first_seen_at", "last_seen_at", "refused_reports", "last_refused_at",
                  "last_refused_reason"]  # fmt: skip
        read_only_fields = fields


class SpecSerializer(RefusesUnknownFields, serializers.ModelSerializer):
    """The spec fields shared by jobs and schedules, validated against the harness's registries."""

    agent = serializers.SlugRelatedField(slug_field="name", queryset=Agent.objects.all(), required=False,
                                         allow_null=True)  # fmt: skip
    accelerator = serializers.PrimaryKeyRelatedField(queryset=Accelerator.objects.all(), required=False,
                                                     allow_null=True)  # fmt: skip
    workloads = serializers.ListField(child=serializers.CharField(), required=False)
    sizes = serializers.ListField(child=serializers.CharField(), required=False)
    scenarios = serializers.ListField(child=serializers.CharField(), required=False)
    backends = serializers.ListField(child=serializers.CharField(), required=False)
    precisions = serializers.ListField(child=serializers.CharField(), required=False)
    # Bounds are checked by agents.jobspec with the other spec rules, so one answer names every bad field.
    offline_batch_sizes = serializers.ListField(
        child=serializers.IntegerField(), required=False,
        help_text=f"Whole numbers from 1 to {MAX_BATCH_SIZE}, at most {MAX_SWEEP_POINTS}",
    )  # fmt: skip
    server_load_fractions = serializers.ListField(
        child=serializers.FloatField(), required=False,
        help_text=f"Fractions of measured capacity from 0 to 2, at most {MAX_SWEEP_POINTS}",
    )  # fmt: skip
    endpoint = serializers.SlugRelatedField(
        slug_field="name", queryset=Endpoint.objects.all(), required=False, allow_null=True,
        help_text="An endpoint's name: measure that server",
    )  # fmt: skip
    server_rates_qps = serializers.ListField(
        child=serializers.FloatField(min_value=0), max_length=MAX_SWEEP_POINTS, required=False
    )
    user_workload = serializers.SlugRelatedField(
        slug_field="name", queryset=UserWorkload.objects.all(), required=False, allow_null=True,
        help_text="A declared user workload's name: measure that model file on the agent",
    )  # fmt: skip

    trace = serializers.SlugRelatedField(
        slug_field="name", queryset=RequestTrace.objects.all(), required=False, allow_null=True,
        help_text="A declared trace's name: replay it against the endpoint (its runs: trace:<name>)",
    )  # fmt: skip

    def validate(self, attrs):
        spec = {name: attrs.get(name, self.Meta.model._meta.get_field(name).get_default()) for name in SPEC_FIELDS}
        errors = spec_errors(spec_for_agent(spec), time_limit_max_s=settings.INFERLEDGER_JOB_TIME_LIMIT_MAX_S)
        if errors:
            raise serializers.ValidationError(errors)
        return attrs

    def spec(self) -> dict:
        data = self.validated_data
        return {name: data[name] for name in SPEC_FIELDS if name in data}


class JobSerializer(SpecSerializer):
    agent_name = serializers.CharField(source="agent.name", read_only=True, default=None)
    runs = serializers.PrimaryKeyRelatedField(many=True, read_only=True)

    class Meta:
        model = Job
        fields = ["id", *SPEC_SERIALIZER_FIELDS, "agent_name", "state", "attempts", "error", "progress_pct",
                  "current_point", "skips", "created_at", "started_at", "finished_at", "deadline_at", "schedule",
                  "slot_start", "runs"]  # fmt: skip
        read_only_fields = ["state", "attempts", "error", "progress_pct", "current_point", "skips", "created_at",
                            "started_at", "finished_at", "deadline_at", "schedule", "slot_start"]  # fmt: skip


class ScheduleSerializer(SpecSerializer):
    every_s = serializers.IntegerField(min_value=MIN_EVERY_S, max_value=MAX_EVERY_S, required=False, write_only=True,
                                       help_text="Fire every N seconds (or give crontab).")  # fmt: skip
    crontab = serializers.CharField(required=False, write_only=True,
                                    help_text="Five-field crontab in UTC, e.g. '0 3 * * *'.")  # fmt: skip
    timing = serializers.SerializerMethodField()
    enabled = serializers.BooleanField(source="periodic_task.enabled", read_only=True)

    class Meta:
        model = JobSchedule
        fields = ["id", "name", *SPEC_SERIALIZER_FIELDS, "every_s", "crontab", "timing", "enabled", "created_at"]
        read_only_fields = ["created_at"]
        extra_kwargs = {"name": {"max_length": MAX_SCHEDULE_NAME_LENGTH}}

    def get_timing(self, schedule) -> str:
        task = schedule.periodic_task
        return str(task.interval or task.crontab or "")

    def validate(self, attrs):
        attrs = super().validate(attrs)
        if bool(attrs.get("every_s")) == bool(attrs.get("crontab")):
            raise serializers.ValidationError({"every_s": "give either every_s or crontab"})
        if not attrs.get("agent") and not attrs.get("accelerator"):
            raise serializers.ValidationError({"agent": "give an agent, or an accelerator to pick an online agent"})
        return attrs


@extend_schema_field(OpenApiTypes.STR)
class CatalogAcceleratorField(serializers.Field):
    """A catalog accelerator named as the catalog lists it, vendor and model: 'NVIDIA H100 SXM5 80GB'."""

    default_error_messages = {
        "unknown": "no accelerator {name!r} in the catalog: name one as GET /api/v1/accelerators/ lists it, vendor "
        "and model (e.g. 'NVIDIA H100 SXM5 80GB')",
        "invalid": "must be a string naming a catalog accelerator",
    }

    def to_internal_value(self, data):
        if not isinstance(data, str) or not data.strip():
            self.fail("invalid")
        found = catalog_accelerator(data)
        if found is None:
            self.fail("unknown", name=data)
        return found

    def to_representation(self, value):
        return str(value)


class EndpointSerializer(RefusesUnknownFields, serializers.ModelSerializer):
    """An endpoint; ``api_key`` is write-only (``authenticated`` says whether one is stored). ``accelerator`` and
    ``accelerator_count`` state the hardware the server runs on: its runs are priced on it."""

    api_key = serializers.CharField(write_only=True, required=False, allow_blank=True,
                                    style={"input_type": "password"}, trim_whitespace=False)  # fmt: skip
    authenticated = serializers.SerializerMethodField()
    workload_id = serializers.CharField(read_only=True)
    accelerator = CatalogAcceleratorField(
        help_text="The catalog accelerator the server runs on, vendor and model: 'NVIDIA H100 SXM5 80GB'.",
    )
    accelerator_count = serializers.IntegerField(
        min_value=1, max_value=1024, default=1, help_text="How many of them serve it (one replica)."
    )

    class Meta:
        model = Endpoint
        fields = ["id", "name", "workload_id", "protocol", "url", "model", "api_key", "authenticated", "metrics_url",
                  "prompt_tokens", "output_tokens", "v2_input", "accelerator", "accelerator_count",
                  "created_at"]  # fmt: skip
        read_only_fields = ["created_at"]

    def get_authenticated(self, endpoint) -> bool:
        return bool(endpoint.api_key)

    def to_representation(self, endpoint):
        from harness.endpoints.target import redact_url

        data = super().to_representation(endpoint)
        for key in ("url", "metrics_url"):
            data[key] = redact_url(data[key]) if data[key] else data[key]
        return data

    def validate(self, attrs):
        from harness.endpoints.target import endpoint_errors

        stored = {key: attrs.get(key, getattr(self.instance, key, None)) for key in ("url", "api_key")}
        errors = endpoint_errors(attrs | stored)
        errors = {key: message for key, message in errors.items() if key in attrs or key in stored}
        if errors:
            raise serializers.ValidationError(errors)
        return attrs


class UserWorkloadSerializer(RefusesUnknownFields, serializers.ModelSerializer):
    """A user workload's declaration: the keys of the YAML/TOML ``bench --workload-file`` reads, ``path`` absolute
    on the agent host. Checked as a whole by ``workloads.user`` when it is declared (agents.user_workloads)."""

    workload_id = serializers.CharField(read_only=True)
    inputs = serializers.JSONField(required=False, help_text="name, shape (first dimension 'batch'), dtype, range")
    llm = serializers.JSONField(required=False, allow_null=True, help_text="prompt_tokens, output_tokens")

    class Meta:
        model = UserWorkload
        fields = ["id", "name", "workload_id", "title", "format", "path", "unit", "inputs", "llm", "created_at"]
        read_only_fields = ["created_at"]
        # The declaration's own rules (workloads.user) name every bad field at once; no model-level check first.
        extra_kwargs: dict[str, dict] = {"name": {"validators": []}}

    def declaration(self) -> dict:
        """The validated fields as a declaration (absent and empty optional keys left out)."""
        return {key: value for key, value in self.validated_data.items() if value not in (None, "", [])}


class RequestTraceSerializer(RefusesUnknownFields, serializers.ModelSerializer):
    """A request trace: its file's text (``content``) and ``format`` (mooncake, vllm-custom, sharegpt), declared
    once. Read back with its digest and the length and arrival distributions it states; the text itself is
    write-only (a trace may be megabytes; each job's spec carries it to the agent)."""

    workload_id = serializers.CharField(read_only=True)
    content = serializers.CharField(write_only=True, trim_whitespace=False, style={"base_template": "textarea.html"})
    distributions = serializers.JSONField(read_only=True)

    class Meta:
        model = RequestTrace
        fields = ["id", "name", "workload_id", "title", "format", "content", "sha256", "distributions", "created_at"]
        read_only_fields = ["sha256", "created_at"]
        # The declaration's own rules (agents.traces) name every bad field at once; no model-level check first.
        extra_kwargs: dict[str, dict] = {"name": {"validators": []}}
