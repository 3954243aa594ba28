"""API-wide plumbing: error shape and the v1 router."""

from django.core.exceptions import RequestDataTooBig
from rest_framework import status
from rest_framework.response import Response
from rest_framework.views import exception_handler as drf_exception_handler


def exception_handler(exc, context):
    """DRF's handler, plus a 413 (not a 500) for bodies above DATA_UPLOAD_MAX_MEMORY_SIZE."""
    if isinstance(exc, RequestDataTooBig):
        return Response({"detail": str(exc)}, status=status.HTTP_413_REQUEST_ENTITY_TOO_LARGE)
    return drf_exception_handler(exc, context)
