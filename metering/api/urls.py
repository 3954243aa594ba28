from rest_framework.routers import DefaultRouter

from .views import DeploymentViewSet, MeteredAlarmViewSet, MeteredPeriodViewSet

router = DefaultRouter()
router.register("deployments", DeploymentViewSet)
router.register("metered-periods", MeteredPeriodViewSet)
router.register("metered-alarms", MeteredAlarmViewSet)

urlpatterns = router.urls
