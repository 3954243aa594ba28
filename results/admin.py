from django.contrib import admin

from .models import BenchmarkRun, OperatingPoint, QuarantinedPayload


@admin.register(QuarantinedPayload)
class QuarantinedPayloadAdmin(admin.ModelAdmin):
    list_display = ["received_at", "source", "run_id", "job", "reason", "raw_size_bytes", "raw_truncated"]
    list_filter = ["source", "raw_truncated"]
    search_fields = ["reason", "run_id", "raw_sha256"]
    readonly_fields = ["received_at", "run_id", "source", "reason", "raw_size_bytes", "raw_sha256", "raw_truncated",
                       "raw", "job"]  # fmt: skip

    def get_queryset(self, request):
        return super().get_queryset(request).defer("raw")  # the change list shows sizes, not bodies

    def has_add_permission(self, request):
        return False

    def has_change_permission(self, request, obj=None):
        return False


class OperatingPointInline(admin.TabularInline):
    model = OperatingPoint
    fields = ("index", "batch_size", "offered_rate_qps", "throughput_per_s", "latency_p50_ms", "latency_p99_ms",
              "loadgen_valid")  # fmt: skip
    readonly_fields = fields
    extra = 0
    can_delete = False

    def has_add_permission(self, request, obj=None):
        return False


@admin.register(BenchmarkRun)
class BenchmarkRunAdmin(admin.ModelAdmin):
    """Runs are measurements: viewable, never edited (ingest writes them once)."""

    list_display = ["workload_name", "scenario", "backend", "precision", "accelerator", "origin", "loadgen_valid",
                    "started_at"]  # fmt: skip
    list_filter = ["model_class", "scenario", "backend", "precision", "origin", "loadgen_valid"]
    search_fields = ["workload_name", "device_name", "id"]
    date_hierarchy = "started_at"
    inlines = [OperatingPointInline]

    def has_add_permission(self, request):
        return False

    def has_change_permission(self, request, obj=None):
        return False
