from django.urls import path
from rest_framework.routers import DefaultRouter

from .status import StatusView
from .views import (
    AgentViewSet,
    EndpointViewSet,
    JobViewSet,
    RequestTraceViewSet,
    ScheduleViewSet,
    UserWorkloadViewSet,
)

router = DefaultRouter()
router.register("agents", AgentViewSet)
router.register("endpoints", EndpointViewSet)
router.register("jobs", JobViewSet)
router.register("schedules", ScheduleViewSet)
router.register("traces", RequestTraceViewSet)
router.register("user-workloads", UserWorkloadViewSet)

urlpatterns = [path("status/", StatusView.as_view(), name="status"), *router.urls]
