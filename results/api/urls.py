from rest_framework.routers import DefaultRouter

from .quarantine import QuarantineViewSet
from .runs import RunViewSet

router = DefaultRouter()
router.register("runs", RunViewSet)
router.register("quarantine", QuarantineViewSet)

urlpatterns = router.urls
