from django.urls import path

from .views import CostEstimateView

urlpatterns = [
    path("cost-estimate/", CostEstimateView.as_view(), name="cost-estimate"),
]
