"""API-wide plumbing: the error shape of every API response."""

import logging

from django.core.exceptions import RequestDataTooBig
from django.db.models import ProtectedError, RestrictedError
from rest_framework import status
from rest_framework.response import Response
from rest_framework.views import exception_handler as drf_exception_handler

from .errors import RETRY_AFTER_S, body_too_large_detail, in_use_detail, unavailable_detail, unavailable_service

logger = logging.getLogger(__name__)


def exception_handler(exc, context):
    """DRF's handler, plus what would otherwise be a 500: 413 for a body above DATA_UPLOAD_MAX_MEMORY_SIZE,
    409 for deleting a row others still refer to, 503 while the database, cache or broker is unreachable."""
    if isinstance(exc, RequestDataTooBig):
        return Response({"detail": body_too_large_detail()}, status=status.HTTP_413_REQUEST_ENTITY_TOO_LARGE)
    if isinstance(exc, ProtectedError | RestrictedError):
        return Response({"detail": in_use_detail(exc)}, status=status.HTTP_409_CONFLICT)
    service = unavailable_service(exc)
    if service is not None:
        request = context.get("request")
        logger.error("%s %s: %s unavailable", request.method if request else "", request.path if request else "",
                     service, exc_info=exc)  # fmt: skip
        response = Response({"detail": unavailable_detail(service)}, status=status.HTTP_503_SERVICE_UNAVAILABLE)
        response["Retry-After"] = str(RETRY_AFTER_S)
        return response
    return drf_exception_handler(exc, context)
