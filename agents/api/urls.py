from rest_framework.routers import DefaultRouter

from .views import AgentViewSet, JobViewSet, QuarantineViewSet, ScheduleViewSet

router = DefaultRouter()
router.register("agents", AgentViewSet)
router.register("jobs", JobViewSet)
router.register("schedules", ScheduleViewSet)
router.register("quarantine", QuarantineViewSet)

urlpatterns = router.urls
