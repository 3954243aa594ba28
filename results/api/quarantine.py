"""Read-only API over quarantined payloads: results that failed validation, kept verbatim with the reason."""

from rest_framework import serializers, viewsets

from ..models import QuarantinedPayload


class QuarantinedPayloadSerializer(serializers.ModelSerializer):
    class Meta:
        model = QuarantinedPayload
        fields = ["id", "received_at", "run_id", "source", "reason", "job", "raw"]
        read_only_fields = fields


class QuarantineViewSet(viewsets.ReadOnlyModelViewSet):
    """Result payloads that failed validation, kept verbatim with the reason."""

    queryset = QuarantinedPayload.objects.all()
    serializer_class = QuarantinedPayloadSerializer
    filterset_fields = ["job", "source"]
    ordering_fields = ["received_at"]
