"""Rankings and cost series: thin views over accounting.rankings.ranking, one API class per operation."""

from drf_spectacular.utils import OpenApiParameter, extend_schema
from rest_framework.permissions import IsAuthenticated
from rest_framework.renderers import BrowsableAPIRenderer, JSONRenderer
from rest_framework.response import Response
from rest_framework.views import APIView

from accounting.api.answers import AnswerResponse, ranking_answer
from accounting.api.empty import EMPTY_REASON_RESPONSE_HEADER, with_empty_reason
from accounting.api.ranking_serializers import (
    CostSeriesQuerySerializer,
    CostSnapshotSerializer,
    RankingQuerySerializer,
    RankingSerializer,
)
from accounting.api.renderers import RankingCSVRenderer
from accounting.api.serving_views import ServingRankingView
from accounting.api.validation import refused_as_400, validated, validated_query
from accounting.policy import ParameterError
from accounting.rankings.ranking import cost_series

LEGACY_INTERACTIVITY_PARAMETER = OpenApiParameter(
    "interactivity_tps_per_user", float, required=False, deprecated=True,
    description="Older address of GET /api/v1/serving/ranking/ (LLM workloads): with this parameter the answer is "
    "that endpoint's (each Pareto front read at this many output tokens/s per user, costs per 1M "
    "output/input/total tokens; its parameters apply). Ask /api/v1/serving/ranking/ instead.",
)  # fmt: skip


class RankingView(APIView):
    """Hardware ranked for ONE workload by cost per million units of work under an SLA.

    `workload` names it (default: the reference workload of `model_class`; the response names it). LLM
    workloads are costed per 1M output tokens (and per 1M total tokens) under TTFT/TPOT p99 bounds; other
    workloads under a whole-request p99 bound. `?format=csv` returns the same ranking as CSV. Hardware
    that cannot meet the SLA, or has no price of the kind in force, is listed under `infeasible` with the reason;
    an answer with no row says why in `empty_reason` (and the X-Empty-Reason header).
    """

    permission_classes = [IsAuthenticated]
    renderer_classes = [JSONRenderer, BrowsableAPIRenderer, RankingCSVRenderer]

    @extend_schema(
        parameters=[RankingQuerySerializer, LEGACY_INTERACTIVITY_PARAMETER, EMPTY_REASON_RESPONSE_HEADER],
        responses=RankingSerializer,
    )
    def get(self, request):
        question = validated_query(RankingQuerySerializer, request.query_params)["question"]
        with refused_as_400(ParameterError):
            answer = ranking_answer(question)  # cached, shared with the dashboard
        response = with_empty_reason(AnswerResponse(answer), answer.empty_reason)
        if request.accepted_renderer.format == "csv":
            response["Content-Disposition"] = f'attachment; filename="ranking-{question.workload.id}.csv"'
        return response


_ranking_view = RankingView.as_view()
_serving_ranking_view = ServingRankingView.as_view()


def rankings_address(request, *args, **kwargs):
    """GET /api/v1/rankings/: the ranking (RankingView); with `interactivity_tps_per_user`, its older address of
    the serving ranking (ServingRankingView), kept answering the same for old links and scripts. Each view
    answers one operation; this only routes the one address to them."""
    view = _serving_ranking_view if "interactivity_tps_per_user" in request.GET else _ranking_view
    return view(request, *args, **kwargs)


# The schema documents the address as RankingView (its legacy parameter marked deprecated there).
rankings_address.cls = RankingView
rankings_address.initkwargs = {}
rankings_address.csrf_exempt = True


class CostSeriesView(APIView):
    """The cost history of one accelerator's workload under one price kind and SLA (snapshots), per 1M units of work."""

    permission_classes = [IsAuthenticated]

    @extend_schema(parameters=[CostSeriesQuerySerializer], responses=CostSnapshotSerializer(many=True))
    def get(self, request):
        snapshots = cost_series(**validated(CostSeriesQuerySerializer, request.query_params))
        return Response(CostSnapshotSerializer(snapshots, many=True).data)
