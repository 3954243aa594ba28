from decimal import Decimal

from rest_framework import serializers

from ..models import Accelerator, Price, identity_change_error


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

    def validate(self, attrs):
        if self.instance is not None:
            changes = {
                name: (getattr(self.instance, name), attrs[name])
                for name in Accelerator.IDENTITY_FIELDS
                if name in attrs and attrs[name] != getattr(self.instance, name)
            }
            if changes:
                raise serializers.ValidationError({name: identity_change_error({name: change})
                                                   for name, change in changes.items()})  # fmt: skip
        return attrs


class PriceSerializer(serializers.ModelSerializer):
    price_usd = serializers.DecimalField(
        max_digits=14, decimal_places=6, min_value=Decimal("0.000001"), max_value=Decimal("99999999")
    )
    currency = serializers.SerializerMethodField()
    # No unique validators (here or in Meta): Price.history_error states the rule, naming the row in the way.
    corrects = serializers.PrimaryKeyRelatedField(
        queryset=Price.objects.all(), default=None, allow_null=True, help_text="The stored row this one corrects."
    )
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
            "recorded_by",
            "corrects",
            "correction_reason",
        ]
        read_only_fields = ["created_at", "recorded_by"]
        validators = []
        # The price_accels_ge_1 constraint's rule, checked first: 0 was refused by the database and reported as a
        # duplicate price.
        extra_kwargs = {"accelerators_per_instance": {"min_value": 1}}

    def get_currency(self, obj) -> str:
        return "USD"

    def validate(self, attrs):
        if (attrs["kind"] == "purchase") != (attrs["unit"] == "per_unit"):
            raise serializers.ValidationError({"unit": "purchase prices are per_unit; cloud prices per_instance_hour"})
        # Append-only in time, or an explicit correction: the rule lives on the model (Price.history_error).
        error = Price(**attrs).history_error()
        if error is not None:
            raise serializers.ValidationError({error[0]: error[1]})
        return attrs
