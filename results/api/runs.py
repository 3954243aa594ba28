"""Read-only API over benchmark runs and their operating points (written only by ingest)."""

from datetime import UTC

import django_filters
from django.core.exceptions import ValidationError
from django.db.models import Prefetch
from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import OpenApiParameter, OpenApiResponse, extend_schema, extend_schema_field
from rest_framework import renderers, serializers, viewsets
from rest_framework.decorators import action
from rest_framework.renderers import JSONRenderer
from rest_framework.response import Response
from rest_framework.reverse import reverse

from ..latency_layers import NoLatencyLayers, run_latency_layers
from ..models import BenchmarkRun, OperatingPoint, PublishedResult
from ..point_logs import LOG_KINDS, has_log, log_download, with_log_flags
from .latency_serializers import RunLatencyLayersSerializer, latency_layers_data


class UTCIsoDateTimeField(django_filters.fields.IsoDateTimeField):
    """An ISO-8601 date-time read as UTC. PostgreSQL refuses offsets beyond +-15:59 ("time zone displacement
    out of range") that Python accepts, e.g. +18:40; the same instant in UTC is always fine."""

    def to_python(self, value):
        parsed = super().to_python(value)
        try:
            return parsed.astimezone(UTC) if parsed is not None else None
        except OverflowError:  # the edge of year 1 or 9999, moved out of range by its offset
            raise ValidationError("Enter a date-time between years 1 and 9999 in UTC.", code="invalid") from None


class UTCIsoDateTimeFilter(django_filters.IsoDateTimeFilter):
    field_class = UTCIsoDateTimeField


class RunFilterSet(django_filters.FilterSet):
    workload = django_filters.CharFilter(field_name="workload_name")
    model_class = django_filters.CharFilter()
    scenario = django_filters.CharFilter()
    backend = django_filters.CharFilter()
    precision = django_filters.CharFilter()
    origin = django_filters.CharFilter()
    started_after = UTCIsoDateTimeFilter(field_name="started_at", lookup_expr="gte")
    started_before = UTCIsoDateTimeFilter(field_name="started_at", lookup_expr="lt")
    job = django_filters.UUIDFilter(field_name="job_id")

    class Meta:
        model = BenchmarkRun
        fields = [
            "accelerator",
            "workload",
            "model_class",
            "scenario",
            "backend",
            "precision",
            "origin",
            "job",
            "agent",
        ]


class OperatingPointSerializer(serializers.ModelSerializer):
    loadgen_logs = serializers.SerializerMethodField()

    class Meta:
        model = OperatingPoint
        fields = [
            "index", "batch_size", "concurrency", "offered_rate_qps", "throughput_per_s", "throughput_unit",
            "latency_min_ms", "latency_mean_ms", "latency_p50_ms", "latency_p90_ms", "latency_p95_ms",
            "latency_p99_ms", "latency_p99_9_ms", "latency_max_ms", "query_count", "sample_count",
            "queue_wait_mean_ms", "queue_wait_p99_ms", "batch_formation_mean_ms", "compute_mean_ms",
            "ttft_p50_ms", "ttft_p99_ms", "tpot_p50_ms", "tpot_p99_ms", "output_tokens_per_s",
            "power_w_mean", "energy_j_per_inference", "throughput_low_per_s", "throughput_high_per_s",
            "throughput_interval_confidence", "measurement_valid", "not_valid_reasons", "loadgen_valid",
            "loadgen_reasons", "loadgen_logs", "details",
        ]  # fmt: skip

    @extend_schema_field(
        {
            "type": "object",
            "properties": {kind: {"type": "string", "format": "uri", "nullable": True} for kind in LOG_KINDS},
            "description": "URLs to download LoadGen's summary and detail logs of this point; null where not stored.",
        }
    )
    def get_loadgen_logs(self, point) -> dict:
        request = self.context.get("request")
        return {
            kind: reverse("benchmarkrun-loadgen-log", args=[point.run_id, point.index, kind], request=request)
            if has_log(point, kind)
            else None
            for kind in LOG_KINDS
        }


class PublishedResultSerializer(serializers.ModelSerializer):
    class Meta:
        model = PublishedResult
        fields = [
            "round", "division", "submitter", "system", "system_name", "system_type", "benchmark", "scenario",
            "metric", "value", "unit", "inferred_from", "accelerator_name", "accelerator_variant",
            "accelerators_per_system", "source_path",
        ]  # fmt: skip


class RunSerializer(serializers.ModelSerializer):
    accelerator_name = serializers.StringRelatedField(source="accelerator")
    points = OperatingPointSerializer(many=True, read_only=True)
    published = PublishedResultSerializer(
        read_only=True, allow_null=True, help_text="Where a published (external) run was published; null if measured."
    )

    class Meta:
        model = BenchmarkRun
        fields = [
            "id", "origin", "external_source", "job", "agent", "accelerator", "accelerator_name", "accelerator_count",
            "device_name", "workload_name", "model_class", "size", "scenario", "backend", "precision",
            "parameters", "flops_per_inference", "weight_bytes", "started_at", "finished_at", "loadgen_valid",
            "measurement_valid", "not_valid_reasons", "accuracy_passed", "accuracy", "environment", "settings",
            "telemetry", "ingested_at", "published", "points",
        ]  # fmt: skip


class PlainTextRenderer(renderers.BaseRenderer):
    media_type = "text/plain"
    format = "txt"
    charset = "utf-8"

    def render(self, data, accepted_media_type=None, renderer_context=None):
        return data if isinstance(data, bytes | str) else str(data)


class RunViewSet(viewsets.ReadOnlyModelViewSet):
    """Benchmark runs with their operating points; filter by workload, backend, precision, accelerator …"""

    queryset = BenchmarkRun.objects.select_related("accelerator", "published").prefetch_related(
        Prefetch("points", queryset=with_log_flags(OperatingPoint.objects.all()))
    )
    serializer_class = RunSerializer
    filterset_class = RunFilterSet
    ordering_fields = ["started_at", "ingested_at"]

    @extend_schema(
        parameters=[
            OpenApiParameter("index", int, OpenApiParameter.PATH, description="The operating point's index."),
            OpenApiParameter("kind", str, OpenApiParameter.PATH, enum=list(LOG_KINDS)),
        ],
        responses={(200, "text/plain"): OpenApiTypes.STR, 404: OpenApiResponse(description="No such point or log")},
    )
    @action(
        detail=True,
        url_path=r"points/(?P<index>[0-9]+)/loadgen-(?P<kind>summary|detail)",
        url_name="loadgen-log",
        renderer_classes=[PlainTextRenderer],
        filter_backends=[],
        pagination_class=None,
    )
    def loadgen_log(self, request, pk=None, index=None, kind=None):
        """LoadGen's summary or detail log of one operating point of the run, as LoadGen wrote it."""
        run = self.get_object()  # the run's own permissions and 404
        return log_download(run.pk, int(index), kind)

    @extend_schema(
        responses={
            200: RunLatencyLayersSerializer,
            404: OpenApiResponse(description="No such run"),
            409: OpenApiResponse(description="A published result: no per-request timing to split"),
        },
    )
    @action(detail=True, url_path="latency-layers", url_name="latency-layers", filter_backends=[],
            pagination_class=None)  # fmt: skip
    def latency_layers(self, request, pk=None):
        """Where each point's p99 goes: split into compute, memory, batching/queue and transport, the parts adding
        up to the p99, each with its source (measured for the p99 request, or apportioned): the run page's Pareto
        chart. Rules: harness.latency_layers."""
        run = self.get_object()
        try:
            splits = run_latency_layers(run)
        except NoLatencyLayers as exc:
            return Response({"detail": str(exc)}, status=409)
        labels = [point.label for point in run.points.all()]
        return Response(RunLatencyLayersSerializer(latency_layers_data(run, splits, labels)).data)

    def finalize_response(self, request, response, *args, **kwargs):
        """An error of the log download (401, 404...) is JSON like every API error, not the plain-text
        renderer's str() of a dict (a Python repr)."""
        response = super().finalize_response(request, response, *args, **kwargs)
        if self.action == "loadgen_log" and isinstance(response, Response) and response.status_code >= 400:
            response.accepted_renderer, response.accepted_media_type = JSONRenderer(), JSONRenderer.media_type
        return response
