"""LoadGen's own summary and detail logs of an operating point, as ingest stored them.

The logs can be large, so lists of points load them deferred and carry only whether each exists
(`has_loadgen_<kind>_log`); one log is read when it is downloaded, from the dashboard or the API.
"""

from django.db.models import BooleanField, ExpressionWrapper, Q, QuerySet
from django.http import Http404, HttpResponse

from .models import OperatingPoint

LOG_KINDS = ("summary", "detail")
LOG_FIELDS = tuple(f"loadgen_{kind}_log" for kind in LOG_KINDS)


def with_log_flags(points: QuerySet) -> QuerySet:
    """The points with their logs deferred and annotated `has_loadgen_summary_log`/`has_loadgen_detail_log`."""
    flags = {
        f"has_loadgen_{kind}_log": ExpressionWrapper(~Q(**{f"loadgen_{kind}_log": ""}), output_field=BooleanField())
        for kind in LOG_KINDS
    }
    return points.defer(*LOG_FIELDS).annotate(**flags)


def has_log(point: OperatingPoint, kind: str) -> bool:
    """Whether the point has the log, from `with_log_flags`'s annotation (or the field when it is loaded)."""
    flag = getattr(point, f"has_loadgen_{kind}_log", None)
    return bool(flag if flag is not None else getattr(point, f"loadgen_{kind}_log"))


def log_download(run_id, index: int, kind: str) -> HttpResponse:
    """One point's log as a plain-text attachment; 404 naming what is missing."""
    if kind not in LOG_KINDS:
        raise Http404(f"kind: the LoadGen log is 'summary' or 'detail', not {kind!r}")
    point = OperatingPoint.objects.filter(run_id=run_id, index=index).only(f"loadgen_{kind}_log").first()
    if point is None:
        raise Http404(f"run {run_id} has no operating point {index}")
    text = getattr(point, f"loadgen_{kind}_log")
    if not text:
        raise Http404(f"point {index} of run {run_id} has no LoadGen {kind} log stored")
    response = HttpResponse(text, content_type="text/plain; charset=utf-8")
    response["Content-Disposition"] = f'attachment; filename="run-{run_id}-point-{index}-loadgen-{kind}.txt"'
    return response
