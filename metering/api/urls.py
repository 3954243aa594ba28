from rest_framework.routers import DefaultRouter

from .views import DeploymentViewSet, MeteredPeriodViewSet

router = DefaultRouter()
router.register("deployments", DeploymentViewSet)
router.register("metered-periods", MeteredPeriodViewSet)

urlpatterns = router.urls
