from django.urls import path
from rest_framework.routers import SimpleRouter

from accounting.api.alarm_views import CostAlarmViewSet
from accounting.api.planning_views import ComparisonView, RecommendationView
from accounting.api.ranking_views import CostSeriesView, rankings_address
from accounting.api.serving_views import ServingCostSeriesView, ServingFrontsView, ServingPlanView, ServingRankingView
from accounting.api.views import CostEstimateView

router = SimpleRouter()
router.register("alarms", CostAlarmViewSet, basename="alarm")

urlpatterns = [
    path("cost-estimate/", CostEstimateView.as_view(), name="cost-estimate"),
    path("rankings/", rankings_address, name="rankings"),
    path("cost-series/", CostSeriesView.as_view(), name="cost-series"),
    path("recommendations/", RecommendationView.as_view(), name="recommendations"),
    path("comparisons/", ComparisonView.as_view(), name="comparisons"),
    path("serving/ranking/", ServingRankingView.as_view(), name="serving-ranking"),
    path("serving/fronts/", ServingFrontsView.as_view(), name="serving-fronts"),
    path("serving/plan/", ServingPlanView.as_view(), name="serving-plan"),
    path("serving/cost-series/", ServingCostSeriesView.as_view(), name="serving-cost-series"),
    *router.urls,
]
