"""Error responses that name the problem: 503 when a backing service is down, 409 for a row still in use,
413 for a body over the limit. Shared by the API's exception handler, a middleware and the error views.

A request never answers 500 for these: a database, cache or broker outage is the service being
unavailable (503, with Retry-After), not a bug; deleting a row others refer to is a conflict (409).
"""

from __future__ import annotations

import logging
import sys

import kombu.exceptions
import redis.exceptions
from django.conf import settings
from django.db import InterfaceError, OperationalError
from django.db.models import ProtectedError, RestrictedError
from django.http import HttpResponse, JsonResponse
from django.views import defaults

logger = logging.getLogger(__name__)

RETRY_AFTER_S = 30
# Which service an exception says is down. Their messages can name hosts and ports: logged, never shown.
UNAVAILABLE = (
    ((OperationalError, InterfaceError), "the database"),
    ((redis.exceptions.ConnectionError, redis.exceptions.TimeoutError), "the cache"),
    ((kombu.exceptions.OperationalError,), "the message broker"),
)


def unavailable_service(exc: BaseException) -> str | None:
    """The backing service whose outage ``exc`` reports, or None for any other exception."""
    for classes, service in UNAVAILABLE:
        if isinstance(exc, classes):
            return service
    return None


def unavailable_detail(service: str) -> str:
    return f"Service unavailable: {service} cannot be reached. Nothing was changed; retry in a moment."


def body_too_large_detail() -> str:
    """The one wording of the body-size limit, for the API, the parser and the error views."""
    limit = settings.DATA_UPLOAD_MAX_MEMORY_SIZE
    return f"Request body too large: the limit is {limit} bytes (DATA_UPLOAD_MAX_MEMORY_SIZE)."


def in_use_detail(exc: ProtectedError | RestrictedError) -> str:
    """'still referenced by 3 prices, 1 benchmark run': what must go before this row can be deleted."""
    counts: dict[str, int] = {}
    for obj in exc.protected_objects if isinstance(exc, ProtectedError) else exc.restricted_objects:
        meta = obj._meta
        counts[str(meta.verbose_name_plural)] = counts.get(str(meta.verbose_name_plural), 0) + 1
    referrers = ", ".join(f"{n} {name}" for name, n in sorted(counts.items()))
    return f"Cannot delete: still referenced by {referrers}. Delete or reassign those first."


def _is_api(request) -> bool:
    return request.path.startswith("/api/")


def unavailable_response(request, service: str):
    detail = unavailable_detail(service)
    if _is_api(request):
        response = JsonResponse({"detail": detail}, status=503)
    else:
        response = HttpResponse(
            f"<!doctype html><title>Service unavailable</title><h1>Service unavailable</h1><p>{detail}</p>",
            status=503,
        )
    response["Retry-After"] = str(RETRY_AFTER_S)
    return response


class BackingServiceErrorMiddleware:
    """Dashboard and admin views: a database, cache or broker outage answers 503, a protected delete 409.

    (API views are answered by ``inferledger.api.exception_handler`` before this sees them.)
    """

    def __init__(self, get_response):
        self.get_response = get_response

    def __call__(self, request):
        return self.get_response(request)

    def process_exception(self, request, exception):
        service = unavailable_service(exception)
        if service is not None:
            logger.error("%s %s: %s unavailable", request.method, request.path, service, exc_info=exception)
            return unavailable_response(request, service)
        if isinstance(exception, ProtectedError | RestrictedError):
            return HttpResponse(in_use_detail(exception), status=409, content_type="text/plain; charset=utf-8")
        return None


def bad_request(request, exception, template_name=defaults.ERROR_400_TEMPLATE_NAME):
    """handler400: a body over DATA_UPLOAD_MAX_MEMORY_SIZE is 413 (Django files it under 400, as suspicious)."""
    from django.core.exceptions import RequestDataTooBig

    if isinstance(exception, RequestDataTooBig):
        return HttpResponse(body_too_large_detail(), status=413, content_type="text/plain")
    return defaults.bad_request(request, exception, template_name)


def server_error(request, template_name=defaults.ERROR_500_TEMPLATE_NAME):
    """handler500: an outage raised outside any view (a middleware saving the session) is still a 503."""
    service = unavailable_service(sys.exc_info()[1]) if sys.exc_info()[1] else None
    if service is not None:
        return unavailable_response(request, service)
    return defaults.server_error(request, template_name)
