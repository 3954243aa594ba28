from rest_framework.routers import DefaultRouter

from .views import AcceleratorViewSet, PriceViewSet

router = DefaultRouter()
router.register("accelerators", AcceleratorViewSet)
router.register("prices", PriceViewSet)

urlpatterns = router.urls
