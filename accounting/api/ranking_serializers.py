"""Request and response shapes of the rankings and cost-series endpoints."""

import inspect
from decimal import Decimal

from rest_framework import serializers

import workloads
from accounting import policy
from accounting.api.serializers import (
    PER_MILLION_USD,
    HourlyCostSerializer,
    OnPremAssumptionsSerializer,
    utilization_field,
)
from accounting.errors import FieldError
from accounting.pricing.utilization import utilization_assumed
from accounting.provenance import origin_label
from accounting.question import CostQuestion
from hardware_catalog.api.serializers import PriceSerializer
from hardware_catalog.models import PriceKind
from hardware_catalog.selectors import parse_as_of
from results.models import PublishedResult

MODEL_CLASSES = sorted(workloads.MODEL_CLASSES)
WORKLOAD_IDS = sorted(workloads.WORKLOADS)
UNITS = [unit.value for unit in workloads.Unit]
POSITIVE = Decimal("0.001")


def latency_bound(help_text: str):
    return serializers.DecimalField(
        max_digits=12, decimal_places=3, min_value=POSITIVE, required=False, help_text=help_text
    )


def token_length(help_text: str):
    return serializers.DecimalField(
        max_digits=12, decimal_places=3, min_value=Decimal("0.001"), required=False, help_text=help_text
    )


class WorkloadQueryMixin(serializers.Serializer):
    """The workload an answer is for, and the SLA bounds it may be asked under (checked in accounting.policy)."""

    # A free-form id, checked by accounting.policy.resolve_workload (workloads.get): built-in ids and the
    # user's own workloads (user:<name>, endpoint:<name>, trace:<name>), each of which ranks only against itself.
    workload = serializers.CharField(
        required=False,
        max_length=200,
        help_text="Workload id: a registry id (" + ", ".join(WORKLOAD_IDS) + "), user:<name> for a declared model "
        "file, endpoint:<name> for an endpoint or trace:<name> for a declared request trace replayed against "
        "endpoints. Default: the reference workload of model_class. Smoke-test "
        "stand-ins (e.g. tabular-tiny) are answered only when named here.",
    )
    model_class = serializers.ChoiceField(
        choices=MODEL_CLASSES, required=False, help_text="Picks its reference workload when workload is omitted."
    )
    sla_p99_ms = latency_bound("Whole-request p99 bound (non-LLM workloads, and GPT-J). Omit for no SLA.")
    ttft_p99_ms = latency_bound("LLM workloads: time-to-first-token p99 bound (MLPerf llama2-70b Server: 2000).")
    tpot_p99_ms = latency_bound("LLM workloads: time-per-output-token p99 bound (MLPerf llama2-70b Server: 200).")

    def validate(self, attrs):
        if not attrs.get("workload") and not attrs.get("model_class"):
            raise serializers.ValidationError({"workload": ["give a workload (or a model_class, for its reference)"]})
        return attrs


def published_field(default: policy.Published = policy.DEFAULT_PUBLISHED):
    return serializers.ChoiceField(
        choices=[(choice.value, choice.description) for choice in policy.Published],
        default=default.value,
        help_text=f"Which published (MLPerf) results the answer includes. Default: {default.value}.",
    )


class PublishedQueryMixin(serializers.Serializer):
    """Which published (MLPerf) results the answer ranks (accounting.policy.Published): `published`, or the older
    boolean `include_external` (true = all, false = none). The validated data carries `published` only."""

    published = published_field()
    include_external = serializers.BooleanField(
        required=False,
        allow_null=True,
        default=None,
        help_text="Older form of `published`: true = published=all, false = published=none. Omitted: the default "
        "of `published`. Giving both with different meanings is refused.",
    )

    def validate(self, attrs):
        attrs = super().validate(attrs)
        given = "published" in getattr(self, "initial_data", {})
        try:
            attrs["published"] = policy.published_rule(
                published=attrs["published"] if given else None,
                include_external=attrs.pop("include_external", None),
                default=policy.Published(self.fields["published"].default),
            )
        except policy.ParameterError as exc:
            raise serializers.ValidationError({exc.field: [str(exc)]}) from None
        return attrs


class AsOfField(serializers.CharField):
    """A date (end of that day, UTC) or an ISO-8601 date-time; returned as an aware UTC datetime."""

    def to_internal_value(self, data):
        try:
            return parse_as_of(super().to_internal_value(data))
        except ValueError as exc:
            raise serializers.ValidationError(str(exc)) from None


# What a ranking's offers are read under: the cost basis and utilization, where and from whom the price is, how
# the runs were made, and as of when (the rankings and the LLM serving ranking ask the same; a comment, not a
# docstring, which the schema would show as the description of every serializer that uses it).
class OfferFiltersMixin(serializers.Serializer):
    price_kind = serializers.ChoiceField(choices=PriceKind.choices)
    utilization = utilization_field("Every answer states the one it assumed (utilization_assumed).")
    region = serializers.CharField(required=False, max_length=64)
    provider = serializers.CharField(required=False, max_length=128)
    precision = serializers.CharField(required=False, max_length=16)
    backend = serializers.CharField(required=False, max_length=32)
    as_of = AsOfField(required=False, help_text="YYYY-MM-DD or ISO-8601 date-time; default now.")


# The validated data carries `question`: the one CostQuestion these parameters ask, built and validated once
# (accounting.question); a parameter it cannot answer is a 400 under that parameter's name. A serving question
# (`asks_serving`) is also checked against the serving rule of an SLA (policy.serving_target_tps_per_user). A comment,
# not a docstring, which the schema would show as the description of every request that uses it.
class AsksCostQuestion(serializers.Serializer):
    asks_serving = False

    def question_parameters(self, attrs: dict) -> dict:
        """The validated parameters that are the question's (a request may hold others: a target, a volume)."""
        return {name: value for name, value in attrs.items() if name in QUESTION_PARAMETERS}

    def validate(self, attrs):
        attrs = super().validate(attrs)
        try:
            attrs["question"] = CostQuestion.ask(**self.question_parameters(attrs))
            if self.asks_serving:
                attrs["question"].serving_target_tps_per_user()
        except FieldError as exc:  # policy.ParameterError, or a refusal of the parameters' own (a comparison's)
            raise serializers.ValidationError({exc.field: [str(exc)]}) from None
        return attrs


QUESTION_PARAMETERS = set(inspect.signature(CostQuestion.ask).parameters) - {"cls"}


class RankingQuerySerializer(AsksCostQuestion, PublishedQueryMixin, WorkloadQueryMixin, OfferFiltersMixin):
    input_tokens_per_request = token_length("LLM workloads: mean input tokens per request; default the workload's.")
    output_tokens_per_request = token_length("LLM workloads: mean output tokens per request; default the workload's.")


class UtilizationAssumedField(serializers.CharField):
    """The utilization every cost of the answer assumes, in words (accounting.pricing.utilization)."""

    def __init__(self, **kwargs):
        kwargs.setdefault("source", "utilization")
        kwargs.setdefault("help_text", "The utilization every cost in this answer assumes, and how to rescale it.")
        super().__init__(read_only=True, **kwargs)

    def to_representation(self, value) -> str:
        return utilization_assumed(value)


class EmptyReasonField(serializers.CharField):
    """Why the answer has no row (accounting.empty_answers), as the view put it in the serializer's context
    (``empty_reason``); null when it has rows. A field added beside the rows: clients that ignore it read the same."""

    def __init__(self, **kwargs):
        kwargs.setdefault(
            "help_text",
            "Why the answer has no row, in words (nothing stored, none by as_of, no price in force then, every one "
            "outside the SLA ...); null when it has rows. Also sent as the X-Empty-Reason header.",
        )
        super().__init__(source="*", read_only=True, allow_null=True, **kwargs)

    def to_representation(self, value) -> str | None:
        return self.context.get("empty_reason")


class WorkloadSerializer(serializers.Serializer):
    id = serializers.CharField()
    title = serializers.CharField()
    model_class = serializers.CharField()
    unit = serializers.ChoiceField(choices=UNITS)
    is_smoke_test = serializers.BooleanField()
    reference_of_model_class = serializers.SerializerMethodField()
    input_tokens_per_request = serializers.DecimalField(max_digits=12, decimal_places=3, allow_null=True)
    output_tokens_per_request = serializers.DecimalField(max_digits=12, decimal_places=3, allow_null=True)

    def get_reference_of_model_class(self, obj) -> bool:
        """True when this is the workload a model_class-only question is answered for."""
        model_class = workloads.MODEL_CLASSES.get(obj.model_class)
        return model_class is not None and model_class.reference_workload == obj.id


class SlaSerializer(serializers.Serializer):
    p99_ms = serializers.DecimalField(max_digits=12, decimal_places=3, allow_null=True)
    ttft_p99_ms = serializers.DecimalField(max_digits=12, decimal_places=3, allow_null=True)
    tpot_p99_ms = serializers.DecimalField(max_digits=12, decimal_places=3, allow_null=True)
    description = serializers.CharField(source="__str__")


class TokenLengthsSerializer(serializers.Serializer):
    input_tokens_per_request = serializers.DecimalField(max_digits=12, decimal_places=3, allow_null=True)
    output_tokens_per_request = serializers.DecimalField(max_digits=12, decimal_places=3, allow_null=True)
    source = serializers.CharField()


class TokenCostSerializer(serializers.Serializer):
    """LLM workloads: the row's figures per 1M output tokens and per 1M total tokens."""

    output_tokens_per_s = serializers.FloatField(source="rates.output_tokens_per_s")
    requests_per_s = serializers.FloatField(source="rates.requests_per_s", allow_null=True)
    total_tokens_per_s = serializers.FloatField(source="rates.total_tokens_per_s", allow_null=True)
    cost_per_million_output_tokens_usd = serializers.DecimalField(**PER_MILLION_USD)
    cost_per_million_total_tokens_usd = serializers.DecimalField(allow_null=True, **PER_MILLION_USD)
    basis = serializers.CharField(source="rates.basis")


class AcceleratorRefSerializer(serializers.Serializer):
    id = serializers.IntegerField(source="pk")
    name = serializers.CharField(source="__str__")


class ChosenPointSerializer(serializers.Serializer):
    id = serializers.IntegerField(source="pk")
    index = serializers.IntegerField()
    batch_size = serializers.IntegerField()
    concurrency = serializers.IntegerField(allow_null=True)
    offered_rate_qps = serializers.FloatField(allow_null=True)
    latency_p50_ms = serializers.FloatField()
    latency_p99_ms = serializers.FloatField()
    ttft_p99_ms = serializers.FloatField(allow_null=True)
    tpot_p99_ms = serializers.FloatField(allow_null=True)
    power_w_mean = serializers.FloatField(allow_null=True)


class RunRefSerializer(serializers.Serializer):
    id = serializers.UUIDField(source="pk")
    workload_name = serializers.CharField()
    scenario = serializers.CharField()
    backend = serializers.CharField()
    precision = serializers.CharField()
    origin = serializers.CharField()
    external_source = serializers.CharField()
    started_at = serializers.DateTimeField()


class PublishedRefSerializer(serializers.ModelSerializer):
    """A published row's provenance: where MLCommons published it and the figure as the result tree states it."""

    class Meta:
        model = PublishedResult
        fields = [
            "round", "division", "submitter", "system", "benchmark", "scenario", "metric", "value", "unit",
            "accelerators_per_system", "source_path", "availability",
        ]  # fmt: skip


class OriginMixin(serializers.Serializer):
    """Where a row's figure came from: origin (the run's field) and its word for people."""

    origin = serializers.CharField(help_text="The run's origin: 'measured', or 'external' for a published result.")
    origin_label = serializers.SerializerMethodField(help_text="'measured' or 'published'.")
    source = serializers.CharField(
        help_text="e.g. 'measured on agent gpu01' or 'published: MLPerf v4.1 closed, Dell, <system>' "
        "(round, division, submitter, system)"
    )

    def get_origin_label(self, obj) -> str:
        return origin_label(obj.origin)


class RankingRowSerializer(OriginMixin):
    rank = serializers.IntegerField()
    accelerator = AcceleratorRefSerializer()
    published = PublishedRefSerializer(allow_null=True, help_text="Published rows: round, division, submitter, ...")
    accelerator_count = serializers.IntegerField(
        help_text="Accelerators the result was measured on: its deployment unit."
    )
    run = RunRefSerializer()
    point = ChosenPointSerializer()
    throughput_per_s = serializers.FloatField()
    latency_p99_ms = serializers.FloatField()
    energy_j_per_inference = serializers.FloatField(allow_null=True)
    hourly = HourlyCostSerializer(source="hourly.as_dict")
    price = PriceSerializer()
    assumptions = OnPremAssumptionsSerializer(allow_null=True)
    cost_per_million_usd = serializers.DecimalField(**PER_MILLION_USD)
    cost_interval_usd = serializers.ListField(
        child=serializers.DecimalField(**PER_MILLION_USD), allow_null=True,
        help_text="(low, high) cost per million at the point's throughput interval over its rounds; null without one.",
    )  # fmt: skip
    tied_with_next = serializers.BooleanField(help_text="Its cost interval overlaps the next row's: a tie.")
    tokens = TokenCostSerializer(allow_null=True)


class InfeasibleRowSerializer(OriginMixin):
    accelerator = AcceleratorRefSerializer()
    accelerator_count = serializers.IntegerField()
    reason = serializers.CharField()
    best_latency_p99_ms = serializers.FloatField(allow_null=True)


class RankingSerializer(serializers.Serializer):
    workload = WorkloadSerializer()
    model_class = serializers.CharField()
    unit = serializers.ChoiceField(choices=UNITS, help_text="What cost_per_million_usd counts a million of.")
    currency = serializers.SerializerMethodField()
    sla = SlaSerializer()
    sla_p99_ms = serializers.DecimalField(max_digits=12, decimal_places=3, allow_null=True)
    token_lengths = TokenLengthsSerializer(allow_null=True)
    price_kind = serializers.CharField()
    utilization = serializers.DecimalField(max_digits=7, decimal_places=6)
    utilization_assumed = UtilizationAssumedField()
    as_of = serializers.DateTimeField()
    rows = RankingRowSerializer(many=True)
    infeasible = InfeasibleRowSerializer(many=True)
    empty_reason = EmptyReasonField()

    def get_currency(self, obj) -> str:
        return "USD"


class CostSeriesQuerySerializer(serializers.Serializer):
    accelerator = serializers.IntegerField(min_value=1, source="accelerator_id")
    workload = serializers.CharField(max_length=64, source="workload_name")
    price_kind = serializers.ChoiceField(choices=PriceKind.choices)
    sla_p99_ms = latency_bound("Whole-request p99 bound of the series; omit (with the TTFT/TPOT ones) for no SLA.")
    ttft_p99_ms = latency_bound("LLM workloads: the series' TTFT p99 bound.")
    tpot_p99_ms = latency_bound("LLM workloads: the series' TPOT p99 bound.")
    since = AsOfField(required=False)


class CostSnapshotSerializer(serializers.Serializer):
    id = serializers.IntegerField()
    workload_name = serializers.CharField()
    effective_at = serializers.DateTimeField()
    cost_per_million_usd = serializers.DecimalField(**PER_MILLION_USD)
    cost_interval_usd = serializers.ListField(
        child=serializers.DecimalField(**PER_MILLION_USD), allow_null=True,
        help_text="(low, high) cost per million at the point's throughput interval over its rounds; null without one "
        "(published results).",
    )  # fmt: skip
    unit = serializers.CharField()
    throughput_per_s = serializers.FloatField()
    latency_p99_ms = serializers.FloatField()
    sla_p99_ms = serializers.DecimalField(max_digits=12, decimal_places=3, allow_null=True)
    sla_ttft_p99_ms = serializers.DecimalField(max_digits=12, decimal_places=3, allow_null=True)
    sla_tpot_p99_ms = serializers.DecimalField(max_digits=12, decimal_places=3, allow_null=True)
    utilization = serializers.DecimalField(max_digits=7, decimal_places=6)
    power_w = serializers.DecimalField(max_digits=12, decimal_places=3, allow_null=True)
    power_source = serializers.CharField()
    capex_usd_per_hour = serializers.DecimalField(max_digits=20, decimal_places=6)
    opex_usd_per_hour = serializers.DecimalField(max_digits=20, decimal_places=6)
    power_usd_per_hour = serializers.DecimalField(max_digits=20, decimal_places=6)
    cloud_usd_per_hour = serializers.DecimalField(max_digits=20, decimal_places=6)
    total_usd_per_hour = serializers.DecimalField(max_digits=20, decimal_places=6)
    run = serializers.UUIDField(source="run_id")
    point = serializers.IntegerField(source="point_id")
    price = serializers.IntegerField(source="price_id")
    provider = serializers.CharField(source="price.provider")
    region = serializers.CharField(source="price.region")
    instance_type = serializers.CharField(source="price.instance_type")
    assumptions = serializers.IntegerField(source="assumptions_id", allow_null=True)
    scenario = serializers.CharField(source="run.scenario")
    backend = serializers.CharField(source="run.backend")
    precision = serializers.CharField(source="run.precision")
