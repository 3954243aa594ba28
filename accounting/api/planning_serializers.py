"""Request and response shapes of the recommendations and comparisons endpoints."""

from decimal import Decimal

from rest_framework import serializers

from accounting.api.ranking_serializers import (
    POSITIVE,
    AsksCostQuestion,
    AsOfField,
    PublishedQueryMixin,
    RankingRowSerializer,
    SlaSerializer,
    TokenLengthsSerializer,
    UtilizationAssumedField,
    WorkloadQueryMixin,
    WorkloadSerializer,
    latency_bound,
    token_length,
)
from accounting.api.serializers import PER_MILLION_USD, utilization_field
from accounting.comparisons import DEFAULTS, VERDICTS, common_workload
from hardware_catalog.models import PriceKind
from results.models import BenchmarkRun


# What a capacity plan is bought under: the cost bases, how full a replica may run, the monthly budget, when
# (the recommendation and the LLM serving plan ask the same; a comment, not a docstring, which the schema
# would show as the description of every request that uses it).
class CapacityPlanMixin(serializers.Serializer):
    price_kinds = serializers.ListField(child=serializers.ChoiceField(choices=PriceKind.choices), min_length=1)
    max_utilization = serializers.DecimalField(
        max_digits=7, decimal_places=6, min_value=Decimal("0.01"), max_value=1, default=Decimal("0.7")
    )
    budget_usd_per_month = serializers.DecimalField(
        max_digits=16, decimal_places=2, min_value=Decimal("0.01"), required=False
    )
    as_of = AsOfField(required=False)


# A plan's cost question (accounting.question), asked on the first of its `price_kinds`; the plan asks the same
# question again on each (CostQuestion.priced_as). A comment, as above.
class AsksPlanQuestion(AsksCostQuestion):
    def question_parameters(self, attrs: dict) -> dict:
        return {**super().question_parameters(attrs), "price_kind": attrs["price_kinds"][0]}


class RecommendationRequestSerializer(AsksPlanQuestion, PublishedQueryMixin, WorkloadQueryMixin, CapacityPlanMixin):
    target_qps = serializers.DecimalField(
        max_digits=16, decimal_places=3, min_value=POSITIVE, required=False,
        help_text="Target rate in requests/s (inferences or samples/s; for LLM workloads requests/s, converted to "
        "output tokens/s with output_tokens_per_request). Give this or target_output_tokens_per_s.",
    )  # fmt: skip
    target_output_tokens_per_s = serializers.DecimalField(
        max_digits=20, decimal_places=3, min_value=POSITIVE, required=False,
        help_text="LLM workloads: the target stated in output tokens/s instead of requests/s.",
    )  # fmt: skip
    input_tokens_per_request = token_length("LLM workloads: mean input tokens per request; default the workload's.")
    output_tokens_per_request = token_length(
        "LLM workloads: mean output tokens per request (converts target_qps); default the workload's."
    )
    annual_volume = serializers.DecimalField(
        max_digits=24, decimal_places=0, min_value=1, required=False,
        help_text="Units of work served a year: prices the volume (cost_per_million_at_volume_usd). Optional: the "
        "fleet (units, monthly cost) is sized from the target rate alone.",
    )  # fmt: skip
    all_options = serializers.BooleanField(
        default=False,
        help_text="List every option. By default the best (cheapest per month) option of each accelerator and cost "
        "basis (price kind) is listed, each with the size of its group (group_size).",
    )
    concurrent_sequences = serializers.IntegerField(
        min_value=1, max_value=100_000, required=False,
        help_text="LLM workloads: sequences one unit serves at once, which sizes its KV cache; default 32.",
    )  # fmt: skip
    include_preview = serializers.BooleanField(
        default=False,
        help_text="Include published results of preview systems (not yet available when submitted); left out of "
        "purchase advice by default, listed under left_out with the reason.",
    )


class RunwaySerializer(serializers.Serializer):
    roofline_throughput_per_s = serializers.FloatField(allow_null=True)
    bound = serializers.CharField(allow_null=True)
    runway = serializers.FloatField(allow_null=True)
    sentence = serializers.CharField()


class RecommendationOptionSerializer(serializers.Serializer):
    option = RankingRowSerializer(source="row")
    price_kind = serializers.CharField(source="row.price.kind")
    deployment = serializers.CharField(help_text="e.g. '2 x 4-accelerator NVIDIA H100 SXM5 80GB units (8 in all)'")
    unit_assumption = serializers.CharField(
        help_text="Why the unit has its size and how it is sold, e.g. '1 x NVIDIA L40S: ResNet-50 v1.5 fits in one "
        "accelerator (...); scaled from the 4-accelerator measured result; sold as ...'."
    )
    units = serializers.IntegerField(source="capacity.units", help_text="Deployment units.")
    accelerators_per_unit = serializers.IntegerField(
        source="capacity.accelerators_per_unit",
        help_text="Accelerators per unit: the fewest that hold the model (weights at the run's precision, plus the "
        "KV cache for LLMs) in the accelerator's memory.",
    )
    unit_price_row = serializers.IntegerField(source="priced.offer.price.pk", help_text="The price row the unit used.")
    unit_sold_as = serializers.CharField(source="priced.sold_as")
    unit_usd_per_hour = serializers.DecimalField(source="priced.usd_per_hour", max_digits=20, decimal_places=6)
    accelerators = serializers.IntegerField(source="capacity.accelerators")
    monthly_usd = serializers.DecimalField(source="capacity.monthly_usd", max_digits=20, decimal_places=2)
    annual_usd = serializers.DecimalField(
        source="capacity.annual_usd", max_digits=20, decimal_places=2, help_text="The fleet's cost for a year."
    )
    headroom_fraction = serializers.DecimalField(source="capacity.headroom_fraction", max_digits=7, decimal_places=4)
    cost_per_million_at_volume_usd = serializers.DecimalField(
        **PER_MILLION_USD, allow_null=True,
        help_text="The fleet's annual cost per million units of work served at annual_volume; null without one.",
    )  # fmt: skip
    over_budget = serializers.BooleanField()
    optimisation_runway = RunwaySerializer(source="runway")
    group_size = serializers.IntegerField(
        help_text="Options of this accelerator and cost basis (price kind), this one included."
    )
    best_in_group = serializers.BooleanField(
        help_text="Whether this is the cheapest option of its accelerator and cost basis (always, unless all_options)."
    )


class LeftOutSerializer(serializers.Serializer):
    option = RankingRowSerializer(source="row")
    reason = serializers.CharField()


class TargetSerializer(serializers.Serializer):
    throughput_per_s = serializers.DecimalField(max_digits=24, decimal_places=6, help_text="In the workload's unit.")
    basis = serializers.CharField()


class RecommendationResponseSerializer(serializers.Serializer):
    workload = WorkloadSerializer()
    target = TargetSerializer()
    token_lengths = TokenLengthsSerializer(allow_null=True)
    currency = serializers.CharField()
    max_utilization = serializers.DecimalField(max_digits=7, decimal_places=6)
    annual_volume = serializers.DecimalField(max_digits=24, decimal_places=0, allow_null=True)
    options = RecommendationOptionSerializer(
        many=True, help_text="Cheapest per month first: the best of each accelerator and cost basis, or every option "
        "with all_options.",
    )  # fmt: skip
    grouped_by = serializers.CharField(help_text="What one listed option stands for unless all_options.")
    all_options = serializers.BooleanField()
    options_total = serializers.IntegerField(help_text="Options found, listed or not.")
    options_not_listed = serializers.IntegerField(
        help_text="Options not listed (dearer ones of a listed option's group): all_options=true lists them."
    )
    left_out = LeftOutSerializer(many=True, help_text="Ranked rows left out of the advice, each with the reason.")


def stored_runs(ids: list, field: str) -> list[BenchmarkRun]:
    """The runs with these ids (their accelerators and points read with them); unknown ids are a 400 under `field`."""
    runs = list(
        BenchmarkRun.objects.filter(pk__in=ids)
        .select_related("accelerator", "accelerator__priced_as")
        .prefetch_related("points")
    )
    missing = set(ids) - {run.pk for run in runs}
    if missing:
        raise serializers.ValidationError({field: [f"unknown run(s): {', '.join(sorted(map(str, missing)))}"]})
    return runs


# The validated data carries the stored runs (`runs`: before and after) and `question`, the cost question they are
# compared under (comparisons.comparison_question: the workload both sets measure, the SLA, cost basis,
# utilization and as-of), asked once by AsksCostQuestion. A comment: the schema shows a docstring.
class ComparisonRequestSerializer(AsksCostQuestion):
    before = serializers.ListField(child=serializers.UUIDField(), min_length=1, max_length=100)
    after = serializers.ListField(child=serializers.UUIDField(), min_length=1, max_length=100)
    price_kind = serializers.ChoiceField(choices=PriceKind.choices, default=DEFAULTS.price_kind)
    annual_volume = serializers.DecimalField(
        max_digits=24, decimal_places=0, min_value=1, default=Decimal(DEFAULTS.annual_volume)
    )
    # Without any bound, the workload's reference SLA (the compare page's default); no_sla: none at all.
    no_sla = serializers.BooleanField(
        default=False, help_text="Compare at best throughput with no SLA (default: the workload's reference SLA)."
    )
    sla_p99_ms = latency_bound("Whole-request p99 bound (non-LLM workloads).")
    ttft_p99_ms = latency_bound("LLM workloads: TTFT p99 bound.")
    tpot_p99_ms = latency_bound("LLM workloads: TPOT p99 bound.")
    as_of = AsOfField(required=False)
    scenario = serializers.CharField(
        required=False, max_length=32,
        help_text="The scenario to compare in; both sets must have measured it. Default: the shared scenario in "
        "which the before set is cheapest.",
    )  # fmt: skip
    utilization = utilization_field("The answer states the one it assumed (utilization_assumed).")

    def validate(self, attrs):
        attrs["runs"] = {side: stored_runs(attrs[side], side) for side in ("before", "after")}
        return super().validate(attrs)

    def question_parameters(self, attrs: dict) -> dict:
        asked = super().question_parameters(attrs)
        return {"workload": common_workload(attrs["runs"]["before"], attrs["runs"]["after"]),
                "reference_sla_by_default": not attrs["no_sla"], **asked}  # fmt: skip


class ComparisonSideSerializer(serializers.Serializer):
    run = serializers.UUIDField(source="run.pk")
    accelerator = serializers.CharField(source="run.accelerator")
    point = serializers.IntegerField(source="point.pk")
    batch_size = serializers.IntegerField(source="point.batch_size")
    latency_p50_ms = serializers.FloatField(source="point.latency_p50_ms")
    latency_p99_ms = serializers.FloatField(source="point.latency_p99_ms")
    cost_per_million_usd = serializers.DecimalField(**PER_MILLION_USD)


class ComparisonResponseSerializer(serializers.Serializer):
    workload = WorkloadSerializer()
    sla = SlaSerializer()
    scenario = serializers.CharField(help_text="The one scenario both sides are costed in (like with like).")
    shared_scenarios = serializers.ListField(
        child=serializers.CharField(), help_text="Every scenario both sets measured (each can be asked for)."
    )
    currency = serializers.CharField()
    before = ComparisonSideSerializer()
    after = ComparisonSideSerializer()
    utilization = serializers.DecimalField(max_digits=7, decimal_places=6)
    utilization_assumed = UtilizationAssumedField()
    annual_savings_usd = serializers.DecimalField(max_digits=24, decimal_places=2)
    verdict = serializers.ChoiceField(choices=VERDICTS)
    explanation = serializers.CharField()
