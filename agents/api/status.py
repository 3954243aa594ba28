"""GET /api/v1/status/: is the control plane working (a control worker heard from), does the broker persist?"""

from drf_spectacular.utils import extend_schema
from rest_framework import serializers
from rest_framework.response import Response
from rest_framework.views import APIView

from ..liveness import control_plane_status


class ControlWorkerStatusSerializer(serializers.Serializer):
    hostname = serializers.CharField()
    status = serializers.CharField(help_text="online, or offline when its heartbeat is older than the timeout")
    started_at = serializers.DateTimeField()
    last_seen_at = serializers.DateTimeField()


class ControlPlaneStatusSerializer(serializers.Serializer):
    control_online = serializers.BooleanField(
        help_text="A control worker ran the periodic heartbeat recently: ingest, reaper and schedules work."
    )
    control_workers = ControlWorkerStatusSerializer(many=True)
    broker_persistence = serializers.DictField(help_text="Redis CONFIG GET appendonly/save, or the error.")
    broker_warning = serializers.CharField(help_text="Why queued jobs could be lost on a broker restart; empty: none.")


class StatusView(APIView):
    """The control plane's liveness and the broker's persistence, as last recorded by a control worker."""

    @extend_schema(responses=ControlPlaneStatusSerializer)
    def get(self, request):
        return Response(ControlPlaneStatusSerializer(control_plane_status()).data)
