"""Read-only API over quarantined payloads: refused results, kept with the reason (results/quarantine.py).

The list carries each entry's size and digest, never its raw text (a few forged 50 MB payloads made one
page 150 MB); one entry, read by staff, carries the raw text up to DETAIL_RAW_MAX_CHARS.
"""

from drf_spectacular.utils import extend_schema, extend_schema_view
from rest_framework import serializers, viewsets

from ..models import QuarantinedPayload
from ..quarantine import DETAIL_RAW_MAX_CHARS

SUMMARY_FIELDS = ["id", "received_at", "run_id", "source", "reason", "job", "raw_size_bytes", "raw_sha256",
                  "raw_truncated"]  # fmt: skip


class QuarantinedPayloadSerializer(serializers.ModelSerializer):
    class Meta:
        model = QuarantinedPayload
        fields = SUMMARY_FIELDS
        read_only_fields = fields


class QuarantinedPayloadDetailSerializer(QuarantinedPayloadSerializer):
    raw = serializers.SerializerMethodField(
        help_text=f"The stored text (NULs escaped as \\u0000), at most its first {DETAIL_RAW_MAX_CHARS:,} characters."
    )
    raw_shown_whole = serializers.SerializerMethodField(
        help_text="Whether `raw` is the whole payload (not a prefix kept for an unverified sender, not cut here)."
    )

    class Meta(QuarantinedPayloadSerializer.Meta):
        fields = [*SUMMARY_FIELDS, "raw", "raw_shown_whole"]
        read_only_fields = fields

    def get_raw(self, entry) -> str:
        return entry.raw[:DETAIL_RAW_MAX_CHARS]

    def get_raw_shown_whole(self, entry) -> bool:
        return not entry.raw_truncated and len(entry.raw) <= DETAIL_RAW_MAX_CHARS


@extend_schema_view(
    retrieve=extend_schema(
        responses=QuarantinedPayloadDetailSerializer,
        description="One entry; `raw` and `raw_shown_whole` for staff only.",
    )
)
class QuarantineViewSet(viewsets.ReadOnlyModelViewSet):
    """Result payloads that were refused, kept with the reason, the size and digest of what was received."""

    queryset = QuarantinedPayload.objects.defer("raw")
    serializer_class = QuarantinedPayloadSerializer
    filterset_fields = ["job", "source"]
    ordering_fields = ["received_at"]

    def get_queryset(self):
        if self.action == "retrieve" and self.request.user.is_staff:
            return QuarantinedPayload.objects.all()
        return super().get_queryset()

    def get_serializer_class(self):
        if self.action == "retrieve" and getattr(self.request.user, "is_staff", False):
            return QuarantinedPayloadDetailSerializer
        return QuarantinedPayloadSerializer
