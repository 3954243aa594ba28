from drf_spectacular.utils import extend_schema
from rest_framework.permissions import IsAuthenticated
from rest_framework.response import Response
from rest_framework.views import APIView

from accounting.api.serializers import CostEstimateRequestSerializer, CostEstimateResponseSerializer
from accounting.api.validation import refused_as_400, validated
from accounting.pricing.offerings import NoPriceError, estimate_cost
from accounting.pricing.utilization import utilization_assumed


class CostEstimateView(APIView):
    """Hourly cost breakdown and cost per million inferences for an accelerator at a stated throughput.

    A calculation, not a write: any authenticated user may call it.
    """

    permission_classes = [IsAuthenticated]

    @extend_schema(request=CostEstimateRequestSerializer, responses=CostEstimateResponseSerializer)
    def post(self, request):
        data = validated(CostEstimateRequestSerializer, request.data)
        # No price of the kind in force is the price_kind's fault; any other refusal, the question's.
        with refused_as_400(ValueError), refused_as_400(NoPriceError, field="price_kind"):
            estimate = estimate_cost(**data)
        offer = estimate.offer
        body = {
            "accelerator": offer.accelerator.pk,
            "accelerator_name": str(offer.accelerator),
            "price_kind": offer.price_kind,
            "currency": "USD",
            "throughput_per_s": estimate.throughput_per_s,
            "utilization": estimate.utilization,
            "utilization_assumed": utilization_assumed(estimate.utilization),
            "hourly": offer.hourly.as_dict(),
            "cost_per_million_usd": estimate.cost_per_million_usd,
            "price": offer.price,
            "assumptions": offer.assumptions,
        }
        return Response(CostEstimateResponseSerializer(body).data)
