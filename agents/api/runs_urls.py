from rest_framework.routers import DefaultRouter

from .runs import RunViewSet

router = DefaultRouter()
router.register("runs", RunViewSet)

urlpatterns = router.urls
