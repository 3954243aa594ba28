from rest_framework import serializers

from hardware_catalog.models import Accelerator

from ..models import Deployment, MeteredAlarm, MeteredPeriod


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


class MeteredAlarmSerializer(serializers.ModelSerializer):
    deployment = serializers.SlugRelatedField(source="period.deployment", slug_field="name", read_only=True)
    cost_per_million_units_usd = serializers.DecimalField(
        source="period.cost_per_million_units_usd", max_digits=24, decimal_places=12, read_only=True
    )
    baseline_cost_per_million_units_usd = serializers.DecimalField(
        source="baseline.cost_per_million_units_usd", max_digits=24, decimal_places=12, read_only=True
    )

    class Meta:
        model = MeteredAlarm
        fields = [
            "id", "deployment", "period", "baseline", "cost_per_million_units_usd",
            "baseline_cost_per_million_units_usd", "window_size", "threshold_fraction", "change_fraction",
            "baseline_interval_low_usd", "baseline_interval_high_usd", "attribution", "explanation", "created_at",
            "acknowledged_at", "withdrawn_at", "withdrawn_reason",
        ]  # fmt: skip
        read_only_fields = fields


class MonthOfMeteringSerializer(serializers.Serializer):
    """One month of a deployment's metered cost, with the benchmark's prediction for the same units beside it."""

    month = serializers.CharField(help_text="YYYY-MM (UTC): the periods that started in it.")
    unit = serializers.CharField()
    cost_usd = serializers.DecimalField(max_digits=24, decimal_places=6)
    units_served = serializers.DecimalField(max_digits=30, decimal_places=3)
    hours_metered = serializers.DecimalField(max_digits=20, decimal_places=6)
    cost_per_million_units_usd = serializers.DecimalField(max_digits=24, decimal_places=12, allow_null=True)
    predicted_cost_per_million_units_usd = serializers.DecimalField(
        max_digits=24, decimal_places=12, allow_null=True,
        help_text="Each period's benchmark figure weighted by the units it served (null: no period has one).",
    )  # fmt: skip
    periods = serializers.ListField(child=serializers.IntegerField(), source="period_ids", help_text="Counted.")
    periods_predicted = serializers.SerializerMethodField(help_text="How many of the periods have a prediction.")
    overlapping = serializers.ListField(
        child=serializers.IntegerField(), source="overlapping_ids",
        help_text="Periods left out: they repeat hours already counted.",
    )  # fmt: skip
    alarms = serializers.ListField(child=serializers.IntegerField(), source="alarm_ids")

    def get_periods_predicted(self, month) -> int:
        return len(month.predicted)
