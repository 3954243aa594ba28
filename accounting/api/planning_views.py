"""Recommendations and comparisons: calculations any authenticated user may run (nothing is written)."""

from drf_spectacular.utils import extend_schema
from rest_framework.exceptions import ValidationError
from rest_framework.permissions import IsAuthenticated
from rest_framework.response import Response
from rest_framework.views import APIView

from agents.models import BenchmarkRun

from ..comparisons import ComparisonError, compare
from ..recommendations import cost_per_million_at_load, recommend
from .planning_serializers import (
    ComparisonRequestSerializer,
    ComparisonResponseSerializer,
    RecommendationRequestSerializer,
    RecommendationResponseSerializer,
)


class RecommendationView(APIView):
    """Options to serve a target QPS under a p99 SLA, cheapest per month first, with the optimisation runway."""

    permission_classes = [IsAuthenticated]

    @extend_schema(request=RecommendationRequestSerializer, responses=RecommendationResponseSerializer)
    def post(self, request):
        form = RecommendationRequestSerializer(data=request.data)
        form.is_valid(raise_exception=True)
        data = form.validated_data
        options = recommend(
            model_class=data["model_class"], target_qps=data["target_qps"], sla_p99_ms=data.get("sla_p99_ms"),
            annual_volume=data["annual_volume"], price_kinds=data["price_kinds"],
            max_utilization=data["max_utilization"], budget_usd_per_month=data.get("budget_usd_per_month"),
            as_of=data.get("as_of"), include_external=data["include_external"],
        )  # fmt: skip
        rows = [
            {
                "row": option.row, "capacity": option.capacity, "over_budget": option.over_budget,
                "runway": option.runway,
                "cost_per_million_at_volume_usd": cost_per_million_at_load(
                    option, target_qps=data["target_qps"], annual_volume=data["annual_volume"]
                ),
            }
            for option in options
        ]  # fmt: skip
        body = {"currency": "USD", "max_utilization": data["max_utilization"], "options": rows}
        return Response(RecommendationResponseSerializer(body).data)


def _runs(ids: list, field: str) -> list[BenchmarkRun]:
    runs = list(
        BenchmarkRun.objects.filter(pk__in=ids)
        .select_related("accelerator", "accelerator__priced_as")
        .prefetch_related("points")
    )
    missing = set(ids) - {run.pk for run in runs}
    if missing:
        raise ValidationError({field: [f"unknown run(s): {', '.join(sorted(map(str, missing)))}"]})
    return runs


class ComparisonView(APIView):
    """Cost per million before and after an optimisation, the annual savings, and a quantisation verdict."""

    permission_classes = [IsAuthenticated]

    @extend_schema(request=ComparisonRequestSerializer, responses=ComparisonResponseSerializer)
    def post(self, request):
        form = ComparisonRequestSerializer(data=request.data)
        form.is_valid(raise_exception=True)
        data = form.validated_data
        try:
            result = compare(
                before=_runs(data["before"], "before"), after=_runs(data["after"], "after"),
                price_kind=data["price_kind"], annual_volume=data["annual_volume"],
                sla_p99_ms=data.get("sla_p99_ms"), at=data.get("as_of"),
            )  # fmt: skip
        except ComparisonError as exc:
            raise ValidationError({exc.field: [str(exc)]}) from None
        body = {"currency": "USD", **result.__dict__}
        return Response(ComparisonResponseSerializer(body).data)
