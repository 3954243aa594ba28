from drf_spectacular.utils import extend_schema
from rest_framework import status
from rest_framework.permissions import IsAuthenticated
from rest_framework.response import Response
from rest_framework.views import APIView

from ..offerings import NoPriceError, estimate_cost
from .serializers import CostEstimateRequestSerializer, CostEstimateResponseSerializer


class CostEstimateView(APIView):
    """Hourly cost breakdown and cost per million inferences for an accelerator at a stated throughput.

    A calculation, not a write: any authenticated user may call it.
    """

    permission_classes = [IsAuthenticated]

    @extend_schema(request=CostEstimateRequestSerializer, responses=CostEstimateResponseSerializer)
    def post(self, request):
        form = CostEstimateRequestSerializer(data=request.data)
        form.is_valid(raise_exception=True)
        data = form.validated_data
        try:
            estimate = estimate_cost(
                data["accelerator"],
                price_kind=data["price_kind"],
                throughput_per_s=data["throughput_per_s"],
                utilization=data["utilization"],
                measured_power_w=data.get("measured_power_w"),
                at=data.get("as_of"),
                assumptions=data.get("assumptions"),
            )
        except NoPriceError as exc:
            return Response({"price_kind": [str(exc)]}, status=status.HTTP_400_BAD_REQUEST)
        except ValueError as exc:
            return Response({"non_field_errors": [str(exc)]}, status=status.HTTP_400_BAD_REQUEST)
        offer = estimate.offer
        body = {
            "accelerator": offer.accelerator.pk,
            "accelerator_name": str(offer.accelerator),
            "price_kind": offer.price_kind,
            "currency": "USD",
            "throughput_per_s": estimate.throughput_per_s,
            "utilization": estimate.utilization,
            "hourly": offer.hourly.as_dict(),
            "cost_per_million_usd": estimate.cost_per_million_usd,
            "price": offer.price,
            "assumptions": offer.assumptions,
        }
        return Response(CostEstimateResponseSerializer(body).data)
