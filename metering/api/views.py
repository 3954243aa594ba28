"""Deployments (declare one, staff), their metered periods (read), metering a period on demand (staff)."""

from django.core.exceptions import ValidationError as ModelValidationError
from drf_spectacular.utils import extend_schema
from rest_framework import mixins, status, viewsets
from rest_framework.decorators import action
from rest_framework.exceptions import ValidationError
from rest_framework.response import Response

from accounting.errors import FieldError

from ..models import Deployment, MeteredPeriod
from ..services import MeteringError, deployment_declare, period_meter
from .serializers import DeploymentSerializer, MeteredPeriodSerializer, MeterRequestSerializer


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


class MeteredPeriodViewSet(viewsets.ReadOnlyModelViewSet):
    """What each deployment served and cost, period by period, with the benchmark's prediction beside it."""

    queryset = MeteredPeriod.objects.select_related("deployment")
    serializer_class = MeteredPeriodSerializer
    filterset_fields = ["deployment__name", "unit"]
    ordering_fields = ["end", "cost_per_million_units_usd"]
