"""Agents (read-only: they register themselves), jobs (create, cancel), schedules and quarantine."""

import django_filters
from drf_spectacular.utils import OpenApiParameter, OpenApiResponse, extend_schema
from rest_framework import mixins, serializers, status, viewsets
from rest_framework.decorators import action
from rest_framework.exceptions import ValidationError
from rest_framework.response import Response

from inferledger.errors import RETRY_AFTER_S
from workloads import UserWorkloadError

from ..jobs import IdempotencyKeyReused, JobNotSent, job_cancel, job_create, job_create_once
from ..jobspec import JobSpecError
from ..models import Agent, Endpoint, Job, JobSchedule, JobState, RequestTrace, UserWorkload
from ..schedules import schedule_create
from ..traces import TraceDeclarationError, trace_declare
from ..user_workloads import user_workload_declare
from .serializers import (
    AgentSerializer,
    EndpointSerializer,
    JobSerializer,
    RequestTraceSerializer,
    ScheduleSerializer,
    UserWorkloadSerializer,
)

IDEMPOTENCY_HEADER = "Idempotency-Key"
IDEMPOTENCY_KEY_MAX_LENGTH = 200  # Job.idempotency_key's length


class JobNotSentSerializer(serializers.Serializer):
    detail = serializers.CharField()
    job = serializers.UUIDField(help_text="The job that was kept")
    kept = serializers.BooleanField(help_text="True: the job is stored; it is sent when the broker is back")


class JobFilterSet(django_filters.FilterSet):
    agent = django_filters.CharFilter(field_name="agent__name")
    state = django_filters.ChoiceFilter(choices=JobState.choices)

    class Meta:
        model = Job
        fields = ["agent", "state", "schedule"]


class AgentViewSet(viewsets.ReadOnlyModelViewSet):
    """Hosts that run benchmarks; `status` is offline once the heartbeat is older than the stated timeout."""

    queryset = Agent.objects.prefetch_related("accelerators")
    serializer_class = AgentSerializer
    search_fields = ["name", "hostname"]
    ordering_fields = ["name", "last_seen_at"]


class JobViewSet(mixins.CreateModelMixin, viewsets.ReadOnlyModelViewSet):
    """Benchmark jobs: create one (staff) to run on an agent; follow its state and progress; cancel it."""

    queryset = Job.objects.select_related("agent").prefetch_related("runs")
    serializer_class = JobSerializer
    filterset_class = JobFilterSet
    ordering_fields = ["created_at", "state"]

    @extend_schema(
        parameters=[
            OpenApiParameter(
                IDEMPOTENCY_HEADER, str, OpenApiParameter.HEADER, required=False,
                description=f"Up to {IDEMPOTENCY_KEY_MAX_LENGTH} characters of your choosing: a retry with the same "
                "key returns the job the first request created (200) instead of creating another.",
            )  # fmt: skip
        ],
        responses={
            201: JobSerializer, 200: JobSerializer,
            409: OpenApiResponse(description="The Idempotency-Key was used for a job that asked for something else."),
            503: OpenApiResponse(
                response=JobNotSentSerializer,
                description="The broker is unreachable: the job was kept (queued) and is sent when the broker is back. "
                "Do not create it again (a retry with the same Idempotency-Key returns it).",
            ),
        },
    )  # fmt: skip
    def create(self, request, *args, **kwargs):
        """Create a job (staff); with an Idempotency-Key header a retry never creates a second one."""
        serializer = self.get_serializer(data=request.data)
        serializer.is_valid(raise_exception=True)
        key = request.headers.get(IDEMPOTENCY_HEADER, "").strip()
        if len(key) > IDEMPOTENCY_KEY_MAX_LENGTH:
            raise ValidationError({IDEMPOTENCY_HEADER: f"at most {IDEMPOTENCY_KEY_MAX_LENGTH} characters"})
        request_fields = {
            "spec": serializer.spec(),
            "agent": serializer.validated_data.get("agent"),
            "accelerator": serializer.validated_data.get("accelerator"),
            "created_by": request.user,
        }
        try:
            if key:
                job, created = job_create_once(idempotency_key=key, **request_fields)
            else:
                job, created = job_create(**request_fields), True
        except JobSpecError as exc:
            raise ValidationError(exc.errors) from None
        except IdempotencyKeyReused as exc:
            return Response({"detail": str(exc), "job": str(exc.job.pk)}, status=status.HTTP_409_CONFLICT)
        except JobNotSent as exc:
            body = {
                "detail": f"The message broker cannot be reached. Job {exc.job.pk} was kept (queued) and is sent to "
                "its agent when the broker is back; do not create it again.",
                "job": str(exc.job.pk),
                "kept": True,
            }  # fmt: skip
            return Response(
                body, status=status.HTTP_503_SERVICE_UNAVAILABLE, headers={"Retry-After": str(RETRY_AFTER_S)}
            )
        job = Job.objects.select_related("agent").prefetch_related("runs").get(pk=job.pk)
        return Response(
            self.get_serializer(job).data, status=status.HTTP_201_CREATED if created else status.HTTP_200_OK
        )

    @extend_schema(request=None, responses={200: JobSerializer, 409: None})
    @action(detail=True, methods=["post"])
    def cancel(self, request, pk=None):
        """Cancel a queued or running job (its agent stops it); 409 when it has already finished."""
        job = self.get_object()
        if not job_cancel(job=job, by=request.user.get_username()):
            return Response({"detail": f"job is already {job.state}"}, status=status.HTTP_409_CONFLICT)
        job.refresh_from_db()
        return Response(self.get_serializer(job).data)


class ScheduleViewSet(mixins.CreateModelMixin, mixins.DestroyModelMixin, viewsets.ReadOnlyModelViewSet):
    """Schedules (stored for celery beat); each firing creates an ordinary job. Timing is edited in the admin."""

    queryset = JobSchedule.objects.select_related("periodic_task__interval", "periodic_task__crontab", "agent")
    serializer_class = ScheduleSerializer
    ordering_fields = ["name", "created_at"]

    def perform_create(self, serializer):
        data = serializer.validated_data
        try:
            serializer.instance = schedule_create(
                name=data["name"],
                spec=serializer.spec(),
                agent=data.get("agent"),
                accelerator=data.get("accelerator"),
                every_s=data.get("every_s"),
                crontab=data.get("crontab", ""),
            )
        except JobSpecError as exc:
            raise ValidationError(exc.errors) from None

    def perform_destroy(self, instance):
        instance.periodic_task.delete()  # cascades to the schedule


class EndpointViewSet(
    mixins.CreateModelMixin, mixins.UpdateModelMixin, mixins.DestroyModelMixin, viewsets.ReadOnlyModelViewSet
):
    """Running inference servers to benchmark (jobs name one in ``endpoint``); the API key is write-only."""

    queryset = Endpoint.objects.all()
    serializer_class = EndpointSerializer
    ordering_fields = ["name", "created_at"]


class UserWorkloadViewSet(mixins.CreateModelMixin, viewsets.ReadOnlyModelViewSet):
    """Users' model files declared for jobs (a job names one in ``user_workload``); its runs are ``user:<name>``.

    A declaration is checked as a whole (400 naming each bad field, e.g. ``inputs[0].shape``); the file is on
    the agent host and is checked there when a job runs. Declarations are not edited: declare another name.
    """

    queryset = UserWorkload.objects.all()
    serializer_class = UserWorkloadSerializer
    ordering_fields = ["name", "created_at"]

    def perform_create(self, serializer):
        try:
            serializer.instance = user_workload_declare(serializer.declaration())
        except UserWorkloadError as exc:
            raise ValidationError(exc.by_field()) from None


class RequestTraceViewSet(mixins.CreateModelMixin, viewsets.ReadOnlyModelViewSet):
    """Request traces declared for jobs (a job names one in ``trace``, beside an ``endpoint``); its runs are
    ``trace:<name>`` and rank only against runs of the same trace.

    A malformed trace is refused whole with a 400 naming its line and field (under ``content``). Declarations are
    not edited: declare another name.
    """

    queryset = RequestTrace.objects.all()
    serializer_class = RequestTraceSerializer
    ordering_fields = ["name", "created_at"]

    def perform_create(self, serializer):
        data = serializer.validated_data
        try:
            serializer.instance = trace_declare(
                name=data["name"], format=data["format"], content=data["content"], title=data.get("title", "")
            )
        except TraceDeclarationError as exc:
            raise ValidationError(exc.errors) from None
