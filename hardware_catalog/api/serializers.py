from decimal import Decimal

from rest_framework import serializers

from ..models import Accelerator, Price


class AcceleratorSerializer(serializers.ModelSerializer):
    class Meta:
        model = Accelerator
        fields = [
            "id",
            "vendor",
            "model",
            "kind",
            "architecture",
            "form_factor",
            "memory_gib",
            "memory_bandwidth_gbps",
            "fp32_tflops",
            "tf32_tflops_dense",
            "fp16_tflops_dense",
            "bf16_tflops_dense",
            "fp8_tflops_dense",
            "int8_tops_dense",
            "tdp_w",
            "launch_year",
            "vcpu_count",
            "priced_as",
            "source",
        ]


class PriceSerializer(serializers.ModelSerializer):
    price_usd = serializers.DecimalField(
        max_digits=14, decimal_places=6, min_value=Decimal("0.000001"), max_value=Decimal("99999999")
    )
    currency = serializers.SerializerMethodField()
    accelerator_name = serializers.StringRelatedField(source="accelerator")

    class Meta:
        model = Price
        fields = [
            "id",
            "accelerator",
            "accelerator_name",
            "kind",
            "provider",
            "region",
            "instance_type",
            "accelerators_per_instance",
            "price_usd",
            "currency",
            "unit",
            "effective_from",
            "as_of",
            "source",
            "created_at",
        ]
        read_only_fields = ["created_at"]

    def get_currency(self, obj) -> str:
        return "USD"

    def validate(self, attrs):
        if (attrs["kind"] == "purchase") != (attrs["unit"] == "per_unit"):
            raise serializers.ValidationError({"unit": "purchase prices are per_unit; cloud prices per_instance_hour"})
        return attrs
