from django import forms
from django.conf import settings
from django.contrib import admin, messages

from workloads import UserWorkloadError

from .jobs import job_cancel, job_spec, job_submit, spec_for_agent
from .jobspec import spec_errors
from .models import Agent, Job, JobSchedule, RequestTrace, UserWorkload
from .user_workloads import user_workload_validate


@admin.register(Agent)
class AgentAdmin(admin.ModelAdmin):
    """Agents register themselves; the admin shows them (and can delete a retired one)."""

    list_display = ["name", "hostname", "status", "last_seen_at", "first_seen_at", "refused_reports"]
    search_fields = ["name", "hostname"]
    readonly_fields = ["name", "hostname", "queue", "devices", "accelerators", "versions", "enrolled_at",
                       "first_seen_at", "last_seen_at", "refused_reports", "last_refused_at",
                       "last_refused_reason"]  # fmt: skip

    def has_add_permission(self, request):
        return False


class SpecForm(forms.ModelForm):
    """Checks the spec against the harness's registries, naming the bad field."""

    def clean(self):
        cleaned = super().clean()
        spec = spec_for_agent(job_spec(forms.models.construct_instance(self, self._meta.model())))
        for field, message in spec_errors(spec, time_limit_max_s=settings.INFERLEDGER_JOB_TIME_LIMIT_MAX_S).items():
            self.add_error(field if field in self.fields else None, message)
        return cleaned


SPEC_ADMIN_FIELDS = ["suite", "workloads", "sizes", "scenarios", "backends", "precisions", "offline_batch_sizes",
                     "server_load_fractions", "min_duration_ms", "min_query_count", "rounds", "time_limit_s", "agent",
                     "accelerator", "endpoint", "server_rates_qps", "concurrency_max", "ttft_slo_ms",
                     "tpot_slo_ms", "user_workload", "trace", "trace_mode", "time_scale"]  # fmt: skip


@admin.register(Job)
class JobAdmin(admin.ModelAdmin):
    form = SpecForm
    list_display = ["id", "agent", "suite", "state", "progress_pct", "attempts", "created_at", "finished_at"]
    list_filter = ["state", "agent"]
    readonly_fields = ["state", "attempts", "error", "progress_pct", "current_point", "skips", "created_at",
                       "started_at", "finished_at", "deadline_at", "schedule", "slot_start", "created_by"]  # fmt: skip
    actions = ["cancel"]

    def get_fields(self, request, obj=None):
        return SPEC_ADMIN_FIELDS + (self.readonly_fields if obj else [])

    def get_readonly_fields(self, request, obj=None):
        return SPEC_ADMIN_FIELDS + self.readonly_fields if obj else []

    def save_model(self, request, obj, form, change):
        if change:
            return  # a submitted job is never edited: cancel it and create another
        obj.created_by = request.user
        job_submit(obj)

    @admin.action(description="Cancel the selected jobs")
    def cancel(self, request, queryset):
        cancelled = sum(job_cancel(job=job, by=request.user.get_username()) for job in queryset)
        self.message_user(request, f"{cancelled} job(s) cancelled", messages.SUCCESS)


@admin.register(JobSchedule)
class JobScheduleAdmin(admin.ModelAdmin):
    """The spec and target; the timing (interval or crontab, enabled) is edited on the linked periodic task."""

    form = SpecForm
    list_display = ["name", "agent", "accelerator", "suite", "periodic_task"]
    fields = ["name", *SPEC_ADMIN_FIELDS, "periodic_task"]
    readonly_fields = ["periodic_task"]

    def has_add_permission(self, request):
        return False  # created through the API or seeded per agent, so the periodic task is wired up


class UserWorkloadForm(forms.ModelForm):
    """Checks the declaration as the API does (workloads.user), each error on its field (``inputs[0].shape``
    on ``inputs``, with the full path in the message)."""

    def clean(self):
        cleaned = super().clean()
        declaration = UserWorkload(**{name: cleaned.get(name) for name in UserWorkload.DECLARATION_FIELDS}).as_spec()
        try:
            user_workload_validate(declaration)
        except UserWorkloadError as exc:
            for field, message in exc.errors:
                top = field.split(".")[0].split("[")[0]
                self.add_error(top if top in self.fields else None, f"{field}: {message}")
        return cleaned


@admin.register(UserWorkload)
class UserWorkloadAdmin(admin.ModelAdmin):
    """Declared once, never edited (its runs would mix two models): add another name, delete an unused one."""

    form = UserWorkloadForm
    list_display = ["name", "format", "unit", "path", "created_at"]
    search_fields = ["name", "path"]

    def get_readonly_fields(self, request, obj=None):
        return [*UserWorkload.DECLARATION_FIELDS, "created_at"] if obj else ["created_at"]


@admin.register(RequestTrace)
class RequestTraceAdmin(admin.ModelAdmin):
    """Declared through the API or ``manage.py declare_trace`` (its file parsed and its distributions stated once);
    never edited (its runs would mix two traces)."""

    list_display = ["name", "format", "sha256", "created_at"]
    search_fields = ["name", "title"]
    readonly_fields = ["name", "title", "format", "sha256", "distributions", "created_at"]
    exclude = ["content"]

    def has_add_permission(self, request):
        return False

    def has_change_permission(self, request, obj=None):
        return False
