"""Recommendations and comparisons: calculations any authenticated user may run (nothing is written)."""

from drf_spectacular.utils import extend_schema
from rest_framework.permissions import IsAuthenticated
from rest_framework.response import Response
from rest_framework.views import APIView

from accounting.api.planning_serializers import (
    ComparisonRequestSerializer,
    ComparisonResponseSerializer,
    RecommendationRequestSerializer,
    RecommendationResponseSerializer,
)
from accounting.api.validation import refused_as_400, validated
from accounting.comparisons import ComparisonError, compare
from accounting.policy import ParameterError
from accounting.recommendation_groups import GROUPED_BY, shown_options
from accounting.recommendations import cost_per_million_at_load, recommend
from accounting.tokens import TargetError


class RecommendationView(APIView):
    """Options to serve a target load of one workload under an SLA, cheapest per month first, in deployment units:
    the best of each accelerator and cost basis (the others counted, and listed with all_options).

    LLM workloads take the target in requests/s (converted with the output tokens per request) or output
    tokens/s, and are bounded by TTFT/TPOT p99; the unit is the fewest accelerators that hold the model, priced
    as the catalog sells a unit of that size.
    """

    permission_classes = [IsAuthenticated]

    @extend_schema(request=RecommendationRequestSerializer, responses=RecommendationResponseSerializer)
    def post(self, request):
        data = validated(RecommendationRequestSerializer, request.data)
        asked = ("target_qps", "target_output_tokens_per_s", "budget_usd_per_month", "concurrent_sequences")
        volume = data.get("annual_volume")
        with refused_as_400(ParameterError, TargetError):
            plan = recommend(
                data["question"], annual_volume=volume, price_kinds=data["price_kinds"],
                max_utilization=data["max_utilization"], include_preview=data["include_preview"],
                **{name: data.get(name) for name in asked},
            )  # fmt: skip
        shown = shown_options(plan.options, all_options=data["all_options"])
        rows = [
            {
                "row": listed.option.row, "capacity": listed.option.capacity, "over_budget": listed.option.over_budget,
                "runway": listed.option.runway, "deployment": listed.option.deployment,
                "unit_assumption": listed.option.unit_assumption, "priced": listed.option.priced,
                "group_size": listed.group_size, "best_in_group": listed.best_in_group,
                "cost_per_million_at_volume_usd": cost_per_million_at_load(
                    listed.option, target_qps=plan.target.throughput_per_s, annual_volume=volume
                ),
            }
            for listed in shown
        ]  # fmt: skip
        body = {
            "workload": plan.workload, "target": plan.target, "token_lengths": plan.token_lengths, "currency": "USD",
            "max_utilization": data["max_utilization"], "annual_volume": volume, "options": rows,
            "grouped_by": GROUPED_BY, "all_options": data["all_options"], "options_total": len(plan.options),
            "options_not_listed": len(plan.options) - len(shown), "left_out": plan.left_out,
        }  # fmt: skip
        return Response(RecommendationResponseSerializer(body).data)


class ComparisonView(APIView):
    """Cost per million before and after an optimisation, the annual savings, and a quantisation verdict."""

    permission_classes = [IsAuthenticated]

    @extend_schema(request=ComparisonRequestSerializer, responses=ComparisonResponseSerializer)
    def post(self, request):
        data = validated(ComparisonRequestSerializer, request.data)
        with refused_as_400(ComparisonError):
            result = compare(
                data["question"], before=data["runs"]["before"], after=data["runs"]["after"],
                annual_volume=data["annual_volume"], scenario=data.get("scenario"),
            )  # fmt: skip
        body = {"currency": "USD", **result.__dict__}
        return Response(ComparisonResponseSerializer(body).data)
