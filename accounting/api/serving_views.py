"""LLM serving answers: the fronts of a workload, and its ranking at a target interactivity (thin views)."""

from drf_spectacular.utils import extend_schema
from rest_framework.permissions import IsAuthenticated
from rest_framework.renderers import BrowsableAPIRenderer, JSONRenderer
from rest_framework.response import Response
from rest_framework.views import APIView

from accounting.api.answers import AnswerResponse, serving_answer
from accounting.api.empty import EMPTY_REASON_RESPONSE_HEADER, with_empty_reason
from accounting.api.serving_renderers import ServingRankingCSVRenderer
from accounting.api.serving_serializers import (
    FrontSerializer,
    FrontsQuerySerializer,
    ServingPlanRequestSerializer,
    ServingPlanSerializer,
    ServingQuerySerializer,
    ServingRankingSerializer,
    ServingSeriesPointSerializer,
    ServingSeriesQuerySerializer,
)
from accounting.api.validation import refused_as_400, validated, validated_query
from accounting.empty_answers import why_no_fronts
from accounting.serving.planning import cost_series_at, plan
from accounting.serving.points import fronts, llm_workload
from workloads import registry


def _llm_question(serializer_class, data, *, parse=validated) -> dict:
    """The validated parameters of a question about an LLM workload; a 400 under `workload` for any other."""
    params = parse(serializer_class, data)
    with refused_as_400(ValueError, field="workload"):  # UnknownWorkload is a ValueError too
        llm_workload(params["workload"])
    return params


def serving_ranking_response(request) -> Response:
    """The ranking at a target interactivity, cached like every ranking (shared by /rankings/)."""
    if request.accepted_renderer.format == "csv":
        request.accepted_renderer = ServingRankingCSVRenderer()
    params = _llm_question(ServingQuerySerializer, request.query_params, parse=validated_query)
    question = params["question"]
    with refused_as_400(ValueError):
        answer = serving_answer(question)  # cached, shared with the dashboard
    response = with_empty_reason(AnswerResponse(answer), answer.empty_reason)
    if request.accepted_renderer.format == "csv":
        response["Content-Disposition"] = f'attachment; filename="serving-ranking-{params["workload"]}.csv"'
    return response


class ServingRankingView(APIView):
    """LLM hardware by cost per 1M output tokens at a target interactivity (tokens/s per user), read along
    each front by monotone interpolation; each row names the two measured points it lies between, and
    fronts that do not reach the target are listed under `refused` with the reason; an answer with no row says
    why in `empty_reason` (and the X-Empty-Reason header). `?format=csv` for finance."""

    permission_classes = [IsAuthenticated]
    renderer_classes = [JSONRenderer, BrowsableAPIRenderer, ServingRankingCSVRenderer]

    @extend_schema(
        parameters=[ServingQuerySerializer, EMPTY_REASON_RESPONSE_HEADER], responses=ServingRankingSerializer
    )
    def get(self, request):
        return serving_ranking_response(request)


class ServingFrontsView(APIView):
    """Every front of an LLM workload: throughput per accelerator against interactivity per (accelerator,
    backend, precision, origin), with every point left off a front and the reason. An empty list says why in the
    X-Empty-Reason header (the answer stays a list)."""

    permission_classes = [IsAuthenticated]

    @extend_schema(
        parameters=[FrontsQuerySerializer, EMPTY_REASON_RESPONSE_HEADER], responses=FrontSerializer(many=True)
    )
    def get(self, request):
        params = _llm_question(FrontsQuerySerializer, request.query_params)
        found = fronts(**params)
        reason = None
        if not found:
            asked = {name: value for name, value in params.items() if name != "workload"}
            reason = why_no_fronts(registry.get(params["workload"]), **asked)
        return with_empty_reason(Response(FrontSerializer(found, many=True).data), reason)


class ServingPlanView(APIView):
    """How many replicas serve N concurrent users at X tokens/s each (or R requests/s of L output tokens),
    per hardware read at that speed, on each allowed cost basis, cheapest per month first."""

    permission_classes = [IsAuthenticated]

    @extend_schema(request=ServingPlanRequestSerializer, responses=ServingPlanSerializer)
    def post(self, request):
        params = _llm_question(ServingPlanRequestSerializer, request.data)
        demand = {name: params.get(name) for name in ("concurrent_users", "requests_per_s")}
        with refused_as_400(ValueError):
            result = plan(
                params["question"], price_kinds=params["price_kinds"], max_utilization=params["max_utilization"],
                budget_usd_per_month=params.get("budget_usd_per_month"), **demand,
            )  # fmt: skip
        return Response(ServingPlanSerializer(result).data)


class ServingCostSeriesView(APIView):
    """One accelerator's cost per 1M tokens at a target interactivity, at each moment a run of the workload
    or a price of the kind arrived (each read as of then), oldest first."""

    permission_classes = [IsAuthenticated]

    @extend_schema(parameters=[ServingSeriesQuerySerializer], responses=ServingSeriesPointSerializer(many=True))
    def get(self, request):
        params = _llm_question(ServingSeriesQuerySerializer, request.query_params)
        with refused_as_400(ValueError):
            series = cost_series_at(
                params["question"], accelerator_id=params["accelerator_id"], since=params.get("since")
            )
        return Response(ServingSeriesPointSerializer(series, many=True).data)
