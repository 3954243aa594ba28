"""Cost regression alarms: list, read and acknowledge (thin views over accounting.history.alarms)."""

from drf_spectacular.utils import OpenApiParameter, OpenApiResponse, extend_schema, extend_schema_view
from rest_framework import mixins, serializers, viewsets
from rest_framework.decorators import action
from rest_framework.permissions import IsAdminUser
from rest_framework.response import Response

from accounting.api.serializers import PER_MILLION_USD
from accounting.history.alarms import acknowledge
from accounting.models import CostAlarm


class CostAlarmSerializer(serializers.ModelSerializer):
    accelerator = serializers.IntegerField(source="snapshot.accelerator_id", read_only=True)
    workload_name = serializers.CharField(source="snapshot.workload_name", read_only=True)
    price_kind = serializers.CharField(source="snapshot.price_kind", read_only=True)
    utilization = serializers.DecimalField(
        source="snapshot.utilization", max_digits=7, decimal_places=6, read_only=True
    )
    sla_p99_ms = serializers.DecimalField(
        source="snapshot.sla_p99_ms", max_digits=12, decimal_places=3, read_only=True, allow_null=True
    )
    sla_ttft_p99_ms = serializers.DecimalField(
        source="snapshot.sla_ttft_p99_ms", max_digits=12, decimal_places=3, read_only=True, allow_null=True
    )
    sla_tpot_p99_ms = serializers.DecimalField(
        source="snapshot.sla_tpot_p99_ms", max_digits=12, decimal_places=3, read_only=True, allow_null=True
    )
    sla = serializers.CharField(source="snapshot.sla_label", read_only=True, help_text="The SLA, in words.")
    cost_basis = serializers.CharField(
        source="snapshot.cost_basis", read_only=True, help_text="Price kind and utilization, in words."
    )
    cost_per_million_usd = serializers.DecimalField(
        source="snapshot.cost_per_million_usd", read_only=True, **PER_MILLION_USD
    )
    baseline_cost_per_million_usd = serializers.DecimalField(
        source="baseline.cost_per_million_usd", read_only=True, **PER_MILLION_USD
    )
    cost_interval_usd = serializers.ListField(
        source="snapshot.cost_interval_usd", child=serializers.DecimalField(**PER_MILLION_USD), read_only=True,
        allow_null=True, help_text="(low, high) cost per million of the snapshot over its point's rounds; null: none.",
    )  # fmt: skip
    baseline_cost_interval_usd = serializers.ListField(
        source="baseline.cost_interval_usd", child=serializers.DecimalField(**PER_MILLION_USD), read_only=True,
        allow_null=True, help_text="(low, high) cost per million of the baseline over its point's rounds; null: none.",
    )  # fmt: skip
    run = serializers.UUIDField(source="snapshot.run_id", read_only=True)
    baseline_run = serializers.UUIDField(source="baseline.run_id", read_only=True)
    price = serializers.IntegerField(source="snapshot.price_id", read_only=True)
    baseline_price = serializers.IntegerField(source="baseline.price_id", read_only=True)

    class Meta:
        model = CostAlarm
        fields = [
            "id", "snapshot", "baseline", "accelerator", "workload_name", "sla", "sla_p99_ms", "sla_ttft_p99_ms",
            "sla_tpot_p99_ms", "cost_basis", "price_kind", "utilization", "cost_per_million_usd",
            "baseline_cost_per_million_usd", "cost_interval_usd", "baseline_cost_interval_usd", "change_fraction",
            "threshold_fraction", "window_size", "attribution", "explanation", "run", "baseline_run", "price",
            "baseline_price", "created_at", "acknowledged_at", "acknowledged_by", "withdrawn_at", "withdrawn_reason",
        ]  # fmt: skip
        read_only_fields = fields


# How an alarm list is narrowed by state: the cost alarms' here, and the metered deployments' (metering.api).
ALARM_STATE_PARAMETERS = [
    OpenApiParameter("acknowledged", bool, description="false: open alarms; true: acknowledged ones"),
    OpenApiParameter(
        "withdrawn",
        bool,
        description="true: alarms the current rules no longer raise (manage.py "
        "recheck_alarms), with `withdrawn_reason`; false: the rest. Default: both.",
    ),
]


def alarms_in_state(queryset, query_params):
    """The alarms ALARM_STATE_PARAMETERS ask for: `?acknowledged=false` alone is the open ones, neither acknowledged
    nor withdrawn."""
    acknowledged = query_params.get("acknowledged")
    if acknowledged in ("true", "false"):
        queryset = queryset.filter(acknowledged_at__isnull=acknowledged == "false")
    withdrawn = query_params.get("withdrawn")
    if withdrawn in ("true", "false"):
        queryset = queryset.filter(withdrawn_at__isnull=withdrawn == "false")
    elif acknowledged == "false":
        queryset = queryset.filter(withdrawn_at__isnull=True)  # open: nobody needs to act on a withdrawn one
    return queryset


@extend_schema_view(list=extend_schema(parameters=ALARM_STATE_PARAMETERS))
class CostAlarmViewSet(mixins.ListModelMixin, mixins.RetrieveModelMixin, viewsets.GenericViewSet):
    """Regression alarms, newest first; `?acknowledged=false` for open ones (neither acknowledged nor
    withdrawn). Staff acknowledge them."""

    queryset = CostAlarm.objects.select_related("snapshot", "baseline").order_by("-created_at", "-id")
    serializer_class = CostAlarmSerializer
    filter_backends = []

    def get_queryset(self):
        return alarms_in_state(super().get_queryset(), self.request.query_params)

    @extend_schema(request=None, responses={200: CostAlarmSerializer, 403: OpenApiResponse(description="Not staff")})
    @action(detail=True, methods=["post"], permission_classes=[IsAdminUser])
    def ack(self, request, pk=None):
        return Response(CostAlarmSerializer(acknowledge(self.get_object(), user=request.user)).data)
