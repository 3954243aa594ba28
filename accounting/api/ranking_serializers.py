"""Request and response shapes of the rankings and cost-series endpoints."""

from decimal import Decimal

from rest_framework import serializers

from hardware_catalog.api.serializers import PriceSerializer
from hardware_catalog.models import PriceKind
from hardware_catalog.selectors import parse_as_of

from .serializers import HourlyCostSerializer, OnPremAssumptionsSerializer

MODEL_CLASSES = ["cv-classification", "encoder", "llm-decoder", "tabular"]
POSITIVE = Decimal("0.001")


class AsOfField(serializers.CharField):
    """A date (end of that day, UTC) or an ISO-8601 date-time; returned as an aware UTC datetime."""

    def to_internal_value(self, data):
        try:
            return parse_as_of(super().to_internal_value(data))
        except ValueError as exc:
            raise serializers.ValidationError(str(exc)) from None


class RankingQuerySerializer(serializers.Serializer):
    model_class = serializers.ChoiceField(choices=MODEL_CLASSES)
    sla_p99_ms = serializers.DecimalField(
        max_digits=12, decimal_places=3, min_value=POSITIVE, default=None, help_text="Omit for no SLA."
    )
    price_kind = serializers.ChoiceField(choices=PriceKind.choices)
    utilization = serializers.DecimalField(
        max_digits=7, decimal_places=6, min_value=Decimal("0.000001"), max_value=1, default=Decimal("1")
    )
    region = serializers.CharField(required=False, max_length=64)
    provider = serializers.CharField(required=False, max_length=128)
    precision = serializers.CharField(required=False, max_length=16)
    backend = serializers.CharField(required=False, max_length=32)
    as_of = AsOfField(required=False, help_text="YYYY-MM-DD or ISO-8601 date-time; default now.")
    include_external = serializers.BooleanField(default=False, help_text="Include published (MLPerf) results.")


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


class RankingRowSerializer(serializers.Serializer):
    rank = serializers.IntegerField()
    accelerator = AcceleratorRefSerializer()
    origin = serializers.CharField()
    run = RunRefSerializer()
    point = ChosenPointSerializer()
    throughput_per_s = serializers.FloatField()
    latency_p99_ms = serializers.FloatField()
    energy_j_per_inference = serializers.FloatField(allow_null=True)
    hourly = HourlyCostSerializer(source="hourly.as_dict")
    price = PriceSerializer()
    assumptions = OnPremAssumptionsSerializer(allow_null=True)
    cost_per_million_usd = serializers.DecimalField(max_digits=20, decimal_places=4)


class InfeasibleRowSerializer(serializers.Serializer):
    accelerator = AcceleratorRefSerializer()
    origin = serializers.CharField()
    reason = serializers.CharField()
    best_latency_p99_ms = serializers.FloatField(allow_null=True)


class RankingSerializer(serializers.Serializer):
    model_class = serializers.CharField()
    unit = serializers.ChoiceField(choices=["inferences", "output_tokens"])
    currency = serializers.SerializerMethodField()
    sla_p99_ms = serializers.DecimalField(max_digits=12, decimal_places=3, allow_null=True)
    price_kind = serializers.CharField()
    utilization = serializers.DecimalField(max_digits=7, decimal_places=6)
    as_of = serializers.DateTimeField()
    rows = RankingRowSerializer(many=True)
    infeasible = InfeasibleRowSerializer(many=True)

    def get_currency(self, obj) -> str:
        return "USD"


class CostSeriesQuerySerializer(serializers.Serializer):
    accelerator = serializers.IntegerField(min_value=1)
    workload = serializers.CharField(max_length=64)
    price_kind = serializers.ChoiceField(choices=PriceKind.choices)
    sla_p99_ms = serializers.DecimalField(
        max_digits=12, decimal_places=3, min_value=POSITIVE, required=False, help_text="Omit for no SLA."
    )
    since = AsOfField(required=False)


class CostSnapshotSerializer(serializers.Serializer):
    id = serializers.IntegerField()
    effective_at = serializers.DateTimeField()
    cost_per_million_usd = serializers.DecimalField(max_digits=20, decimal_places=4)
    unit = serializers.CharField()
    throughput_per_s = serializers.FloatField()
    latency_p99_ms = serializers.FloatField()
    sla_p99_ms = serializers.DecimalField(max_digits=12, decimal_places=3, allow_null=True)
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
