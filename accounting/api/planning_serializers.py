"""Request and response shapes of the recommendations and comparisons endpoints."""

from decimal import Decimal

from rest_framework import serializers

from hardware_catalog.models import PriceKind

from .ranking_serializers import MODEL_CLASSES, POSITIVE, AsOfField, RankingRowSerializer


class RecommendationRequestSerializer(serializers.Serializer):
    model_class = serializers.ChoiceField(choices=MODEL_CLASSES)
    target_qps = serializers.DecimalField(max_digits=16, decimal_places=3, min_value=POSITIVE)
    sla_p99_ms = serializers.DecimalField(max_digits=12, decimal_places=3, min_value=POSITIVE, required=False)
    annual_volume = serializers.DecimalField(max_digits=24, decimal_places=0, min_value=1)
    price_kinds = serializers.ListField(child=serializers.ChoiceField(choices=PriceKind.choices), min_length=1)
    max_utilization = serializers.DecimalField(
        max_digits=7, decimal_places=6, min_value=Decimal("0.01"), max_value=1, default=Decimal("0.7")
    )
    budget_usd_per_month = serializers.DecimalField(
        max_digits=16, decimal_places=2, min_value=Decimal("0.01"), required=False
    )
    as_of = AsOfField(required=False)
    include_external = serializers.BooleanField(default=False)


class RunwaySerializer(serializers.Serializer):
    roofline_throughput_per_s = serializers.FloatField(allow_null=True)
    bound = serializers.CharField(allow_null=True)
    runway = serializers.FloatField(allow_null=True)
    sentence = serializers.CharField()


class RecommendationOptionSerializer(serializers.Serializer):
    option = RankingRowSerializer(source="row")
    price_kind = serializers.CharField(source="row.price.kind")
    units = serializers.IntegerField(source="capacity.units")
    monthly_usd = serializers.DecimalField(source="capacity.monthly_usd", max_digits=20, decimal_places=2)
    annual_usd = serializers.DecimalField(source="capacity.annual_usd", max_digits=20, decimal_places=2)
    headroom_fraction = serializers.DecimalField(source="capacity.headroom_fraction", max_digits=7, decimal_places=4)
    cost_per_million_at_volume_usd = serializers.DecimalField(max_digits=20, decimal_places=4)
    over_budget = serializers.BooleanField()
    optimisation_runway = RunwaySerializer(source="runway")


class RecommendationResponseSerializer(serializers.Serializer):
    currency = serializers.CharField()
    max_utilization = serializers.DecimalField(max_digits=7, decimal_places=6)
    options = RecommendationOptionSerializer(many=True)


class ComparisonRequestSerializer(serializers.Serializer):
    before = serializers.ListField(child=serializers.UUIDField(), min_length=1, max_length=100)
    after = serializers.ListField(child=serializers.UUIDField(), min_length=1, max_length=100)
    price_kind = serializers.ChoiceField(choices=PriceKind.choices)
    annual_volume = serializers.DecimalField(max_digits=24, decimal_places=0, min_value=1)
    sla_p99_ms = serializers.DecimalField(max_digits=12, decimal_places=3, min_value=POSITIVE, required=False)
    as_of = AsOfField(required=False)


class ComparisonSideSerializer(serializers.Serializer):
    run = serializers.UUIDField(source="run.pk")
    point = serializers.IntegerField(source="point.pk")
    batch_size = serializers.IntegerField(source="point.batch_size")
    latency_p50_ms = serializers.FloatField(source="point.latency_p50_ms")
    latency_p99_ms = serializers.FloatField(source="point.latency_p99_ms")
    cost_per_million_usd = serializers.DecimalField(max_digits=20, decimal_places=4)


class ComparisonResponseSerializer(serializers.Serializer):
    currency = serializers.CharField()
    before = ComparisonSideSerializer()
    after = ComparisonSideSerializer()
    annual_savings_usd = serializers.DecimalField(max_digits=24, decimal_places=2)
    verdict = serializers.ChoiceField(
        choices=["accuracy floor breached", "latency benefit", "memory/concurrency only", "no benefit"]
    )
    explanation = serializers.CharField()
