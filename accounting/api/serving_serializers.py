"""Request and response shapes of the LLM serving answers: fronts, and the ranking at a target interactivity."""

from decimal import Decimal

from rest_framework import serializers

from accounting import policy
from accounting.api.planning_serializers import AsksPlanQuestion, CapacityPlanMixin
from accounting.api.ranking_serializers import (
    AcceleratorRefSerializer,
    AsksCostQuestion,
    AsOfField,
    EmptyReasonField,
    OfferFiltersMixin,
    PublishedQueryMixin,
    UtilizationAssumedField,
    published_field,
)
from accounting.api.serializers import PER_MILLION_USD, HourlyCostSerializer, OnPremAssumptionsSerializer
from hardware_catalog.api.serializers import PriceSerializer
from hardware_catalog.models import PriceKind

POSITIVE = Decimal("0.001")


def _positive(help_text: str, **kwargs):
    return serializers.DecimalField(
        max_digits=12, decimal_places=3, min_value=POSITIVE, required=False, help_text=help_text, **kwargs
    )


class ServingQuerySerializer(AsksCostQuestion, PublishedQueryMixin, OfferFiltersMixin):
    workload = serializers.CharField(max_length=64, help_text="An LLM workload id of the registry, e.g. llama2-70b-99.")
    interactivity_tps_per_user = _positive("Target tokens/s per user (1000 / TPOT ms).")
    ttft_p99_ms = _positive("With tpot_p99_ms: read on the front of the points meeting TTFT p99 <= this.")
    tpot_p99_ms = _positive("With ttft_p99_ms: the target interactivity is 1000 / this (the stricter of the two).")
    input_tokens_per_request = _positive(
        "Mean input tokens per request for input/total costs; default: the workload's."
    )
    asks_serving = True


class ServingPointSerializer(serializers.Serializer):
    """A measured or published point, as the front and the readings use it."""

    key = serializers.CharField()
    label = serializers.CharField()
    run = serializers.UUIDField(source="extra.point.run_id")
    point = serializers.IntegerField(source="extra.point.pk")
    runs = serializers.SerializerMethodField(help_text="Every run behind the point (several when runs were combined).")
    scenario = serializers.CharField()
    interactivity_tps_per_user = serializers.FloatField(allow_null=True)
    interactivity_source = serializers.CharField(allow_null=True)
    tpot_ms = serializers.FloatField(allow_null=True)
    ttft_p99_ms = serializers.FloatField(allow_null=True)
    output_tokens_per_s_per_accelerator = serializers.FloatField()
    accelerators_per_replica = serializers.IntegerField()

    def get_runs(self, obj) -> list[str]:
        return [str(extra["point"].run_id) for extra in obj.extra.get("runs") or [obj.extra]]


class ExcludedPointSerializer(serializers.Serializer):
    point = ServingPointSerializer()
    reason = serializers.CharField()

    def to_representation(self, instance):
        point, reason = instance  # (ServingPoint, why it is off the front)
        return super().to_representation({"point": point, "reason": reason})


class FrontSerializer(serializers.Serializer):
    accelerator = AcceleratorRefSerializer()
    backend = serializers.CharField()
    precision = serializers.CharField()
    origin = serializers.CharField()
    points = ServingPointSerializer(
        source="front.points", many=True, help_text="Pareto-efficient, rising interactivity."
    )
    excluded = ExcludedPointSerializer(source="front.excluded", many=True, help_text="Every other point, with why.")


class FrontsQuerySerializer(PublishedQueryMixin):
    """Every front: published ones by default too (the fronts are not a ranking; `published=fill` hides the
    published fronts of measured accelerators)."""

    workload = serializers.CharField(max_length=64, help_text="An LLM workload id of the registry.")
    precision = serializers.CharField(required=False, max_length=16)
    backend = serializers.CharField(required=False, max_length=32)
    as_of = AsOfField(required=False, help_text="YYYY-MM-DD or ISO-8601 date-time; default now.")
    published = published_field(policy.Published.ALL)


class TokenCostsSerializer(serializers.Serializer):
    cost_per_million_output_tokens_usd = serializers.DecimalField(source="output_usd_per_million", **PER_MILLION_USD)
    cost_per_million_input_tokens_usd = serializers.DecimalField(
        source="input_usd_per_million", allow_null=True, **PER_MILLION_USD
    )
    cost_per_million_total_tokens_usd = serializers.DecimalField(
        source="total_usd_per_million", allow_null=True, **PER_MILLION_USD
    )
    input_total_refused = serializers.CharField(help_text="Why input/total costs are missing, when they are.")
    output_cost_interval_usd = serializers.ListField(
        source="output_interval_usd_per_million", child=serializers.DecimalField(**PER_MILLION_USD), allow_null=True
    )
    total_cost_interval_usd = serializers.ListField(
        source="total_interval_usd_per_million", child=serializers.DecimalField(**PER_MILLION_USD), allow_null=True
    )


class BasisCostSerializer(serializers.Serializer):
    price_kind = serializers.CharField()
    hourly = HourlyCostSerializer(source="hourly.as_dict")
    price = PriceSerializer()
    assumptions = OnPremAssumptionsSerializer(allow_null=True)
    costs = TokenCostsSerializer()


class EnergySerializer(serializers.Serializer):
    power_w_per_accelerator = serializers.FloatField()
    power_source = serializers.CharField(help_text="'measured', or 'tdp' when the figure uses the TDP.")
    output_tokens_per_joule = serializers.FloatField()
    output_tokens_per_s_per_mw = serializers.FloatField()


class ServingRowSerializer(serializers.Serializer):
    rank = serializers.IntegerField()
    tied_with_next = serializers.BooleanField(help_text="Its cost interval overlaps the next row's.")
    tie_group = serializers.IntegerField()
    accelerator = AcceleratorRefSerializer(source="group.accelerator")
    backend = serializers.CharField(source="group.backend")
    precision = serializers.CharField(source="group.precision")
    origin = serializers.CharField(source="group.origin")
    output_tokens_per_s_per_accelerator = serializers.FloatField(source="reading.output_tokens_per_s_per_accelerator")
    output_tokens_per_s_interval = serializers.ListField(
        source="reading.interval", child=serializers.FloatField(), allow_null=True
    )
    accelerators_per_replica = serializers.IntegerField(source="reading.accelerators_per_replica")
    exact = serializers.BooleanField(source="reading.exact", help_text="The target is a measured point's.")
    interpolated_from = ServingPointSerializer(source="reading.lower", help_text="Bracketing point at or below.")
    interpolated_to = ServingPointSerializer(source="reading.upper", help_text="Bracketing point at or above.")
    method = serializers.CharField(source="reading.method")
    price_kind = serializers.CharField(source="basis.price_kind")
    hourly = HourlyCostSerializer(source="basis.hourly.as_dict")
    price = PriceSerializer(source="basis.price")
    assumptions = OnPremAssumptionsSerializer(source="basis.assumptions", allow_null=True)
    costs = TokenCostsSerializer(source="basis.costs")
    other_bases = BasisCostSerializer(many=True, help_text="The same reading on every other cost basis in force.")
    energy = EnergySerializer(allow_null=True)
    output_tokens_per_request = serializers.DecimalField(max_digits=12, decimal_places=2, allow_null=True)


class ServingRefusalSerializer(serializers.Serializer):
    accelerator = AcceleratorRefSerializer(source="group.accelerator")
    backend = serializers.CharField(source="group.backend")
    precision = serializers.CharField(source="group.precision")
    origin = serializers.CharField(source="group.origin")
    reason = serializers.CharField()
    interactivity_range = serializers.ListField(
        source="group.front.interactivity_range", child=serializers.FloatField(), allow_null=True
    )


class WorkloadRefSerializer(serializers.Serializer):
    id = serializers.CharField()
    title = serializers.CharField()
    unit = serializers.CharField()


class ServingRankingSerializer(serializers.Serializer):
    workload = WorkloadRefSerializer()
    currency = serializers.SerializerMethodField()
    target_interactivity_tps_per_user = serializers.FloatField()
    ttft_p99_ms = serializers.FloatField(allow_null=True)
    tpot_p99_ms = serializers.FloatField(allow_null=True)
    price_kind = serializers.CharField()
    utilization = serializers.DecimalField(max_digits=7, decimal_places=6)
    utilization_assumed = UtilizationAssumedField()
    as_of = serializers.DateTimeField()
    input_tokens_per_request = serializers.DecimalField(max_digits=12, decimal_places=3, allow_null=True)
    interpolation_method = serializers.CharField()
    interval_method = serializers.CharField()
    rows = ServingRowSerializer(many=True)
    refused = ServingRefusalSerializer(many=True)
    empty_reason = EmptyReasonField()

    def get_currency(self, obj) -> str:
        return "USD"


# The validated data carries `question` (the SLA, speed, token lengths, as_of and published rule: AsksPlanQuestion)
# beside the demand. A comment, not a docstring, which the schema would show as the request's description.
class ServingPlanRequestSerializer(AsksPlanQuestion, PublishedQueryMixin, CapacityPlanMixin):
    workload = serializers.CharField(max_length=64, help_text="An LLM workload id of the registry.")
    interactivity_tps_per_user = _positive("Tokens/s each user gets (1000 / TPOT ms).")
    ttft_p99_ms = _positive("With tpot_p99_ms: read on the points meeting TTFT p99 <= this.")
    tpot_p99_ms = _positive("With ttft_p99_ms: the speed is at least 1000 / this.")
    concurrent_users = serializers.IntegerField(min_value=1, required=False, help_text="N users streaming at once.")
    requests_per_s = _positive("Or: R requests/s ...")
    output_tokens_per_request = _positive("... of this many output tokens each.")
    input_tokens_per_request = _positive("Mean input tokens per request (input/total costs).")
    asks_serving = True

    def validate(self, attrs):
        attrs = super().validate(attrs)
        by_users = "concurrent_users" in attrs
        by_requests = "requests_per_s" in attrs and "output_tokens_per_request" in attrs
        if by_users == by_requests:
            raise serializers.ValidationError(
                {
                    "concurrent_users": "state the demand one way: concurrent_users, or requests_per_s and "
                    "output_tokens_per_request"
                }
            )
        if by_users and "interactivity_tps_per_user" not in attrs:
            raise serializers.ValidationError(
                {"interactivity_tps_per_user": "concurrent_users needs the speed each user gets"}
            )
        return attrs


class ServingOptionSerializer(serializers.Serializer):
    option = ServingRowSerializer(source="row")
    price_kind = serializers.CharField()
    hourly_usd_per_accelerator = serializers.DecimalField(max_digits=20, decimal_places=6)
    replicas = serializers.IntegerField(source="capacity.replicas")
    accelerators_per_replica = serializers.IntegerField(source="capacity.accelerators_per_replica")
    accelerators = serializers.IntegerField(source="capacity.accelerators")
    monthly_usd = serializers.DecimalField(source="capacity.monthly_usd", max_digits=20, decimal_places=2)
    annual_usd = serializers.DecimalField(source="capacity.annual_usd", max_digits=20, decimal_places=2)
    headroom_fraction = serializers.DecimalField(source="capacity.headroom_fraction", max_digits=7, decimal_places=4)
    over_budget = serializers.BooleanField()
    unit_assumption = serializers.CharField(help_text="Why a replica has its size, and how it is sold.")
    unit_price_row = serializers.IntegerField(source="priced.offer.price.pk", help_text="The price row a replica used.")


class ServingPlanSerializer(serializers.Serializer):
    currency = serializers.SerializerMethodField()
    demand_output_tokens_per_s = serializers.DecimalField(max_digits=24, decimal_places=3)
    demand_rule = serializers.CharField()
    target_interactivity_tps_per_user = serializers.FloatField(source="ranking.target_interactivity_tps_per_user")
    options = ServingOptionSerializer(many=True)
    refused = ServingRefusalSerializer(source="ranking.refused", many=True)

    def get_currency(self, obj) -> str:
        return "USD"


class ServingSeriesQuerySerializer(AsksCostQuestion):
    accelerator = serializers.IntegerField(min_value=1, source="accelerator_id")
    workload = serializers.CharField(max_length=64, help_text="An LLM workload id of the registry.")
    price_kind = serializers.ChoiceField(choices=PriceKind.choices)
    interactivity_tps_per_user = serializers.DecimalField(
        max_digits=12, decimal_places=3, min_value=POSITIVE, help_text="Target tokens/s per user (1000 / TPOT ms)."
    )
    input_tokens_per_request = _positive("Mean input tokens per request (input/total costs).")
    since = AsOfField(required=False)
    asks_serving = True


class ServingSeriesPointSerializer(serializers.Serializer):
    at = serializers.DateTimeField()
    cause = serializers.ChoiceField(choices=["run", "price"], help_text="What changed at this moment.")
    reading = ServingRowSerializer(source="row", allow_null=True)
    reason = serializers.CharField(help_text="Why there is no reading at this moment, when there is none.")
