from django.db import IntegrityError
from rest_framework import mixins, viewsets
from rest_framework.exceptions import ValidationError

from ..filtersets import AcceleratorFilterSet, PriceFilterSet
from ..models import Accelerator, Price
from .serializers import AcceleratorSerializer, PriceSerializer


class AcceleratorViewSet(viewsets.ModelViewSet):
    queryset = Accelerator.objects.all()
    serializer_class = AcceleratorSerializer
    filterset_class = AcceleratorFilterSet
    search_fields = ["model", "vendor"]
    ordering_fields = ["vendor", "model", "launch_year", "memory_gib"]


class PriceViewSet(mixins.CreateModelMixin, viewsets.ReadOnlyModelViewSet):
    """Prices are history: they can be listed and added, never changed or deleted."""

    queryset = Price.objects.select_related("accelerator")
    serializer_class = PriceSerializer
    filterset_class = PriceFilterSet
    ordering_fields = ["effective_from", "price_usd"]

    def perform_create(self, serializer):
        try:
            serializer.save(recorded_by=self.request.user.get_username())
        except IntegrityError as exc:
            if "price_offering_effective_unique" not in str(exc):
                raise  # another constraint: a rule the serializer must state, not a duplicate
            raise ValidationError(
                {"effective_from": "a price for this offering at this effective_from already exists"}
            ) from None
