"""Deployments (declare one, staff), their metered periods (read), metering a period on demand (staff)."""

from django.core.exceptions import ValidationError as ModelValidationError
from drf_spectacular.utils import OpenApiResponse, extend_schema, extend_schema_view
from rest_framework import mixins, status, viewsets
from rest_framework.decorators import action
from rest_framework.exceptions import ValidationError
from rest_framework.permissions import IsAdminUser
from rest_framework.response import Response

from accounting.api.alarm_views import ALARM_STATE_PARAMETERS, alarms_in_state
from accounting.errors import FieldError
from accounting.history.alarms import acknowledge

from ..models import Deployment, MeteredAlarm, MeteredPeriod
from ..selectors import monthly_trend
from ..services import MeteringError, deployment_declare, period_meter
from .serializers import (
    DeploymentSerializer,
    MeteredAlarmSerializer,
    MeteredPeriodSerializer,
    MeterRequestSerializer,
    MonthOfMeteringSerializer,
)


class DeploymentViewSet(mixins.CreateModelMixin, viewsets.ReadOnlyModelViewSet):
    """Production deployments metered from their Prometheus, each on its declared hardware and cost basis."""

    queryset = Deployment.objects.select_related("accelerator")
    serializer_class = DeploymentSerializer
    lookup_field = "name"

    def perform_create(self, serializer):
        try:
            serializer.instance = deployment_declare(**serializer.validated_data)
        except (MeteringError, FieldError) as exc:
            raise ValidationError({exc.field: [str(exc)]}) from None
        except ModelValidationError as exc:
            raise ValidationError(exc.message_dict) from None

    @extend_schema(request=MeterRequestSerializer, responses={201: MeteredPeriodSerializer})
    @action(detail=True, methods=["post"])
    def meter(self, request, name=None):
        """Meter [start, end) now (the daily schedule meters each previous UTC day by itself)."""
        asked = MeterRequestSerializer(data=request.data)
        asked.is_valid(raise_exception=True)
        try:
            period = period_meter(deployment=self.get_object(), **asked.validated_data)
        except MeteringError as exc:
            raise ValidationError({exc.field: [str(exc)]}) from None
        return Response(MeteredPeriodSerializer(period).data, status=status.HTTP_201_CREATED)

    @extend_schema(responses={200: MonthOfMeteringSerializer(many=True)})
    @action(detail=True, methods=["get"])
    def trend(self, request, name=None):
        """The metered cost per 1M units month by month (UTC), the benchmark's prediction for the same units beside
        it: the series the Trends page draws."""
        months = monthly_trend(self.get_object())
        return Response(MonthOfMeteringSerializer(months, many=True).data)


class MeteredPeriodViewSet(viewsets.ReadOnlyModelViewSet):
    """What each deployment served and cost, period by period, with the benchmark's prediction beside it."""

    queryset = MeteredPeriod.objects.select_related("deployment")
    serializer_class = MeteredPeriodSerializer
    filterset_fields = ["deployment__name", "unit"]
    ordering_fields = ["end", "cost_per_million_units_usd"]


@extend_schema_view(list=extend_schema(parameters=ALARM_STATE_PARAMETERS))
class MeteredAlarmViewSet(mixins.ListModelMixin, mixins.RetrieveModelMixin, viewsets.GenericViewSet):
    """Metered periods costlier than the deployment's earlier ones beyond the alarm threshold and their interval,
    newest first; `?acknowledged=false` for open ones (neither acknowledged nor withdrawn). Staff acknowledge them."""

    queryset = MeteredAlarm.objects.select_related("period__deployment", "baseline").order_by("-created_at", "-id")
    serializer_class = MeteredAlarmSerializer
    filter_backends: list = []

    def get_queryset(self):
        return alarms_in_state(super().get_queryset(), self.request.query_params)

    @extend_schema(request=None, responses={200: MeteredAlarmSerializer, 403: OpenApiResponse(description="Not staff")})
    @action(detail=True, methods=["post"], permission_classes=[IsAdminUser])
    def ack(self, request, pk=None):
        return Response(MeteredAlarmSerializer(acknowledge(self.get_object(), user=request.user)).data)
