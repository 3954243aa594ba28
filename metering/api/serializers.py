from rest_framework import serializers

from hardware_catalog.models import Accelerator

from ..models import Deployment, MeteredPeriod


class DeploymentSerializer(serializers.ModelSerializer):
    accelerator = serializers.PrimaryKeyRelatedField(queryset=Accelerator.objects.all())
    accelerator_name = serializers.CharField(source="accelerator.__str__", read_only=True)

    class Meta:
        model = Deployment
        fields = [
            "id", "name", "prometheus_url", "selector", "engine", "workload_name", "accelerator",
            "accelerator_name", "accelerator_count", "price_kind", "created_at",
        ]  # fmt: skip
        read_only_fields = ["id", "created_at"]


class MeterRequestSerializer(serializers.Serializer):
    start = serializers.DateTimeField()
    end = serializers.DateTimeField()


class MeteredPeriodSerializer(serializers.ModelSerializer):
    deployment = serializers.SlugRelatedField(slug_field="name", read_only=True)
    period_s = serializers.FloatField(read_only=True)
    gap_usd = serializers.DecimalField(
        max_digits=24, decimal_places=12, read_only=True, allow_null=True,
        help_text="Actual minus predicted cost per million units: the cost of serving below the benchmark's capacity.",
    )  # fmt: skip

    class Meta:
        model = MeteredPeriod
        fields = [
            "id", "deployment", "start", "end", "period_s", "requests", "prompt_tokens", "generation_tokens",
            "unit", "units_served", "counters", "price", "assumptions", "usd_per_accelerator_hour", "cost_usd",
            "cost_per_million_units_usd", "predicted", "predicted_cost_per_million_units_usd", "utilization",
            "gap_usd", "created_at",
        ]  # fmt: skip
        read_only_fields = fields
