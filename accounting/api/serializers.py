from decimal import Decimal

from rest_framework import serializers

from accounting.pricing import costing
from accounting.pricing.utilization import default_utilization
from hardware_catalog.api.serializers import PriceSerializer
from hardware_catalog.models import Accelerator, OnPremAssumptions, PriceKind

# Every cost per million the API serves: the full stored precision (a cheap workload's $0.000612345678).
PER_MILLION_USD = {"max_digits": costing.PER_MILLION_MAX_DIGITS, "decimal_places": costing.PER_MILLION_DECIMAL_PLACES}


class OnPremAssumptionsSerializer(serializers.ModelSerializer):
    class Meta:
        model = OnPremAssumptions
        fields = [
            "id",
            "name",
            "version",
            "amortization_years",
            "usd_per_kwh",
            "pue",
            "opex_fraction_per_year",
            "host_capex_share_usd",
        ]


def utilization_field(help_text: str = "") -> serializers.DecimalField:
    """The utilization a cost question may state (0 < u <= 1), defaulting to INFERLEDGER_UTILIZATION."""
    return serializers.DecimalField(
        max_digits=7,
        decimal_places=6,
        min_value=Decimal("0.000001"),
        max_value=1,
        default=default_utilization,
        help_text="Share of paid accelerator-hours spent serving; default INFERLEDGER_UTILIZATION (100 % unless "
        "configured)." + (f" {help_text}" if help_text else ""),
    )


class CostEstimateRequestSerializer(serializers.Serializer):
    accelerator = serializers.PrimaryKeyRelatedField(queryset=Accelerator.objects.all())
    price_kind = serializers.ChoiceField(choices=PriceKind.choices)
    throughput_per_s = serializers.DecimalField(max_digits=20, decimal_places=6, min_value=Decimal("0.000001"))
    utilization = utilization_field()
    measured_power_w = serializers.DecimalField(
        max_digits=10, decimal_places=3, min_value=Decimal("0.001"), required=False, allow_null=True
    )
    assumptions = serializers.PrimaryKeyRelatedField(
        queryset=OnPremAssumptions.objects.all(),
        required=False,
        allow_null=True,
        help_text="On-prem assumption set (purchase kind only); default: the latest 'default' version.",
    )
    as_of = serializers.DateTimeField(
        source="at", required=False, allow_null=True, help_text="Price in force at; default now."
    )


class HourlyCostSerializer(serializers.Serializer):
    capex_usd_per_hour = serializers.DecimalField(max_digits=20, decimal_places=6)
    opex_usd_per_hour = serializers.DecimalField(max_digits=20, decimal_places=6)
    power_usd_per_hour = serializers.DecimalField(max_digits=20, decimal_places=6)
    cloud_usd_per_hour = serializers.DecimalField(max_digits=20, decimal_places=6)
    total_usd_per_hour = serializers.DecimalField(max_digits=20, decimal_places=6)
    power_w = serializers.DecimalField(max_digits=12, decimal_places=3, allow_null=True)
    power_source = serializers.CharField()


class CostEstimateResponseSerializer(serializers.Serializer):
    accelerator = serializers.IntegerField()
    accelerator_name = serializers.CharField()
    price_kind = serializers.CharField()
    currency = serializers.CharField()
    throughput_per_s = serializers.DecimalField(max_digits=20, decimal_places=6)
    utilization = serializers.DecimalField(max_digits=7, decimal_places=6)
    utilization_assumed = serializers.CharField(help_text="The utilization the cost assumes, in words.")
    hourly = HourlyCostSerializer()
    cost_per_million_usd = serializers.DecimalField(**PER_MILLION_USD)
    price = PriceSerializer()
    assumptions = OnPremAssumptionsSerializer(allow_null=True)
